"""Does SMART polling delay a sample or the first frame? (issue 17, item 8)

Usage (from the repository root, as root so SMART is polled)::

    PYTHONPATH=. /path/to/python perf/smart_cost.py [--delay 5] [--samples 40] [--rounds 3]

A real smartctl cannot be made slow on demand, so a fake one goes first on
PATH: a shell script that sleeps ``--delay`` seconds and then prints a real
smartctl JSON output (tests/data/smartctl). With it the poller's thread is
inside "smartctl" for the whole run, as with a sick disk that takes its full
timeout. Measured, each "before" (SMART off) next to "after" (SMART on,
smartctl slow), in interleaved rounds:

* sample: wall time of ``Sampler.sample()``, ``--samples`` calls 0.1 s apart
  (median, p95, max over all rounds);
* first snapshot: ``Sampler(...)`` plus its first ``sample()`` (the poller
  made as the dashboard makes it: first smartctl call after START_DELAY_S);
* first frame: ``RaidtopApp.run_test()`` until the dashboard has applied its
  first snapshot (headless Textual: what the terminal would show first).

Not part of the test run: results depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "tests" / "data" / "smartctl" / "corpus" / "WDC_WD20EFRX-68EUZN0_17.json"


def fake_smartctl(directory: Path, delay: float) -> Path:
    """A smartctl that takes ``delay`` seconds, then answers with a real drive's JSON."""
    script = directory / "smartctl"
    script.write_text(f"#!/bin/sh\nsleep {delay}\ncat {FIXTURE}\n")
    script.chmod(0o755)
    return script


def sample_times(smart: bool, count: int) -> tuple[list[float], float]:
    """(each sample's seconds, first snapshot's seconds) with SMART on or off."""
    from raidtop.presentation.judgement import judged_sampler, smart_poller
    from raidtop.collect.smart.poller import START_DELAY_S

    started = time.perf_counter()
    poller = smart_poller("/", 600.0 if smart else 0.0, start_delay=START_DELAY_S)
    sampler = judged_sampler("/", smart=poller)
    sampler.sample()
    first = time.perf_counter() - started
    times = []
    for _ in range(count):
        time.sleep(0.1)
        t = time.perf_counter()
        sampler.sample()
        times.append(time.perf_counter() - t)
    if poller is not None:
        poller.stop()
    return times, first


def first_frame(smart: bool) -> float:
    """Seconds from run_test() until the dashboard applied its first snapshot."""
    from raidtop.app.raidtop_app import RaidtopApp
    from raidtop.config import Config

    async def run() -> float:
        started = time.perf_counter()
        app = RaidtopApp(Config(smart_interval=600.0 if smart else 0.0, bell=False))
        async with app.run_test(size=(120, 40)) as pilot:
            while app.live.latest is None:
                await pilot.pause(0.005)
            return time.perf_counter() - started

    return asyncio.run(run())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--delay", type=float, default=5.0, help="seconds the fake smartctl takes (default 5)")
    parser.add_argument("--samples", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if os.geteuid() != 0:
        print("smart_cost: run as root (SMART is not polled otherwise)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        fake_smartctl(Path(tmp), args.delay)
        os.environ["PATH"] = f"{tmp}:{os.environ.get('PATH', '')}"
        results: dict[str, dict[str, list[float]]] = {
            label: {"sample": [], "first": [], "frame": []} for label in ("before", "after")
        }
        for _ in range(args.rounds):
            for label, smart in (("before", False), ("after", True)):
                times, first = sample_times(smart, args.samples)
                results[label]["sample"] += times
                results[label]["first"].append(first)
                results[label]["frame"].append(first_frame(smart))
    print(
        f"fake smartctl delay {args.delay:g} s; {args.rounds} rounds x {args.samples} samples; "
        f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}"
    )
    print(f"{'':8} {'sample median':>14} {'p95':>8} {'max':>8} {'first snapshot':>15} {'first frame':>12}")
    for label, r in results.items():
        s = sorted(r["sample"])
        p95 = s[int(0.95 * (len(s) - 1))]
        print(
            f"{label:8} {statistics.median(s) * 1000:11.2f} ms {p95 * 1000:5.2f} ms {s[-1] * 1000:5.2f} ms "
            f"{statistics.median(r['first']) * 1000:12.1f} ms {statistics.median(r['frame']) * 1000:9.0f} ms"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
