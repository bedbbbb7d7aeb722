"""Real-kernel sync recordings for the ETA benchmark (perf/eta_accuracy.py), run inside the VM.

``python -m tests.realmd.guest_eta [RUN...]`` records each run at raidtop's
default 1 s interval: the kernel files raidtop's Sampler read at each tick
(guest_driver's Scenario.observe), from the start of the sync to a few ticks
after it ends. Runs: a constant limit (raid1 resync, raid5 recovery), the
limit raised at half way, lowered at 42 %, a recovery under fio load, and a
check held at ``sync_max`` for 80 s (a real stall, for issue 23's STALLED).
Each writes ``eta_<run>.json`` in guest_driver's result format plus the
limit changes in ``facts``; the host turns them into traces.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import traceback
from pathlib import Path
from collections.abc import Callable

from tests.realmd.guest_driver import Scenario, start_fio, sysfs, whole_and_idle

INTERVAL_S = 1.0
AFTER_TICKS = 3
DISK_MIB = 48


def progress(md: str) -> float:
    """sync_completed as a fraction (0 when idle or unknown)."""
    text = sysfs(md, "sync_completed")
    if "/" not in text:
        return 0.0
    done, total = (int(x) for x in text.split("/"))
    return done / total if total else 0.0


def record(s: Scenario, md: str, when: Callable[[float], None] | None = None, timeout: float = 240) -> None:
    """Observe every INTERVAL_S until the sync is over (plus AFTER_TICKS); ``when(fraction)`` may act."""
    started = time.monotonic()
    tick, over = 0, None
    while True:
        time.sleep(max(0.0, started + tick * INTERVAL_S - time.monotonic()))
        if when is not None:
            when(progress(md))
        s.observe("sync")
        if over is None and whole_and_idle(md):
            over = tick
            s.timings["sync_s"] = round(time.monotonic() - started, 2)
        if over is not None and tick >= over + AFTER_TICKS:
            return
        if time.monotonic() - started > timeout:
            raise RuntimeError(f"{md}: sync not over after {timeout} s")
        tick += 1


def limit_change(s: Scenario, path: str, value: int, at: float) -> Callable[[float], None]:
    """A ``when`` that writes ``value`` to ``path`` once progress passes ``at``."""

    def act(fraction: float) -> None:
        if "limit_change" not in s.facts and fraction >= at:
            s.write(path, str(value))
            s.facts["limit_change"] = {
                "path": path,
                "value": value,
                "at_fraction": round(fraction, 4),
                "t": s.now(),
                "wall": time.time(),
            }

    return act


def constant_raid1(s: Scenario) -> None:
    """raid1 creation resync at a constant 1000 KiB/s."""
    disks = s.disks.make(2, DISK_MIB)
    s.speed_limits(1000, 1000)
    s.create("md40", 1, disks)
    record(s, "md40")


def constant_raid5_recover(s: Scenario) -> None:
    """raid5 recovery onto a fresh disk at a constant 2000 KiB/s."""
    disks = s.disks.make(4, DISK_MIB)
    s.speed_limits(1000, 200000)
    s.create("md41", 5, disks[:3])
    while not whole_and_idle("md41"):
        time.sleep(0.2)
    s.mdadm("/dev/md41", "--fail", disks[1])
    s.mdadm("/dev/md41", "--remove", disks[1])
    s.speed_limits(1000, 2000)
    s.mdadm("/dev/md41", "--add", disks[3])
    record(s, "md41")


def raised_burst(s: Scenario) -> None:
    """The issue's case: raid1 resync at 1000 KiB/s, the global maximum raised to 3000 at half way.

    md's window then allows ~60 MiB at once: the rest goes at the disks' speed.
    """
    disks = s.disks.make(2, DISK_MIB)
    s.speed_limits(1000, 1000)
    s.create("md42", 1, disks)
    record(s, "md42", limit_change(s, "/proc/sys/dev/raid/speed_limit_max", 3000, 0.5))


def raised(s: Scenario) -> None:
    """raid1 resync of 96 MiB at 1000 KiB/s, raised to 2000 at 40 %: a ~30 MiB burst, then 2000."""
    disks = s.disks.make(2, 96)
    s.speed_limits(1000, 1000)
    s.create("md45", 1, disks)
    record(s, "md45", limit_change(s, "/proc/sys/dev/raid/speed_limit_max", 2000, 0.4))


def lowered_early(s: Scenario) -> None:
    """raid1 resync at 3000 KiB/s; the array's own maximum lowered to 1000 at 42 % (7 s in)."""
    disks = s.disks.make(2, DISK_MIB)
    s.speed_limits(1000, 3000)
    s.create("md43", 1, disks)
    record(s, "md43", limit_change(s, "/sys/block/md43/md/sync_speed_max", 1000, 0.42))


