"""raidtop next to glances and atop on a host with many block devices (issue 14).

Usage (as root, from the repository root)::

    /work/main/.venv/bin/python perf/scale.py                      # 500 loops, 1 busy, 40 s each
    /work/main/.venv/bin/python perf/scale.py --devices 0 --busy 0 # the host's own devices only
    /work/main/.venv/bin/python perf/scale.py --devices 2000 --busy 50 --seconds 30
    /work/main/.venv/bin/python perf/scale.py --tools raidtop,atop --hold 60   # keep the loops for a profiler

What it sets up, all of it its own and all of it undone on exit, Ctrl-C or
an error:

* a tmpfs mounted on a fresh temporary directory, holding N sparse 64 MiB
  files (they cost no memory until written);
* N loop devices, one per file, each from ``losetup -f --show`` and read
  once (4 KiB) so /proc/diskstats counts it as used;
* with ``--busy k``, one fio process reading k of those devices at a light
  rate (random 4 KiB reads, 100 IOPS each, O_DIRECT).

On the way out it detaches exactly the loop devices it attached, and only
while their backing file is still its own file on its own tmpfs; a device
anyone else attached is never named to losetup. A loop device node that
``losetup -f`` had to create is removed again (LOOP_CTL_REMOVE): a detached
loop device stays in /proc/diskstats, so 2000 left behind made the next
"host's own devices" run read 2002 lines. Then fio is stopped, the tmpfs
unmounted and the directory removed.

Each tool then runs alone, one after another, in its own tmux server at
120×40 with a 1 s refresh, measured by perf/tui_measure.py's ``measure``
(CPU from /proc/<pid>/stat including children, start-up = first 5 s,
steady state after it, peak RSS, the pty's output through pipe-pane).
glances comes from its own venv (``pip install glances`` into
/tmp/glances-venv), atop from the distribution (``apt-get install atop``).

Not part of the test run: results depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import errno
import fcntl
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from tui_cost import find_glances, machine_lines  # noqa: E402
from tui_measure import AppSpec, Measurement, measure, prewarm  # noqa: E402

LOOP_FILE_BYTES = 64 * 1024 * 1024
BUSY_IOPS = 100
LOOP_CTL_REMOVE = 0x4C81
"""ioctl on /dev/loop-control that deletes a free loop device (linux/loop.h)."""
TOOLS = ("raidtop", "glances", "atop")
EXTRA_TOOLS = ("raidtop-processes", "raidtop-before", "raidtop-processes-before", "textual-clock")
"""Not run by default: raidtop with its Processes panel shown (``6``), for issue 26's budget."""
BUDGETS = "500 devices, 1 busy: steady CPU ≤ 0.75× glances, start-up CPU ≤ 1 s, output ≤ 4 KB/s (issue 30), RSS ≤ 64 MB"


class Interrupted(Exception):
    """SIGTERM or SIGHUP arrived: unwind through every ``finally`` like Ctrl-C does."""


def _raise_interrupted(signum: int, _frame) -> None:
    raise Interrupted(signal.Signals(signum).name)


