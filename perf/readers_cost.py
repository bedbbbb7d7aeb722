"""What each optional reader costs per tick at 500 block devices, on and off (issue 30, item 6).

Usage (as root, from the repository root)::

    .venv/bin/python perf/readers_cost.py                 # 500 loops, 20 ticks per setting
    .venv/bin/python perf/readers_cost.py --devices 2000 --ticks 10

On perf/scale.py's loop devices (one read by fio at 100 IOPS), a fresh
``Sampler("/")`` per setting samples every ``--gap`` seconds (so caches cool as
they do between a dashboard's ticks) and the thread CPU of each
``Sampler.sample()`` is taken; the median is printed. The settings are the
switches the screens flip: nothing shown (what a hidden panel leaves), the
Processes panel (``want_processes``), a "Who loads it" view (``want_units``:
the cgroup tree), both, and a view of the stack (``stack.view_opened``).
Two readers run beside the sampler, not in it, and are measured as
processes: ``mdadm --detail`` (the array detail runs it once a minute: CPU of
one run, this process and its child) and the latency tracer (bpftrace on the
busy device, while a view shows latency: bpftrace's CPU and this process's
per second, after it attached). Everything it sets up is undone on exit.
Not part of the test run.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scale import LoopFarm, with_loop_farm, block_device_count  # noqa: E402
from tui_cost import machine_lines  # noqa: E402

from raidtop.collect.md.mdadm_detail import read_mdadm_detail  # noqa: E402
from raidtop.collect.sampler import Sampler  # noqa: E402
from raidtop.collect.source import Root  # noqa: E402
from raidtop.latency.tracer import LatencyTracer, why_unavailable  # noqa: E402

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
MDADM_EVERY_S = 60.0
"""The array detail's mdadm period (raidtop.screens.array_detail.ArrayDetailScreen.MDADM_EVERY_S)."""


def sample_cost(setting: str, ticks: int, gap: float) -> float:
    """Median thread CPU ms of one ``Sampler.sample()`` with the switches of ``setting`` on."""
    sampler = Sampler("/")
    watch = sampler.processes
    watch.want_processes = setting in ("processes", "processes + cgroup")
    watch.want_units = setting in ("cgroup", "processes + cgroup")
    if setting == "stack":
        sampler.stack.view_opened()
    for _ in range(3):  # the first samples learn who every device and process is
        sampler.sample()
        time.sleep(gap)
    costs = []
    for _ in range(ticks):
        started = time.thread_time()
        sampler.sample()
        costs.append((time.thread_time() - started) * 1000)
        time.sleep(gap)
    return statistics.median(costs)


def mdadm_cost(name: str, runs: int) -> tuple[float, str]:
    """Median CPU ms (this process and its child) of one ``mdadm --detail`` read, and what it answered."""
    root, costs, answer = Root("/"), [], ""
    for _ in range(runs):
        before = os.times()
        detail = read_mdadm_detail(root, name)
        after = os.times()
        spent = sum(
            getattr(after, f) - getattr(before, f) for f in ("user", "system", "children_user", "children_system")
        )
        costs.append(spent * 1000)
        answer = detail.unavailable or "read"
    return statistics.median(costs), answer


def process_ticks(pid: int) -> int:
    """utime + stime of ``pid``."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return int(fields[11]) + int(fields[12])


def tracer_cost(device: str, seconds: float) -> tuple[float, float] | str:
    """(bpftrace's CPU %, this process's CPU %) while tracing ``device``, or why it could not run."""
    reason = why_unavailable()
    if reason:
        return reason
    ended: list[str] = []
    tracer = LatencyTracer([device], 1, lambda _hists: None, ended.append)
    tracer.start()
    try:
        if not tracer.wait_attached(60):
            return f"bpftrace did not attach: {ended[0] if ended else 'no answer in 60 s'}"
        pid = tracer.pid
        assert pid is not None
        time.sleep(2)  # past the first prints
        own, child, at = os.times(), process_ticks(pid), time.monotonic()
        time.sleep(seconds)
        own_after, child_after, end = os.times(), process_ticks(pid), time.monotonic()
        wall = end - at
        own_s = (own_after.user - own.user) + (own_after.system - own.system)
        return (child_after - child) / CLOCK_TICKS / wall * 100, own_s / wall * 100
    finally:
        tracer.stop()
        tracer.join(10)


def main() -> int:
    """Attach the devices, measure each setting, print one table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", type=int, default=500, help="loop devices to attach (default 500)")
    parser.add_argument("--ticks", type=int, default=20, help="samples per setting (default 20)")
    parser.add_argument("--gap", type=float, default=0.5, help="seconds between samples (default 0.5)")
    parser.add_argument("--trace-seconds", type=float, default=20.0, help="latency tracer run (default 20)")
    args = parser.parse_args()
    if os.geteuid() != 0:
        print("readers_cost.py attaches loop devices and mounts a tmpfs: run it as root", file=sys.stderr)
        return 2
    missing = [name for name in ("losetup", "fio") if shutil.which(name) is None]
    if missing:
        print(f"needed and not found: {', '.join(missing)}", file=sys.stderr)
        return 2

    def measured(farm: LoopFarm) -> int:
        farm.attach(args.devices)
        farm.start_fio(1)
        for line in machine_lines():
            print(line)
        processes = sum(1 for e in os.listdir("/proc") if e.isdigit())
        print(f"devices   {block_device_count()} in /sys/block, {processes} processes")
        print()
        print("| reader (switch) | CPU ms per tick | over nothing shown |")
        print("|---|---|---|")
        base = None
        for setting in ("nothing shown", "processes", "cgroup", "processes + cgroup", "stack", "nothing shown"):
            cost = sample_cost(setting, args.ticks, args.gap)
            base = cost if base is None else base
            print(f"| Sampler.sample(), {setting} | {cost:.2f} | {cost - base:+.2f} |", flush=True)
        busy = Path(farm.devices[0][0]).name
        mdadm, answer = mdadm_cost("md0", 5)
        print(
            f"| mdadm --detail ({answer[:60]}), once per {MDADM_EVERY_S:g} s | {mdadm:.2f} per run |"
            f" {mdadm / MDADM_EVERY_S:+.3f} per second |"
        )
        traced = tracer_cost(busy, args.trace_seconds)
        if isinstance(traced, str):
            print(f"| latency tracer | not run: {traced} | |")
        else:
            print(
                f"| latency tracer on {busy}: ms of CPU per second, bpftrace + raidtop's reader | "
                f"{traced[0] * 10:.2f} + {traced[1] * 10:.2f} | only while a view shows latency |"
            )
        print(f"load at end {Path('/proc/loadavg').read_text().strip()}")
        return 0

    return with_loop_farm(measured, "readers benchmark")


if __name__ == "__main__":
    sys.exit(main())