def lowered(s: Scenario) -> None:
    """The issue's case: 128 MiB at 3000 KiB/s for a full window (70 %), then 1000: md stalls ~20 s."""
    disks = s.disks.make(2, 128)
    s.speed_limits(1000, 3000)
    s.create("md46", 1, disks)
    record(s, "md46", limit_change(s, "/sys/block/md46/md/sync_speed_max", 1000, 0.7))


def fio_load(s: Scenario) -> None:
    """raid5 recovery between min 1000 and max 4000 KiB/s while fio reads and writes the array."""
    disks = s.disks.make(4, DISK_MIB)
    s.speed_limits(1000, 200000)
    s.create("md44", 5, disks[:3])
    while not whole_and_idle("md44"):
        time.sleep(0.2)
    s.mdadm("/dev/md44", "--fail", disks[1])
    s.mdadm("/dev/md44", "--remove", disks[1])
    fio = start_fio("/dev/md44")
    s.facts["fio"] = fio is not None
    try:
        time.sleep(3.0)
        s.speed_limits(1000, 4000)
        s.mdadm("/dev/md44", "--add", disks[3])
        record(s, "md44")
    finally:
        if fio is not None:
            fio.terminate()
            fio.wait()


STALL_HOLD_S = 80.0
"""How long the stalled run keeps md waiting: past raidtop's 60 s STALLED threshold."""


def stalled(s: Scenario) -> None:
    """A check held at ``sync_max`` half way for 80 s, then released: a real stall.

    md waits at ``sync_max`` with the sync still running, its position frozen
    in mdstat and sysfs, exactly as a reshape stays when the ``mdadm --grow``
    that advances ``sync_max`` has died, or as a sync whose member hangs
    looks from the files raidtop reads. (The VM has no device-mapper to
    suspend a member; this is the kernel's own way of not moving.)
    """
    disks = s.disks.make(2, DISK_MIB)
    s.speed_limits(1000, 4000)
    s.create("md47", 1, disks)
    while not whole_and_idle("md47"):
        time.sleep(0.2)
    half = DISK_MIB * 1024  # sectors: half of the 48 MiB members
    s.write("/sys/block/md47/md/sync_max", str(half))
    s.write("/sys/block/md47/md/sync_action", "check")
    started = time.monotonic()
    tick, held_since, released, over = 0, None, False, None
    while True:
        time.sleep(max(0.0, started + tick * INTERVAL_S - time.monotonic()))
        s.observe("sync")
        position = sysfs("md47", "sync_completed")
        done = int(position.split("/")[0]) if "/" in position else 0
        if held_since is None and done >= half * 0.98:
            held_since = time.monotonic()
            s.facts["held_at"] = {"t": s.now(), "wall": time.time(), "sectors": half}
        if not released and held_since is not None and time.monotonic() - held_since >= STALL_HOLD_S:
            s.write("/sys/block/md47/md/sync_max", "max")
            s.facts["released"] = {"t": s.now(), "wall": time.time()}
            released = True
        if released and over is None and whole_and_idle("md47"):
            over = tick
        if over is not None and tick >= over + AFTER_TICKS:
            return
        if time.monotonic() - started > 240:
            raise RuntimeError(f"md47: check not over after 240 s (position {position})")
        tick += 1


RUNS: dict[str, Callable[[Scenario], None]] = {
    "constant_raid1": constant_raid1,
    "constant_raid5_recover": constant_raid5_recover,
    "raised_burst": raised_burst,
    "raised": raised,
    "lowered_early": lowered_early,
    "lowered": lowered,
    "fio_load": fio_load,
    "stalled": stalled,
}


def main(argv: list[str] | None = None) -> int:
    """Record the named runs (default: all)."""
    names = (sys.argv[1:] if argv is None else argv) or list(RUNS)
    results = Path(os.environ["RESULTS"])
    for name in names:
        s = Scenario(f"eta_{name}")
        error = None
        try:
            RUNS[name](s)
        except Exception:  # noqa: BLE001 - any failure is the run's result, reported to the host
            error = traceback.format_exc()
            print(f"eta run {name} failed:\n{error}", file=sys.stderr)
        finally:
            for path in sorted(Path("/sys/block").glob("md*")):
                subprocess.run(["/usr/local/sbin/mdadm", "--stop", f"/dev/{path.name}"], capture_output=True)
            s.disks.release()
            Path("/proc/sys/dev/raid/speed_limit_min").write_text("1000\n")
            Path("/proc/sys/dev/raid/speed_limit_max").write_text("200000\n")
        (results / f"eta_{name}.json").write_text(json.dumps(s.result(error), separators=(",", ":")))
        print(f"eta run {name}: {'FAILED' if error else 'ok'} in {s.now():.1f}s", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