class LoopFarm:
    """Loop devices on a private tmpfs: set up by ``attach``, all undone by ``close``."""

    def __init__(self) -> None:
        self.workdir = Path(tempfile.mkdtemp(prefix="raidtop-scale-"))
        self.mountpoint = self.workdir / "tmpfs"
        self.mounted = False
        self.devices: list[tuple[str, Path]] = []  # (device, its backing file), in attach order
        self.existing = {name for name in os.listdir("/sys/block") if name.startswith("loop")}
        """Loop device nodes there before us: never removed."""
        self.fio: subprocess.Popen | None = None
        self.sleepers: subprocess.Popen | None = None
        self.sleeper_count = 0

    def attach(self, count: int) -> None:
        """Attach ``count`` more loop devices, each read once (the tmpfs mounted on the first call)."""
        if not self.mounted:
            self.mountpoint.mkdir(mode=0o700)
            subprocess.run(
                ["mount", "-t", "tmpfs", "-o", "mode=0700,size=1g", "raidtop-scale", str(self.mountpoint)],
                check=True,
            )
            self.mounted = True
        start = len(self.devices)
        for number in range(start, start + count):
            backing = self.mountpoint / f"disk{number:05d}.img"
            with open(backing, "xb") as image:
                image.truncate(LOOP_FILE_BYTES)
            out = subprocess.run(
                ["losetup", "-f", "--show", "--", str(backing)], check=True, capture_output=True, text=True
            )
            device = out.stdout.strip()
            # Recorded before anything else can fail, so close() detaches it.
            self.devices.append((device, backing))
            _read_once(device)
            if (number + 1 - start) % 100 == 0:
                print(f"  attached {number + 1 - start}/{count}", file=sys.stderr)

    def start_fio(self, busy: int) -> None:
        """One fio process reading ``busy`` of our devices at a light, steady rate."""
        if busy <= 0:
            return
        argv = ["fio", "--output=/dev/null", "--time_based", "--runtime=86400"]
        for device, _ in self.devices[:busy]:
            argv += [
                f"--name={Path(device).name}",
                f"--filename={device}",
                "--rw=randread",
                "--bs=4k",
                "--direct=1",
                f"--rate_iops={BUSY_IOPS}",
                "--ioengine=psync",
            ]
        # Its own session, so stopping it is one signal to its own process group.
        self.fio = subprocess.Popen(argv, start_new_session=True, stdout=subprocess.DEVNULL)

    def start_sleepers(self, count: int) -> None:
        """``count`` sleeping processes (a busy server's process table), one shell's children in their own session."""
        if count <= 0:
            return
        self.sleeper_count = count
        # One shell forks them all and waits: one process group to stop on the way out.
        self.sleepers = subprocess.Popen(
            ["sh", "-c", f"i=0; while [ $i -lt {count} ]; do sleep 86400 & i=$((i+1)); done; wait"],
            start_new_session=True,
            stdout=subprocess.DEVNULL,
        )
        before = sum(1 for e in os.listdir("/proc") if e.isdigit())
        for _ in range(600):  # bounded: forking thousands takes a few seconds on a loaded machine
            if sum(1 for e in os.listdir("/proc") if e.isdigit()) >= before + count:
                break
            time.sleep(0.05)

    def stop_sleepers(self) -> None:
        """Stop the sleeping processes (all of them: one process group) and wait until they are reaped."""
        if self.sleepers is not None and self.sleepers.poll() is None:
            before = process_count()
            os.killpg(self.sleepers.pid, signal.SIGKILL)
            self.sleepers.wait()
            # The orphans are reaped by PID 1, not at once: a count taken before that is wrong.
            for _ in range(200):
                if process_count() <= before - self.sleeper_count // 2:
                    break
                time.sleep(0.05)
        self.sleepers = None

    def close(self) -> None:
        """Stop fio and the sleepers, detach exactly our devices, unmount and remove our directory."""
        self.stop_sleepers()
        if self.fio is not None and self.fio.poll() is None:
            os.killpg(self.fio.pid, signal.SIGTERM)
            try:
                self.fio.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.fio.pid, signal.SIGKILL)
                self.fio.wait()
        left = []
        for device, backing in reversed(self.devices):
            if not _still_ours(device, backing):
                continue  # gone already, or someone else's now: never ours to detach
            result = subprocess.run(["losetup", "-d", device], capture_output=True, text=True)
            if result.returncode != 0:
                left.append(f"{device} ({result.stderr.strip()})")
        _remove_created_nodes([device for device, _ in self.devices], self.existing)
        if left:
            print(f"could not detach {len(left)} device(s): {', '.join(left[:5])}", file=sys.stderr)
        if self.mounted:
            # Autoclear detaches lazily; wait briefly so the tmpfs is no longer busy.
            for _ in range(50):
                if subprocess.run(["umount", str(self.mountpoint)], capture_output=True).returncode == 0:
                    self.mounted = False
                    break
                time.sleep(0.2)
        if self.mounted:
            print(f"tmpfs still mounted at {self.mountpoint}; left in place", file=sys.stderr)
        else:
            shutil.rmtree(self.workdir, ignore_errors=True)


def with_loop_farm(work: Callable[[LoopFarm], int], label: str) -> int:
    """Run ``work`` with a fresh :class:`LoopFarm`, always closed after; the exit code.

    SIGTERM and SIGHUP unwind like Ctrl-C (130); a failure is one sentence (1).
    """
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, _raise_interrupted)
    farm = LoopFarm()
    try:
        return work(farm)
    except (KeyboardInterrupt, Interrupted) as stop:
        print(f"stopped ({stop or 'Ctrl-C'}): cleaning up", file=sys.stderr)
        return 130
    except (OSError, subprocess.CalledProcessError, RuntimeError) as error:
        print(f"{label} failed: {error}", file=sys.stderr)
        return 1
    finally:
        # A second Ctrl-C must not cut the clean-up short and leave devices attached.
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(signum, signal.SIG_IGN)
        farm.close()


