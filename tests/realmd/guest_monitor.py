"""raidtop's md events beside ``mdadm --monitor``, run inside the realmd VM (issue 13).

``python -m tests.realmd.guest_monitor [SCENARIO...]`` starts one
``mdadm --monitor --scan --delay=1 --program=...`` for the whole run (its
program appends each alert with the time it ran), then drives each scenario
while raidtop's own Sampler ticks every :data:`TICK_S`. Every tick keeps the
kernel files raidtop read plus the rest of the md tree (a settled step in
guest_driver's terms), so the host can replay the ticks through newer code.
Each scenario writes ``monitor_<name>.json``: the guest_driver result plus
``mdadm_events`` (only those about the scenario's own array, inside its
time window).

A raid1 "anchor" array stays up for the whole run: mdadm 4.2's monitor
stops by itself when no array with redundancy is left to watch.
"""

from __future__ import annotations

import json
import mmap
import os
import subprocess
import sys
import time
import traceback
from pathlib import Path
from collections.abc import Callable

from tests.realmd.guest_driver import MDADM, Scenario, member_state, sync_idle, whole_and_idle

TICK_S = 0.5
#: Seconds mdadm (1 s polls) gets after a scenario's last action to catch up.
MONITOR_GRACE_S = 2.6
PROGRAM = Path("/tmp/mdmon-program.sh")
EVENTS = Path("/tmp/mdmon-events.txt")
ANCHOR = "md99"


def ticks(s: Scenario, label: str, seconds: float) -> None:
    """Observe every TICK_S for ``seconds``."""
    end = time.monotonic() + seconds
    while True:
        s.observe(label, settled=True)
        if time.monotonic() >= end:
            return
        time.sleep(TICK_S)


def watch_until(s: Scenario, label: str, done: Callable[[], bool], timeout: float = 60.0) -> None:
    """Observe every TICK_S until ``done()`` (read from the kernel directly)."""
    end = time.monotonic() + timeout
    while True:
        s.observe(label, settled=True)
        if done():
            return
        if time.monotonic() > end:
            raise RuntimeError(f"{label}: not done after {timeout:.0f}s: {Path('/proc/mdstat').read_text()}")
        time.sleep(TICK_S)


