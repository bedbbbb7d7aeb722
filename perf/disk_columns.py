"""The sampler at thousands of busy disks against the bare read of /proc/diskstats, this code and another checkout.

Usage (from the repository root, with the project venv)::

    .venv/bin/python perf/disk_columns.py                        # this tree only
    .venv/bin/python perf/disk_columns.py --before /work/main    # and a checkout of the code before, same run

Each measurement runs in a child process that imports raidtop from one
checkout (this tree, or ``--before``), writes a synthetic machine of
``--disks`` block devices (``synthetic.py``) under /dev/shm and, per
tick, advances it by one second (untimed, every disk busy unless
``--busy`` says otherwise) and times, in alternating order:

- ``raw``: open and read /proc/diskstats of the synthetic root, the floor;
- ``sample``: one ``Sampler.sample()`` (every source, disks included);
- ``floor``: decode, split and ``int()`` every counter of the same file, the least
  any CPython parse of it costs;
- ``+ screen``: what the dashboard then reads from that snapshot each tick
  (the history's sparkline values of every device, the Disks panel's order
  and the 40 rows a 120×40 screen shows).

The children of the two checkouts alternate over ``--rounds`` rounds, so
both see the same load; the table gives medians over the rounds of each
child's medians, and the ratio to the raw read (median of per-round
ratios). The budget (issue 30): ``sample`` within 3× the raw read.
Timings depend on the machine and its load; no test runs this.
"""

from __future__ import annotations

import argparse
from array import array
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

HERE = Path(__file__).resolve().parent
BUDGET = 3.0
SCREEN_ROWS = 40


def child(code: Path, disks: int, busy: float, seconds: float) -> dict:
    """Measure one checkout (run in a fresh process whose path starts with ``code``)."""
    sys.path.insert(0, str(code))
    sys.path.insert(1, str(HERE))
    from synthetic import SyntheticSystem
    from synthetic_state import Shape

    from raidtop.collect.sampler import Sampler
    from raidtop.live.history import History
    from raidtop.widgets.disks_panel import DiskOrder, DiskView

    base = "/dev/shm" if os.path.isdir("/dev/shm") else None
    with tempfile.TemporaryDirectory(prefix="raidtop-cols-", dir=base) as tmp:
        system = SyntheticSystem(Path(tmp), Shape(disks=disks, cpus=2))
        system.build()
        diskstats = Path(tmp) / "proc/diskstats"
        sampler, history, order, view = Sampler(Path(tmp)), History(), DiskOrder(), DiskView(sort_key="util_pct")

        def raw() -> None:
            with open(diskstats, "rb") as handle:
                handle.read()

        def floor() -> None:
            # The least any CPython parse of the file does: decode, split, int() each counter.
            with open(diskstats, "rb") as handle:
                tokens = handle.read().decode().split()
            width = 20
            for k in range(3, width):
                array("Q", map(int, tokens[k::width]))

        def screen(snap) -> None:
            history.add(snap)
            if hasattr(order, "positions"):
                positions, _ = order.positions(snap.disks, view)
                shown = [snap.disks[i] for i in positions[:SCREEN_ROWS]]
            else:
                shown = order(snap.disks, view)[0][:SCREEN_ROWS]
            for disk in shown:
                history.recent(disk.name, 12)

        for _ in range(5):
            system.tick(busy)
            screen(sampler.sample())
        times: dict[str, list[float]] = {"raw": [], "sample": [], "screen": [], "floor": []}
        deadline = time.perf_counter() + seconds
        while len(times["raw"]) < 15 or (time.perf_counter() < deadline and len(times["raw"]) < 500):
            system.tick(busy)
            first_raw = len(times["raw"]) % 2 == 0
            if first_raw:
                times["raw"].append(_timed(raw))
            start = time.perf_counter()
            snap = sampler.sample()
            times["sample"].append((time.perf_counter() - start) * 1000.0)
            times["screen"].append(_timed(partial(screen, snap)))
            times["floor"].append(_timed(floor))
            if not first_raw:
                times["raw"].append(_timed(raw))
        return {
            "raw": statistics.median(times["raw"]),
            "sample": statistics.median(times["sample"]),
            "screen": statistics.median(times["screen"]),
            "floor": statistics.median(times["floor"]),
            "ticks": len(times["raw"]),
            "devices": len(snap.disks),
        }


def _timed(call) -> float:
    start = time.perf_counter()
    call()
    return (time.perf_counter() - start) * 1000.0


def run_child(code: Path, args: argparse.Namespace) -> dict:
    """One measurement of ``code`` in a fresh interpreter."""
    command = [sys.executable, __file__, "--child", str(code), "--disks", str(args.disks)]
    command += ["--busy", str(args.busy), "--seconds", str(args.seconds)]
    # No bytecode written: the --before checkout is read, never changed.
    environment = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    out = subprocess.run(command, check=True, capture_output=True, text=True, cwd=code, env=environment)
    return json.loads(out.stdout)


def main() -> None:
    """Alternate the checkouts' children over the rounds and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, help="a checkout of the code to compare with (read only)")
    parser.add_argument("--disks", type=int, default=4096)
    parser.add_argument("--busy", type=float, default=1.0, help="share of disks with I/O each tick (default 1)")
    parser.add_argument("--seconds", type=float, default=4.0, help="timed seconds per child (default 4)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        json.dump(child(args.child, args.disks, args.busy, args.seconds), sys.stdout)
        return
    checkouts = [("after (this tree)", HERE.parent)]
    if args.before:
        checkouts.insert(0, ("before (" + str(args.before) + ")", args.before))
    print(f"load {Path('/proc/loadavg').read_text().strip()}; {args.disks} disks, {args.busy:.0%} busy per tick")
    results: dict[str, list[dict]] = {label: [] for label, _ in checkouts}
    for round_number in range(args.rounds):
        for label, code in checkouts if round_number % 2 == 0 else reversed(checkouts):
            result = run_child(code, args)
            results[label].append(result)
            print(
                f"  round {round_number + 1} {label}: sample {result['sample']:.2f} ms, "
                f"+ screen {result['screen']:.2f} ms, raw {result['raw']:.3f} ms",
                file=sys.stderr,
            )
    print(
        f"\n{'code':<28} {'devices':>7} {'raw ms':>7} {'sample ms':>9} {'ratio':>6} "
        f"{'+screen ms':>10} {'ratio':>6} {'floor ms':>8}  budget (sample ≤ {BUDGET:g}× raw)"
    )
    for label, rows in results.items():
        raw = statistics.median(r["raw"] for r in rows)
        sample = statistics.median(r["sample"] for r in rows)
        screen = statistics.median(r["screen"] for r in rows)
        ratio = statistics.median(r["sample"] / r["raw"] for r in rows)
        both = statistics.median((r["sample"] + r["screen"]) / r["raw"] for r in rows)
        floor = statistics.median(r["floor"] for r in rows)
        verdict = "ok" if ratio <= BUDGET else f"MISS ({ratio / BUDGET:.2f}× over)"
        print(
            f"{label:<28} {rows[0]['devices']:>7} {raw:>7.3f} {sample:>9.2f} {ratio:>6.1f} "
            f"{sample + screen:>10.2f} {both:>6.1f} {floor:>8.2f}  {verdict}"
        )
    print("(medians over rounds of each child's medians; ratio = median of the rounds' same-run ratios;")
    print(" floor = decode, split and int() every counter of the same file: no Python parse does less)")
    print(f"load at end {Path('/proc/loadavg').read_text().strip()}")


if __name__ == "__main__":
    main()