def process_count() -> int:
    return sum(1 for entry in os.listdir("/proc") if entry.isdigit())


def _remove_created_nodes(devices: list[str], existing: set[str]) -> None:
    """Delete the loop device nodes ``losetup -f`` created for us, once detached (a busy one refuses)."""
    created = [Path(d).name for d in devices if Path(d).name not in existing]
    if not created:
        return
    left = [int(name[4:]) for name in created if name.startswith("loop") and name[4:].isdigit()]
    fd = os.open("/dev/loop-control", os.O_RDWR | os.O_CLOEXEC)
    try:
        for _ in range(20):  # detaching is asynchronous: a node just released may still be busy
            busy = []
            for number in left:
                try:
                    fcntl.ioctl(fd, LOOP_CTL_REMOVE, number)
                except OSError as error:
                    if error.errno == errno.EBUSY:
                        busy.append(number)  # still detaching, or someone attached it meanwhile
            if not busy:
                return
            left = busy
            time.sleep(0.25)
        print(f"loop devices left in place (busy): {', '.join(f'loop{n}' for n in left)}", file=sys.stderr)
    finally:
        os.close(fd)


def _read_once(device: str) -> None:
    """Read the first 4 KiB, so the device shows I/O in /proc/diskstats."""
    fd = os.open(device, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        os.read(fd, 4096)
    finally:
        os.close(fd)


def _still_ours(device: str, backing: Path) -> bool:
    """Whether ``device`` is still attached to our ``backing`` file (by sysfs, not by name)."""
    sys_file = Path("/sys/block") / Path(device).name / "loop/backing_file"
    try:
        return sys_file.read_text().strip() == str(backing)
    except OSError:
        return False


def tool_specs(tools: list[str], python: str, glances: str | None, before: str | None = None) -> list[AppSpec]:
    """The tools to run, each with the text that shows its first screen is up.

    ``raidtop-before`` is the checkout ``before`` run with the same Python
    (its tree first on PYTHONPATH), for a same-run comparison of a change.
    """
    specs = []
    for tool in tools:
        if tool in ("raidtop-before", "raidtop-processes-before"):
            if before is None:
                raise SystemExit(f"{tool} needs --before CHECKOUT")
            # Run from that checkout: ``python -m`` puts the working directory first on sys.path.
            command = ("env", "PYTHONDONTWRITEBYTECODE=1", python, "-m", "raidtop")
            keys = ("6",) if tool == "raidtop-processes-before" else ()
            specs.append(AppSpec(tool, command, "Disks", cwd=Path(before), keys=keys))
        elif tool == "raidtop":
            # This checkout's raidtop, with the shared venv's Python.
            specs.append(AppSpec("raidtop", (python, "-m", "raidtop"), "Disks"))
        elif tool == "raidtop-processes":
            specs.append(AppSpec("raidtop-processes", (python, "-m", "raidtop"), "Disks", keys=("6",)))
        elif tool == "glances":
            if glances is None:
                print("glances not found (pip install glances into /tmp/glances-venv): skipped", file=sys.stderr)
                continue
            specs.append(AppSpec("glances", (glances, "-t", "1", "--disable-check-update"), "LOAD"))
        elif tool == "textual-clock":
            specs.append(AppSpec(tool, (python, str(Path(__file__).resolve().parent / "textual_clock.py")), "clock"))
        elif tool == "atop":
            if shutil.which("atop") is None:
                print("atop not found (apt-get install atop): skipped", file=sys.stderr)
                continue
            specs.append(AppSpec("atop", ("atop", "1"), "ATOP"))
        else:
            raise SystemExit(f"unknown tool {tool!r}: choose from {', '.join(TOOLS + EXTRA_TOOLS)}")
    return specs


def block_device_count() -> int:
    """Entries in /sys/block: the devices every tool sees."""
    return len(os.listdir("/sys/block"))


def print_table(results: list[Measurement], warmup: float) -> None:
    """The figures side by side, then raidtop's same-run ratios to each other tool."""
    header = (
        f"| {'tool':<8} | steady CPU % | start-up CPU s (first {warmup:g} s) | CPU s to first frame "
        f"| first frame s | peak RSS MB | out B/s |"
    )
    print(header)
    print("|" + "|".join("---" for _ in range(7)) + "|")
    for r in results:
        frame = f"{r.first_frame_s:.2f}" if r.first_frame_s is not None else "n/a"
        frame_cpu = f"{r.first_frame_cpu_s:.2f}" if r.first_frame_cpu_s is not None else "n/a"
        print(
            f"| {r.name:<8} | {r.steady_cpu_pct:.2f} | {r.startup_cpu_pct * warmup / 100:.2f} | {frame_cpu} "
            f"| {frame} | {r.peak_rss_mb:.1f} | {r.bytes_per_s:.0f} |"
        )
    by_name = {r.name: r for r in results}
    subject = by_name.get("raidtop")
    if subject is None:
        return
    print()
    for other in (r for r in results if r.name != "raidtop"):
        cpu = subject.steady_cpu_pct / other.steady_cpu_pct if other.steady_cpu_pct else float("inf")
        out = subject.bytes_per_s / other.bytes_per_s if other.bytes_per_s else float("inf")
        print(
            f"raidtop / {other.name:<8} steady CPU {cpu:5.2f}x  RSS {subject.peak_rss_mb / other.peak_rss_mb:5.2f}x  "
            f"output {out:6.2f}x"
        )
    print(f"budgets (issues 14, 30): {BUDGETS}")


def main() -> int:
    """Set up the devices, measure each tool in turn, print the table, undo everything."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", type=int, default=500, help="loop devices to attach (default 500; 0: none)")
    parser.add_argument("--busy", type=int, default=1, help="of them, how many fio keeps busy (default 1)")
    parser.add_argument("--seconds", type=float, default=40.0, help="run length per tool (default 40)")
    parser.add_argument("--warmup", type=float, default=5.0, help="start-up window before steady state (default 5)")
    parser.add_argument("--tools", default=",".join(TOOLS), help="comma-separated, in run order (default all three)")
    parser.add_argument("--python", default=sys.executable, help="interpreter with raidtop's dependencies")
    parser.add_argument("--glances", help="path to the glances executable")
    parser.add_argument("--before", help="a checkout whose raidtop the tool raidtop-before runs (read only)")
    parser.add_argument(
        "--hold", type=float, default=0.0, help="seconds to keep the devices after the runs (profiling)"
    )
    parser.add_argument(
        "--sleepers", type=int, default=0, help="sleeping processes to start first (process lists' cost; default 0)"
    )
    args = parser.parse_args()
    if os.geteuid() != 0:
        print("scale.py attaches loop devices and mounts a tmpfs: run it as root", file=sys.stderr)
        return 2
    if args.devices < 0 or not 0 <= args.busy <= args.devices:
        print("--devices must be ≥ 0 and --busy between 0 and --devices", file=sys.stderr)
        return 2
    missing = [name for name in ("tmux", "losetup", "fio") if shutil.which(name) is None]
    if missing:
        print(f"needed and not found: {', '.join(missing)}", file=sys.stderr)
        return 2
    specs = tool_specs(args.tools.split(","), args.python, find_glances(args.glances), args.before)

    def measured(farm: LoopFarm) -> int:
        farm.attach(args.devices)
        farm.start_fio(args.busy)
        farm.start_sleepers(args.sleepers)
        for line in machine_lines():
            print(line)
        print(f"devices   {block_device_count()} in /sys/block ({args.devices} loops attached here, {args.busy} busy)")
        print(
            f"processes {sum(1 for e in os.listdir('/proc') if e.isdigit())} in /proc "
            f"({args.sleepers} sleepers started here)"
        )
        for spec in specs:
            print(f"tool      {spec.name}: {' '.join(spec.argv)}")
        prewarm(args.python)
        results = []
        with tempfile.TemporaryDirectory(prefix="raidtop-scale-tmux-") as tmp:
            for spec in specs:
                results.append(measure(spec, args.seconds, args.warmup, Path(tmp)))
                print(f"  {spec.name}: {results[-1]}", file=sys.stderr)
        print()
        print_table(results, args.warmup)
        print(f"load at end {Path('/proc/loadavg').read_text().strip()}")
        if args.hold > 0:
            print(f"holding the devices for {args.hold:g} s", file=sys.stderr)
            time.sleep(args.hold)
        return 0

    return with_loop_farm(measured, "scale benchmark")


if __name__ == "__main__":
    sys.exit(main())