def stop(s: Scenario) -> None:
    """raid1 stopped: DeviceDisappeared only; ticks while mdadm --stop runs may catch it mid-stop."""
    a, b = s.disks.make(2, 8)
    s.speed_limits(1000, 200000)
    s.create("md30", 1, [a, b])
    watch_until(s, "resync", lambda: whole_and_idle("md30"))
    ticks(s, "running", 1.5)
    started = s.now()
    stopper = subprocess.Popen(
        [MDADM, "--stop", "/dev/md30"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    while stopper.poll() is None:
        s.observe("stopping", settled=True)  # as fast as sampling goes
    s.commands.append(
        {
            "argv": [MDADM, "--stop", "/dev/md30"],
            "rc": stopper.returncode,
            "stdout": stopper.stdout.read()[-2000:],
            "stderr": "",
            "t": started,
            "s": s.now() - started,
        }
    )
    # mdadm's monitor reopens /dev/md30 on its next poll: the name comes back as an empty `clear` array.
    ticks(s, "stopped", MONITOR_GRACE_S)
    s.facts["devices"] = {"members": [a, b]}


def replace(s: Scenario) -> None:
    """raid5 --replace: RebuildFinished, the replaced disk's Fail (expected), SpareActive."""
    a, b, c, new = s.disks.make(4, 16)
    s.speed_limits(1000, 200000)
    s.create("md31", 5, [a, b, c])
    watch_until(s, "create", lambda: whole_and_idle("md31"))
    s.mdadm("/dev/md31", "--add", new)
    ticks(s, "spare-added", 1.5)
    s.write("/sys/block/md31/md/sync_speed_max", "4000")  # ~4 s of replacement
    s.mdadm("/dev/md31", "--replace", a, "--with", new)
    new_name = new.removeprefix("/dev/")
    watch_until(s, "replace", lambda: member_state("md31", new_name) == "in_sync" and sync_idle("md31"))
    ticks(s, "replaced", MONITOR_GRACE_S)
    s.facts["devices"] = {"replaced": a, "new": new}


def raid10_broken(s: Scenario) -> None:
    """raid10 near=2 of 4 loses both halves of one mirror: degraded, then broken."""
    disks = s.disks.make(4, 8)
    s.speed_limits(1000, 200000)
    s.create("md32", 10, disks)
    watch_until(s, "create", lambda: whole_and_idle("md32"))
    ticks(s, "clean", 1.5)
    s.mdadm("/dev/md32", "--fail", disks[0])
    ticks(s, "degraded", 2.5)
    last = s.mdadm("/dev/md32", "--fail", disks[1], expect_ok=False)
    s.facts["second_fail_rc"] = last.returncode
    ticks(s, "broken", 1.0)
    s.facts["write_after_broken"] = try_write("/dev/md32")
    ticks(s, "after-write", MONITOR_GRACE_S)
    s.facts["devices"] = {"failed": disks[:2]}


def raid0_broken(s: Scenario) -> None:
    """raid0 told a member failed: md marks the whole array broken."""
    a, b = s.disks.make(2, 8)
    s.create("md33", 0, [a, b])
    ticks(s, "running", 1.5)
    last = s.mdadm("/dev/md33", "--fail", b, expect_ok=False)
    s.facts["fail_rc"] = last.returncode
    s.facts["fail_stderr"] = last.stderr.strip()
    ticks(s, "broken", 1.0)
    s.facts["write_after_broken"] = try_write("/dev/md33")
    ticks(s, "after-write", MONITOR_GRACE_S)


def readonly_pending(s: Scenario) -> None:
    """A resync interrupted by ``mdadm --readonly``: mdstat's ``(read-only) resync=PENDING``."""
    a, b = s.disks.make(2, 16)
    s.write("/proc/sys/dev/raid/speed_limit_max", "500")
    s.create("md34", 1, [a, b])
    ticks(s, "resync", 2.0)
    s.mdadm("--readonly", "/dev/md34")
    ticks(s, "readonly", 2.5)
    s.facts["mdstat_readonly"] = Path("/proc/mdstat").read_text()
    s.speed_limits(1000, 200000)
    s.mdadm("--readwrite", "/dev/md34")
    watch_until(s, "resync-again", lambda: whole_and_idle("md34"))
    ticks(s, "clean", MONITOR_GRACE_S)


def check_milestones(s: Scenario) -> None:
    """A check of a clean raid1 at 2000 KiB/s (16 s): does mdadm send Rebuild milestones for it? (issue 23)."""
    a, b = s.disks.make(2, 32)
    s.create("md35", 1, [a, b])
    watch_until(s, "create", lambda: whole_and_idle("md35"))
    s.speed_limits(1000, 2000)
    s.write("/sys/block/md35/md/sync_action", "check")
    watch_until(s, "check", lambda: sync_idle("md35"), timeout=90.0)
    ticks(s, "checked", MONITOR_GRACE_S)


def try_write(device: str) -> str:
    """Write 4 KiB straight to ``device``; returns "ok" or the error's name."""
    try:
        fd = os.open(device, os.O_WRONLY | os.O_DIRECT)
    except OSError as error:
        return f"open: {error.strerror}"
    try:
        buffer = mmap.mmap(-1, 4096)  # page-aligned, as O_DIRECT wants
        os.pwrite(fd, buffer, 1 << 20)
        os.fsync(fd)
        return "ok"
    except OSError as error:
        return error.strerror or str(error)
    finally:
        os.close(fd)


SCENARIOS: dict[str, tuple[str, Callable[[Scenario], None]]] = {
    "stop": ("md30", stop),
    "replace": ("md31", replace),
    "raid10_broken": ("md32", raid10_broken),
    "raid0_broken": ("md33", raid0_broken),
    "readonly_pending": ("md34", readonly_pending),
    "check_milestones": ("md35", check_milestones),
}


def start_monitor() -> subprocess.Popen[bytes]:
    """mdadm --monitor for every array in /proc/mdstat, alerts to EVENTS with the time."""
    EVENTS.unlink(missing_ok=True)
    PROGRAM.write_text(f'#!/bin/bash\necho "$EPOCHREALTIME $1 $2 $3" >> {EVENTS}\n')
    PROGRAM.chmod(0o755)
    return subprocess.Popen(
        [MDADM, "--monitor", "--scan", "--delay=1", "--no-sharing", f"--program={PROGRAM}"],
        stdout=open("/tmp/mdmon.log", "w"),
        stderr=subprocess.STDOUT,
    )


def monitor_events(md: str, start_wall: float, end_wall: float) -> list[dict]:
    """mdadm's alerts about ``md`` between two wall times, oldest first."""
    out = []
    text = EVENTS.read_text() if EVENTS.exists() else ""
    for line in text.splitlines():
        parts = line.split()
        if len(parts) < 3:
            continue
        when, event, device = float(parts[0]), parts[1], parts[2]
        member = parts[3].rsplit("/", 1)[-1] if len(parts) > 3 else None
        if device.rsplit("/", 1)[-1] == md and start_wall <= when <= end_wall:
            out.append({"wall": when, "event": event, "array": md, "member": member})
    return out


def run_one(name: str, results: Path) -> None:
    """One scenario; its own arrays stopped afterwards, the anchor kept."""
    md, body = SCENARIOS[name]
    scenario = Scenario(f"monitor_{name}")
    start_wall = time.time()
    scenario.observe("baseline", settled=True)
    error = None
    try:
        body(scenario)
    except Exception:  # noqa: BLE001 - any failure is the scenario's result, reported to the host
        error = traceback.format_exc()
        print(f"monitor scenario {name} failed:\n{error}", file=sys.stderr)
    end_wall = time.time()
    subprocess.run([MDADM, "--stop", f"/dev/{md}"], capture_output=True)
    scenario.disks.release()
    Path("/proc/sys/dev/raid/speed_limit_min").write_text("1000\n")
    Path("/proc/sys/dev/raid/speed_limit_max").write_text("200000\n")
    result = scenario.result(error)
    result["array"] = md
    result["mdadm_events"] = monitor_events(md, start_wall, end_wall)
    (results / f"monitor_{name}.json").write_text(json.dumps(result, separators=(",", ":")))
    print(f"monitor scenario {name}: {'FAILED' if error else 'ok'} in {result['wall_s']:.1f}s", flush=True)


def main(argv: list[str] | None = None) -> int:
    """Start the anchor array and the monitor, run the scenarios, stop the monitor."""
    names = (sys.argv[1:] if argv is None else argv) or list(SCENARIOS)
    results = Path(os.environ["RESULTS"])
    mdadm_version = subprocess.run([MDADM, "--version"], capture_output=True, text=True)
    meta = {
        "kernel": os.uname().release,
        "mdadm": (mdadm_version.stderr or mdadm_version.stdout).strip(),
        "scenarios": names,
    }
    (results / "monitor_meta.json").write_text(json.dumps(meta))
    anchor = Scenario("anchor")
    anchor_disks = anchor.disks.make(2, 4)
    anchor.create(ANCHOR, 1, anchor_disks)
    monitor = start_monitor()
    time.sleep(1.5)
    try:
        for name in names:
            run_one(name, results)
    finally:
        monitor.terminate()
        monitor.wait()
        (results / "mdmon.log").write_text(Path("/tmp/mdmon.log").read_text(errors="replace")[-4000:])
        (results / "mdmon-events.txt").write_text(EVENTS.read_text() if EVENTS.exists() else "")
        subprocess.run([MDADM, "--stop", f"/dev/{ANCHOR}"], capture_output=True)
        anchor.disks.release()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
