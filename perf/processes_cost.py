"""What reading every process's I/O costs per tick: raidtop's reader next to psutil (issue 26).

Usage (from the repository root, root for other users' /proc/PID/io)::

    .venv/bin/python perf/processes_cost.py --sleepers 2000 --ticks 20

Starts N sleeping processes (its own, stopped on exit), then times, in CPU
seconds of this process per tick: raidtop's ProcessTable (one /proc/PID/io
read per process, identity only for processes whose counters moved), the
same plus the cgroup tree, and psutil reading io_counters() of every process
(the closest psutil-only reader: process_iter keeps Process objects between
ticks, as glances does). Not part of the test run.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from raidtop.collect.processes import ProcessWatch  # noqa: E402
from raidtop.collect.processes.procfs import ProcessTable  # noqa: E402
from raidtop.collect.source import Root  # noqa: E402


def per_tick(read, ticks: int) -> float:
    read()  # the first tick reads who every process is: not the steady state
    start = time.process_time()
    for _ in range(ticks):
        read()
    return (time.process_time() - start) / ticks


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sleepers", type=int, default=2000)
    parser.add_argument("--ticks", type=int, default=20)
    args = parser.parse_args()
    sleepers = subprocess.Popen(
        ["sh", "-c", f"i=0; while [ $i -lt {args.sleepers} ]; do sleep 86400 & i=$((i+1)); done; wait"],
        start_new_session=True,
    )
    try:
        for _ in range(600):
            if sum(1 for e in os.listdir("/proc") if e.isdigit()) >= args.sleepers:
                break
            time.sleep(0.05)
        root = Root("/")
        count = sum(1 for e in os.listdir("/proc") if e.isdigit())
        table = ProcessTable()
        raidtop_s = per_tick(lambda: table.read(root), args.ticks)
        watch = ProcessWatch(processes=True)
        with_cgroups_s = per_tick(lambda: watch.read(root, []), args.ticks)
        import psutil

        def psutil_read():
            for p in psutil.process_iter(["io_counters"]):
                p.info["io_counters"]

        psutil_s = per_tick(psutil_read, args.ticks)
        print(f"processes {count} in /proc; load {Path('/proc/loadavg').read_text().strip()}")
        print(f"raidtop ProcessTable          {raidtop_s * 1000:7.1f} ms CPU per tick")
        print(f"raidtop ProcessWatch+cgroups  {with_cgroups_s * 1000:7.1f} ms CPU per tick")
        print(f"psutil io_counters, all procs {psutil_s * 1000:7.1f} ms CPU per tick  (psutil {psutil.__version__})")
        print(f"ratio raidtop / psutil        {raidtop_s / psutil_s:7.2f}")
    finally:
        os.killpg(sleepers.pid, signal.SIGKILL)
        sleepers.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
