"""Time ``Sampler.sample()`` on synthetic machines next to the bare cost of reading its files.

Usage (from the repository root, with the project venv)::

    .venv/bin/python perf/sampler.py             # every case, ~3 s per measurement
    .venv/bin/python perf/sampler.py --seconds 1 # quicker, noisier
    .venv/bin/python perf/sampler.py --profile "4096d/2c"   # cProfile one case

For each case a synthetic root is written to a tmpfs directory (see
``synthetic.py``), the sampler is warmed up, and then every iteration
advances the synthetic machine by one second (untimed) and times, in
alternating order, one ``sample()`` and one bare read of exactly the files
and directories that ``sample()`` opened in its steady state. Which files
those are is recorded in a child process with an audit hook (``open``,
``os.listdir``, ``os.scandir`` events), so the list follows the code and
the timing process carries no hook. The budget: sampler ≤ 3× the raw read
at 4096 disks and with 64 md arrays of 16 members.

Not part of the test run: timings depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import cProfile
import datetime
import gc
import json
import os
import platform
import pstats
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic import SyntheticSystem  # noqa: E402
from synthetic_state import Shape  # noqa: E402

from raidtop.collect import native  # noqa: E402
from raidtop.collect.sampler import Sampler  # noqa: E402

CASES = (
    Shape(disks=16, cpus=2),
    Shape(disks=256, cpus=2),
    Shape(disks=4096, cpus=2),
    Shape(disks=16, cpus=64),
    Shape(disks=16, cpus=256),
    Shape(disks=4096, cpus=256),
    Shape(disks=1040, cpus=64, md_arrays=64, md_members=16),
)
VARIANTS = (("10% busy", 0.10), ("all busy", 1.0))
BUDGET_RATIO = 3.0
WARMUP_TICKS = 5


@dataclass(frozen=True)
class Timing:
    """Medians and 90th percentiles of one case and variant, in milliseconds.

    Wall-clock (perf_counter) is the budget's measure; the thread's CPU time
    (thread_time) is kept beside it because on a shared machine it is not
    inflated by the time the bench waits for a core.
    """

    sampler_median: float
    sampler_p90: float
    raw_median: float
    raw_p90: float
    sampler_cpu_median: float
    raw_cpu_median: float
    iterations: int

    @property
    def ratio(self) -> float:
        """How many times the bare read one sample costs (median over median, wall clock)."""
        return self.sampler_median / self.raw_median if self.raw_median else float("inf")

    @property
    def cpu_ratio(self) -> float:
        """The same ratio in thread CPU time."""
        return self.sampler_cpu_median / self.raw_cpu_median if self.raw_cpu_median else float("inf")


# ---------------------------------------------------------------- what one tick runs


def sample_function(root: Path):
    """The per-tick work raidtop does: ``Sampler.sample()``, plus md if it is not in it yet.

    While md reading lives outside the Sampler, the dashboard would call
    ``read_md`` next to it each tick, so the bench does too.
    """
    sampler = Sampler(root)
    if not (root / "proc/mdstat").exists() or _sampler_reads_md(sampler):
        sampler.reset()
        return sampler.sample, "Sampler.sample()"
    from raidtop.collect.md.read import read_md

    def sample_and_md() -> None:
        sampler.sample()
        read_md(root)

    return sample_and_md, "Sampler.sample() + read_md()"


def _sampler_reads_md(sampler: Sampler) -> bool:
    """True once the Sampler itself reads md (RawSample.md filled in)."""
    return getattr(sampler.read(), "md", None) is not None


def read_raw(files: list[str], dirs: list[str]) -> None:
    """The floor: list the same directories and read the same files, nothing else."""
    for directory in dirs:
        os.listdir(directory)
    for path in files:
        with open(path, "rb") as handle:
            handle.read()


# ---------------------------------------------------------------- recording reads


def record_reads(root: Path) -> dict:
    """Ask a child process which files and directories one steady-state tick opens."""
    out = subprocess.run([sys.executable, __file__, "--record", str(root)], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def _record_in_child(root: Path) -> None:
    """Child side of :func:`record_reads`: sample three times, record the third."""
    sample, _ = sample_function(root)
    sample()
    sample()  # identities are known from here on: this is the steady state
    prefix = str(root)
    opened: list[str] = []
    listed: list[str] = []
    recording = False

    def hook(event: str, args: tuple) -> None:
        if not recording or not args:
            return
        path = args[0]
        if isinstance(path, bytes):
            path = path.decode()
        if not isinstance(path, str) or not path.startswith(prefix):
            return
        if event == "open":
            opened.append(path)
        elif event in ("os.listdir", "os.scandir"):
            listed.append(path)

    sys.addaudithook(hook)
    recording = True
    sample()
    recording = False
    # A failed open (an optional file that is absent) costs a syscall but has
    # nothing to read: it stays in the sampler's time, not in the raw list.
    files = sorted(p for p in set(opened) if os.path.isfile(p))
    dirs = sorted(p for p in set(listed) if os.path.isdir(p))
    json.dump({"files": files, "dirs": dirs, "opens": len(opened), "listings": len(listed)}, sys.stdout)


# ---------------------------------------------------------------- timing


def time_variant(system: SyntheticSystem, sample, reads: dict, busy: float, seconds: float) -> Timing:
    """Warm up, then alternate timed samples and timed raw reads for ``seconds``."""
    files, dirs = reads["files"], reads["dirs"]
    for _ in range(WARMUP_TICKS):
        system.tick(busy)
        sample()
        read_raw(files, dirs)
    sampler_ms: list[tuple[float, float]] = []
    raw_ms: list[tuple[float, float]] = []
    deadline = time.perf_counter() + seconds
    while len(sampler_ms) < 20 or (time.perf_counter() < deadline and len(sampler_ms) < 2000):
        system.tick(busy)
        # Alternate the order so neither side always runs with the warmer caches.
        if len(sampler_ms) % 2:
            sampler_ms.append(_timed(sample))
            raw_ms.append(_timed(lambda: read_raw(files, dirs)))
        else:
            raw_ms.append(_timed(lambda: read_raw(files, dirs)))
            sampler_ms.append(_timed(sample))
    wall_s, cpu_s = [w for w, _ in sampler_ms], [c for _, c in sampler_ms]
    wall_r, cpu_r = [w for w, _ in raw_ms], [c for _, c in raw_ms]
    return Timing(
        statistics.median(wall_s),
        _p90(wall_s),
        statistics.median(wall_r),
        _p90(wall_r),
        statistics.median(cpu_s),
        statistics.median(cpu_r),
        len(sampler_ms),
    )


def _timed(call) -> tuple[float, float]:
    """Wall-clock and thread-CPU milliseconds of one call."""
    start, start_cpu = time.perf_counter(), time.thread_time()
    call()
    return (time.perf_counter() - start) * 1000.0, (time.thread_time() - start_cpu) * 1000.0


def _p90(values: list[float]) -> float:
    return statistics.quantiles(values, n=10)[8]


def first_sample_ms(root: Path) -> float:
    """A fresh sampler's first call: every device's sysfs identity is walked."""
    return _timed(Sampler(root).sample)[0]


# ---------------------------------------------------------------- report


def machine_lines() -> list[str]:
    """Python, machine, CPU model, cores, load: what the numbers depend on."""
    model = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return [
        f"date      {datetime.datetime.now().astimezone().isoformat(timespec='seconds')}",
        f"python    {platform.python_implementation()} {platform.python_version()} ({sys.executable})",
        f"machine   {platform.machine()}, {model}, {os.cpu_count()} cores, {platform.platform()}",
        f"load      {Path('/proc/loadavg').read_text().strip()}",
    ]


def print_table(rows: list[tuple[Shape, str, int, float, Timing]], what: str) -> None:
    """One line per case and variant, budget verdicts on the cases that have one."""
    print(f"\ntimed per tick: {what}; raw = os.listdir + open/read of the same paths")
    header = (
        f"{'case':<22} {'variant':<9} {'files':>5} {'first ms':>8} {'sampler ms':>17} {'raw-read ms':>17} "
        f"{'ratio':>6} {'cpu ratio':>9}  budget (wall ratio ≤ {BUDGET_RATIO:g})"
    )
    print(header)
    print("-" * len(header))
    for shape, variant, files, first, t in rows:
        verdict = ""
        if shape.disks >= 4096 or shape.md_arrays:
            verdict = "ok" if t.ratio <= BUDGET_RATIO else f"MISS ({t.ratio / BUDGET_RATIO:.2f}x over)"
        print(
            f"{shape.label:<22} {variant:<9} {files:>5} {first:>8.1f} "
            f"{t.sampler_median:>7.2f} p90 {t.sampler_p90:>5.1f} {t.raw_median:>7.2f} p90 {t.raw_p90:>5.1f} "
            f"{t.ratio:>6.2f} {t.cpu_ratio:>9.2f}  {verdict}"
        )
    print("(wall-clock medians and 90th percentiles; cpu ratio = the same ratio in thread CPU time;")
    print(" first = a fresh sampler's first call, sysfs identity walk included)")


def build(tmp: Path, shape: Shape) -> SyntheticSystem:
    """Write one synthetic machine under ``tmp``."""
    root = tmp / shape.label.replace("/", "-").replace(" ", "_")
    system = SyntheticSystem(root, shape)
    system.build()
    return system


def run(seconds: float, only: str | None) -> None:
    """Measure every case (or those whose label contains ``only``) and print the table."""
    for line in machine_lines():
        print(line)
    rows = []
    what = "Sampler.sample()"
    base = "/dev/shm" if os.path.isdir("/dev/shm") else None
    with tempfile.TemporaryDirectory(prefix="raidtop-bench-", dir=base) as tmp:
        for shape in CASES:
            if only and only not in shape.label:
                continue
            system = build(Path(tmp), shape)
            reads = record_reads(system.root)
            first = first_sample_ms(system.root)
            sample, label = sample_function(system.root)
            if shape.md_arrays:
                what = label
            for variant, busy in VARIANTS:
                timing = time_variant(system, sample, reads, busy, seconds)
                rows.append((shape, variant, len(reads["files"]), first, timing))
                print(
                    f"  {shape.label} {variant}: {timing.sampler_median:.2f} ms vs {timing.raw_median:.2f} ms raw",
                    file=sys.stderr,
                )
            shutil.rmtree(system.root)
    print_table(rows, what)
    print(f"load at end {Path('/proc/loadavg').read_text().strip()}")


def profile(label: str, ticks: int, busy: float = 0.1) -> None:
    """cProfile ``ticks`` steady-state samples of the case whose label contains ``label``."""
    shape = next(s for s in CASES if label in s.label)
    with tempfile.TemporaryDirectory(prefix="raidtop-bench-", dir="/dev/shm") as tmp:
        system = build(Path(tmp), shape)
        sample, _ = sample_function(system.root)
        for _ in range(WARMUP_TICKS):
            system.tick(busy)
            sample()
        profiler = cProfile.Profile()
        for _ in range(ticks):
            system.tick(busy)
            profiler.enable()
            sample()
            profiler.disable()
        pstats.Stats(profiler).sort_stats("tottime").print_stats(25)


def main() -> None:
    """Parse the command line and run the bench, the profile, or the child recorder."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per case and variant (default 3)")
    parser.add_argument("--only", help="run only cases whose label contains this")
    parser.add_argument("--profile", metavar="CASE", help="cProfile one case instead of timing")
    parser.add_argument(
        "--profile-busy", type=float, default=0.1, help="share of busy devices while profiling (default 0.1)"
    )
    parser.add_argument(
        "--python-only",
        action="store_true",
        help="read disks with the Python code alone, as an install without the compiled module does",
    )
    parser.add_argument("--record", metavar="ROOT", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.python_only:
        native.diskstats_parse = native.disk_rates = None
    if args.record:
        _record_in_child(Path(args.record))  # its stdout is the recorded reads, nothing else
        return
    print(f"disk code {'Python only' if native.disk_rates is None else 'compiled'}")
    if args.profile:
        profile(args.profile, ticks=50, busy=args.profile_busy)
    else:
        gc.collect()
        run(args.seconds, args.only)


if __name__ == "__main__":
    main()
