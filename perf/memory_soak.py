"""raidtop's memory over a long run at 500 devices (issue 30, item 4).

Usage (as root, from the repository root)::

    .venv/bin/python perf/memory_soak.py                        # 500 loops, 0.5 s, one hour
    .venv/bin/python perf/memory_soak.py --minutes 12 --interval 1

Attaches perf/scale.py's loop devices (one read by fio at 100 IOPS) and
runs raidtop alone in a private tmux at 120×40 with ``--interval`` and its
Processes panel shown (``6``: the panel that reads the most). Every
``--every`` seconds it prints the minute, VmRSS, VmHWM and raidtop's CPU so
far; at the end, RSS at 10 minutes and the growth from 10 minutes to the end
(the budget: ≤ 40 MB at 10 minutes, flat after it). Everything it sets up is
undone on exit, Ctrl-C, SIGTERM or SIGHUP. Not part of the test run.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from scale import LoopFarm, with_loop_farm, block_device_count  # noqa: E402
from tui_cost import machine_lines  # noqa: E402
from tui_measure import CLOCK_TICKS, AppSpec, TmuxServer, _launch, _read_ticks, _wait_for_marker, prewarm  # noqa: E402


def memory_kb(pid: int) -> tuple[int, int]:
    """(VmRSS, VmHWM) of ``pid`` in KiB."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            fields[key] = int(value.split()[0])
    return fields["VmRSS"], fields["VmHWM"]


def main() -> int:
    """Attach the devices, run raidtop for the given time, print its memory as it goes."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", type=int, default=500, help="loop devices to attach (default 500)")
    parser.add_argument("--minutes", type=float, default=60.0, help="run length (default 60)")
    parser.add_argument("--interval", default="0.5", help="raidtop's --interval (default 0.5)")
    parser.add_argument("--every", type=float, default=60.0, help="seconds between readings (default 60)")
    parser.add_argument("--python", default=sys.executable, help="interpreter with raidtop's dependencies")
    args = parser.parse_args()
    if os.geteuid() != 0:
        print("memory_soak.py attaches loop devices and mounts a tmpfs: run it as root", file=sys.stderr)
        return 2
    missing = [name for name in ("tmux", "losetup", "fio") if shutil.which(name) is None]
    if missing:
        print(f"needed and not found: {', '.join(missing)}", file=sys.stderr)
        return 2

    def measured(farm: LoopFarm) -> int:
        # Started from "/" so that ``-m raidtop`` imports the installed package of ``--python``
        # (e.g. a pipx install's), not the checkout's sources from the working directory.
        argv = (args.python, "-m", "raidtop", "--interval", args.interval)
        app = AppSpec("raidtop", argv, "Disks", cwd=Path("/"), keys=("6",))
        farm.attach(args.devices)
        farm.start_fio(1 if args.devices else 0)
        for line in machine_lines():
            print(line)
        print(f"devices   {block_device_count()} in /sys/block; raidtop {' '.join(app.argv[1:])}, Processes shown")
        prewarm(args.python)
        with tempfile.TemporaryDirectory(prefix="raidtop-soak-") as tmp:
            server = TmuxServer(Path(tmp), f"soak-{time.monotonic_ns()}")
            try:
                pid, started, _ = _launch(server, app, Path(tmp))
                _wait_for_marker(server, app, pid, started, timeout=15.0)
                server.run("send-keys", "-t", app.name, *app.keys)
                readings: list[tuple[float, int, int]] = []
                print("| minute | VmRSS MB | VmHWM MB | CPU % so far |")
                print("|---|---|---|---|")
                end = started + args.minutes * 60
                while True:
                    time.sleep(max(0.0, min(args.every, end - time.monotonic())))
                    minute = (time.monotonic() - started) / 60
                    rss, hwm = memory_kb(pid)
                    cpu = _read_ticks(pid) / CLOCK_TICKS / (time.monotonic() - started) * 100
                    readings.append((minute, rss, hwm))
                    print(f"| {minute:.1f} | {rss / 1024:.1f} | {hwm / 1024:.1f} | {cpu:.2f} |", flush=True)
                    if time.monotonic() >= end:
                        break
            finally:
                server.kill()
        at_ten = next((r for r in readings if r[0] >= 10), readings[-1])
        last = readings[-1]
        print(f"RSS at {at_ten[0]:.1f} min: {at_ten[1] / 1024:.1f} MB (budget ≤ 40 MB)")
        print(f"growth {at_ten[0]:.1f} → {last[0]:.1f} min: {(last[1] - at_ten[1]) / 1024:+.1f} MB (flat: ≈ 0)")
        print(f"load at end {Path('/proc/loadavg').read_text().strip()}")
        return 0

    return with_loop_farm(measured, "memory soak")


if __name__ == "__main__":
    sys.exit(main())
