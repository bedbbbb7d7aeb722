"""The real-md scenarios, run inside the realmd VM by one Python process.

``python -m tests.realmd.guest_driver [SCENARIO...]`` (in the guest, as
root, cwd = the project) runs each scenario in turn: it drives mdadm and md's
sysfs files, and after each step samples raidtop's own ``Sampler`` on the
live root. The sampler reads through a ``RecordingRoot``, so every step
keeps, byte for byte, the kernel files raidtop parsed at that moment next to
what raidtop reported; the host tests compare the two. Each scenario writes
one JSON file into ``$RESULTS`` (one write each: many small writes onto the
9p share are slow). A scenario that fails records its traceback and the
next one still runs on a clean slate.

Speeds are set per step on purpose: a 16 MiB sync runs in about a second at
the default limits, too fast to watch, so the phases that assert progress
lower ``speed_limit_max`` (or the array's ``sync_speed_max``) until they
last a few seconds. Each limit is recorded with the step it applies to.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import traceback
from pathlib import Path
from typing import Any
from collections.abc import Callable

from raidtop.output.md_json import array_to_json
from raidtop.collect.recording.roots import RecordingRoot, RecordingWriter
from raidtop.collect.sampler import Sampler
from raidtop.collect.source import Root
from raidtop.output.snapshot_json import snapshot_json
from tests.realmd import trace

MDADM = "/usr/local/sbin/mdadm"
DISK_DIR = Path("/tmp/realmd-disks")
SPEED_LIMIT_MIN = Path("/proc/sys/dev/raid/speed_limit_min")
SPEED_LIMIT_MAX = Path("/proc/sys/dev/raid/speed_limit_max")
#: md's own defaults, restored between scenarios.
DEFAULT_SPEED_LIMITS = (1000, 200000)
#: Seconds between samples while a sync runs (a sample itself takes 0.05-0.3 s here).
WATCH_INTERVAL = 0.2
#: How the rebuild recording for the demo is paced (raidtop record's default).
RECORD_INTERVAL = 1.0
UI_ARRAY = "md6"
UI_GO_FILE = Path("/tmp/realmd-ui-go")
UI_READY_FILE = Path("/tmp/realmd-ui-ready")
UI_STOP_FILE = Path("/tmp/realmd-ui-stop")
UI_LOG = Path("/tmp/guest-ui.log")
#: How long the UI may still take after the recording ends (it shoots at once then).
UI_GRACE_S = 30.0
FIO_WARMUP_S = 3.0
#: The rebuild recording: 48 MiB members rebuilt at 1000 KiB/s (~47 s), with
#: the lab's steps at these ticks and a few whole ticks at each end, ~60 s in all.
REBUILD_DISK_MIB = 48
REBUILD_SPEED = 1000
FAIL_TICK, REMOVE_TICK, ADD_TICK = 4, 7, 10
#: Ticks the add may wait for the UI to show its first sample.
UI_READY_WAIT_TICKS = 40
CLEAN_TICKS = 4

_ui_process: subprocess.Popen[bytes] | None = None


class ScenarioError(Exception):
    """A step did not do what the scenario needs to go on."""


def sysfs(md: str, attribute: str) -> str:
    """One attribute of /sys/block/<md>/md, stripped; "" when it cannot be read."""
    try:
        return Path(f"/sys/block/{md}/md/{attribute}").read_text().strip()
    except OSError:
        return ""


def sync_idle(md: str) -> bool:
    """No sync running or waiting to start (as guest_lib.sh's md_wait_idle)."""
    return sysfs(md, "sync_action") == "idle" and sysfs(md, "sync_completed") == "none"


def whole_and_idle(md: str) -> bool:
    """Every slot in sync and nothing left to do."""
    return sysfs(md, "degraded") == "0" and sync_idle(md)


def member_state(md: str, member: str) -> str:
    """``dev-<member>/state`` of one member, "" when it is not (or no longer) a member."""
    return sysfs(md, f"dev-{member}/state")


def _md_key(key: str) -> bool:
    """Recording keys that belong to md: what the trace and the comparisons need."""
    path = key[2:]
    return (
        path == "/proc/mdstat"
        or path.startswith("/proc/sys/dev/raid/")
        or path.startswith("/sys/block/md")
        or path == "/sys/block"
        or path.startswith("/sys/module/md_mod")
    )


def md_frame(frame: dict[str, Any]) -> dict[str, Any]:
    """The md part of a recorded frame; the /sys/block listing keeps only md devices."""
    kept = {key: value for key, value in frame.items() if _md_key(key)}
    listing = kept.get("d:/sys/block")
    if isinstance(listing, list):
        kept["d:/sys/block"] = [name for name in listing if name.startswith("md")]
    return kept


def _listed(path: str, listings: dict[str, set[str]]) -> bool:
    """True unless a directory raidtop listed on the way to ``path`` did not hold it."""
    parent, _, leaf = path.rpartition("/")
    while parent:
        entries = listings.get(parent)
        if entries is not None and leaf not in entries:
            return False
        parent, _, leaf = parent.rpartition("/")
    return True


class Disks:
    """Sparse loop disks in the guest's tmpfs, detached and deleted at cleanup."""

    def __init__(self) -> None:
        self.attached: list[tuple[str, Path]] = []

    def make(self, count: int, size_mib: int) -> list[str]:
        """Attach ``count`` fresh disks of ``size_mib``; returns their /dev paths."""
        DISK_DIR.mkdir(parents=True, exist_ok=True)
        devices = []
        for _ in range(count):
            image = DISK_DIR / f"disk-{len(self.attached) + 1:02d}-{os.getpid()}-{time.monotonic_ns()}.img"
            with open(image, "wb") as handle:
                handle.truncate(size_mib << 20)
            device = subprocess.run(
                ["losetup", "--find", "--show", str(image)], capture_output=True, text=True, check=True
            ).stdout.strip()
            self.attached.append((device, image))
            devices.append(device)
        return devices

    def release(self) -> None:
        """Detach every disk and free its memory."""
        for device, image in self.attached:
            subprocess.run(["losetup", "-d", device], capture_output=True)
            image.unlink(missing_ok=True)
        self.attached = []


class Scenario:
    """One scenario's steps: commands run, raidtop's reports, the kernel's files."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.started = time.monotonic()
        self.root = RecordingRoot(Root("/"))
        self.sampler = Sampler(self.root)
        self.disks = Disks()
        self.steps: list[dict[str, Any]] = []
        self.commands: list[dict[str, Any]] = []
        self.timings: dict[str, float] = {}
        self.facts: dict[str, Any] = {}
        self._pending_commands: list[int] = []

    def now(self) -> float:
        """Seconds since the scenario started."""
        return round(time.monotonic() - self.started, 3)

    # ------------------------------------------------------------ actions

    def run(self, *argv: str, expect_ok: bool = True, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        """Run a command and log it; ``expect_ok`` raises ScenarioError on a non-zero exit."""
        started = self.now()
        completed = subprocess.run(argv, capture_output=True, text=True, input=stdin)
        self.commands.append(
            {
                "argv": list(argv),
                "rc": completed.returncode,
                "stdout": completed.stdout[-2000:],
                "stderr": completed.stderr[-2000:],
                "t": started,
                "s": round(self.now() - started, 3),
            }
        )
        self._pending_commands.append(len(self.commands) - 1)
        if expect_ok and completed.returncode != 0:
            raise ScenarioError(f"{' '.join(argv)} exited {completed.returncode}: {completed.stderr.strip()}")
        return completed

    def mdadm(self, *args: str, expect_ok: bool = True) -> subprocess.CompletedProcess[str]:
        """mdadm with ``args``; "y" on stdin in case --create still asks."""
        return self.run(MDADM, *args, expect_ok=expect_ok, stdin="y\n" * 8)

    def create(self, md: str, level: int, devices: list[str], spares: tuple[str, ...] = ()) -> None:
        """mdadm --create /dev/<md> --run: ``devices`` in slot order, then ``spares``."""
        spare_option = (f"--spare-devices={len(spares)}",) if spares else ()
        self.mdadm(
            "--create",
            f"/dev/{md}",
            "--run",
            f"--level={level}",
            f"--raid-devices={len(devices)}",
            *spare_option,
            *devices,
            *spares,
        )

    def write(self, path: str | Path, value: str) -> None:
        """Write a sysfs/procfs attribute, logged like a command."""
        started = self.now()
        Path(path).write_text(f"{value}\n")
        self.commands.append(
            {
                "argv": ["write", str(path), value],
                "rc": 0,
                "stdout": "",
                "stderr": "",
                "t": started,
                "s": round(self.now() - started, 3),
            }
        )
        self._pending_commands.append(len(self.commands) - 1)

    def speed_limits(self, low: int, high: int) -> None:
        """Set md's global sync speed limits (KiB/s per device)."""
        self.write(SPEED_LIMIT_MIN, str(low))
        self.write(SPEED_LIMIT_MAX, str(high))

    # ------------------------------------------------------------ observing

    def observe(self, label: str, settled: bool = False, full_json: bool = False) -> dict[str, Any]:
        """Sample raidtop now and keep its report with the kernel files it read.

        ``settled`` steps also keep the rest of the md tree (trace.capture,
        a moment later) for files raidtop does not read, limited to the
        directories raidtop listed so the step stays one consistent state.
        ``full_json`` also renders the whole ``raidtop snapshot --json``
        document, to prove it does not fail on this state.
        """
        snap = self.sampler.sample()
        frame = md_frame(self.root.take_frame())
        step: dict[str, Any] = {
            "label": label,
            "t": self.now(),
            "sampled_at": snap.time,
            "kernel": frame,
            "commands": self._pending_commands,
            "reported": {
                "arrays": [array_to_json(a) for a in snap.arrays],
                "events": [
                    {"array": e.array, "event": e.event, "member": e.member, "detail": e.detail} for e in snap.events
                ],
                "alerts": sorted(snap.degraded_alerts),
                "notes": [n for n in snap.notes if n.startswith("md")],
            },
        }
        self._pending_commands = []
        if settled:
            step["extra"] = self._rest_of_tree(frame, label)
        if full_json:
            step["snapshot_json_bytes"] = len(json.dumps(snapshot_json(snap)))
        self.steps.append(step)
        return step

    def _rest_of_tree(self, frame: dict[str, Any], label: str) -> dict[str, dict[str, str]]:
        listings = {
            key[2:]: set(value) for key, value in frame.items() if key.startswith("d:") and isinstance(value, list)
        }
        captured = trace.capture(label)
        files = {
            path: text
            for path, text in captured["files"].items()
            if f"f:{path}" not in frame and _listed(path, listings)
        }
        links = {
            path: target
            for path, target in captured["links"].items()
            if f"l:{path}" not in frame and _listed(path, listings)
        }
        return {"files": files, "links": links}

    def watch(
        self, md: str, label: str, done: Callable[[], bool], timeout: float = 120.0, interval: float = WATCH_INTERVAL
    ) -> float:
        """Observe every ``interval`` until ``done()``; returns the seconds it took.

        ``done`` reads the kernel directly (not raidtop), so raidtop cannot
        end its own test early. One settled step follows.
        """
        started = time.monotonic()
        while True:
            self.observe(label)
            if done():
                break
            if time.monotonic() - started > timeout:
                raise ScenarioError(f"{md}: {label} not done after {timeout:.0f}s: {Path('/proc/mdstat').read_text()}")
            time.sleep(interval)
        elapsed = time.monotonic() - started
        self.observe(f"{label}-done", settled=True)
        return round(elapsed, 2)

    # ------------------------------------------------------------ results

    def result(self, error: str | None) -> dict[str, Any]:
        """Everything the host tests need, as one JSON-able dict."""
        return {
            "scenario": self.name,
            "error": error,
            "wall_s": self.now(),
            "timings": self.timings,
            "facts": self.facts,
            "commands": self.commands,
            "steps": self.steps,
        }


def stop_all_arrays(scenario: Scenario | None = None) -> None:
    """Stop every md array (a scenario leaves none behind for the next)."""
    for path in sorted(Path("/sys/block").glob("md*")):
        argv = [MDADM, "--stop", f"/dev/{path.name}"]
        if scenario is not None:
            scenario.run(*argv, expect_ok=False)
        else:
            subprocess.run(argv, capture_output=True)


# ---------------------------------------------------------------- scenarios


def raid1_cycle(s: Scenario) -> None:
    """raid1 on two 16 MiB disks: resync, fail, remove, add, recovery, clean."""
    a, b, fresh, fresh_fast = s.disks.make(4, 16)
    s.observe("baseline")
    # At the 16000 KiB/s a 16 MiB resync ends in ~1 s; 4000 gives ~4 s of progress to watch.
    s.speed_limits(1000, 4000)
    s.create("md0", 1, [a, b])
    s.timings["resync_s_at_4000"] = s.watch("md0", "resync", lambda: whole_and_idle("md0"))
    s.speed_limits(1000, 16000)

    s.mdadm("/dev/md0", "--fail", b)
    s.observe("failed", settled=True)
    s.mdadm("/dev/md0", "--remove", b)
    s.observe("removed", settled=True)
    # raidtop's smoothed ETA needs 10 s of progress: at 900 KiB/s the
    # 16 MiB recovery lasts ~17 s (at 16000 it would be over in ~1 s).
    s.write("/sys/block/md0/md/sync_speed_max", "900")
    s.mdadm("/dev/md0", "--add", fresh)
    s.timings["recovery_s_at_900"] = s.watch("md0", "recover", lambda: whole_and_idle("md0"))
    # array_state turns clean once md's safemode timer (200 ms) passes after the last write.
    s.watch("md0", "finished", lambda: sysfs("md0", "array_state") == "clean", timeout=10)

    # The same rebuild at the 16000 KiB/s, for its wall time only.
    s.write("/sys/block/md0/md/sync_speed_max", "system")
    s.mdadm("/dev/md0", "--fail", fresh)
    s.mdadm("/dev/md0", "--remove", fresh)
    s.observe("fast-removed")
    s.mdadm("/dev/md0", "--add", fresh_fast)
    s.timings["recovery_s_at_16000"] = s.watch("md0", "fast-recover", lambda: whole_and_idle("md0"))
    s.facts["devices"] = {"a": a, "b": b, "fresh": fresh, "fresh_fast": fresh_fast}


def raid5_spare(s: Scenario) -> None:
    """raid5 on 3 disks + a spare: creation recovers, the spare takes over, then it breaks."""
    a, b, c, spare = s.disks.make(4, 16)
    s.observe("baseline")
    s.speed_limits(1000, 4000)  # ~4 s per 16 MiB recovery: several samples each
    s.create("md1", 5, [a, b, c], spares=(spare,))
    s.timings["create_recover_s_at_4000"] = s.watch("md1", "create", lambda: whole_and_idle("md1"))

    s.mdadm("/dev/md1", "--fail", b)
    s.timings["spare_recover_s_at_4000"] = s.watch(
        "md1",
        "spare-takes-over",
        lambda: whole_and_idle("md1") and member_state("md1", spare.removeprefix("/dev/")) == "in_sync",
    )
    # With the spare used up, the next failure only degrades the array...
    s.mdadm("/dev/md1", "--fail", a)
    for index in range(5):
        s.observe("second-failure", settled=index in (0, 4), full_json=True)
        time.sleep(0.3)
    # ...and the one after is more than raid5 survives: mdadm gets EBUSY,
    # but the kernel has already marked the disk faulty.
    broken = s.mdadm("/dev/md1", "--fail", c, expect_ok=False)
    s.facts["third_fail_rc"] = broken.returncode
    s.facts["third_fail_stderr"] = broken.stderr.strip()
    for index in range(8):
        s.observe("third-failure", settled=index in (0, 7), full_json=True)
        time.sleep(0.3)
    s.facts["devices"] = {"a": a, "b": b, "c": c, "spare": spare}


def raid6_double(s: Scenario) -> None:
    """raid6 on 4 disks loses two and keeps serving reads and writes."""
    disks = s.disks.make(4, 16)
    s.observe("baseline")
    s.speed_limits(1000, 200000)
    s.create("md2", 6, disks)
    s.timings["create_resync_s"] = s.watch("md2", "create", lambda: whole_and_idle("md2"))
    s.mdadm("/dev/md2", "--fail", disks[0])
    s.observe("first-failure", settled=True)
    s.mdadm("/dev/md2", "--fail", disks[1])
    s.observe("second-failure", settled=True)
    s.facts["io_after_double_failure"] = write_and_read_back("/dev/md2")
    s.observe("after-io", settled=True)
    s.facts["devices"] = {"failed": disks[:2], "working": disks[2:]}


def raid10_fail_add(s: Scenario) -> None:
    """raid10 (near=2) on 4 disks: fail, remove, add, recovery, clean."""
    disks = s.disks.make(5, 16)
    s.observe("baseline")
    s.speed_limits(1000, 200000)
    s.create("md3", 10, disks[:4])
    s.timings["create_resync_s"] = s.watch("md3", "create", lambda: whole_and_idle("md3"))
    s.speed_limits(1000, 4000)
    s.mdadm("/dev/md3", "--fail", disks[1])
    s.observe("failed", settled=True)
    s.mdadm("/dev/md3", "--remove", disks[1])
    s.observe("removed", settled=True)
    s.mdadm("/dev/md3", "--add", disks[4])
    s.timings["recovery_s_at_4000"] = s.watch("md3", "recover", lambda: whole_and_idle("md3"))
    s.facts["devices"] = {"failed": disks[1], "fresh": disks[4]}


def check_and_replace(s: Scenario) -> None:
    """raid5: a check finds planted parity mismatches; --replace shows both roles."""
    a, b, c, new = s.disks.make(4, 16)
    s.observe("baseline")
    s.speed_limits(1000, 200000)
    s.create("md4", 5, [a, b, c])
    s.timings["create_recover_s"] = s.watch("md4", "create", lambda: whole_and_idle("md4"))
    # Corrupt 64 KiB of b's data area behind md's back, so the check has something to count.
    data_offset = int(sysfs("md4", f"dev-{b.removeprefix('/dev/')}/offset")) * 512
    with open(b, "r+b", buffering=0) as disk:
        disk.seek(data_offset + (1 << 20))
        disk.write(os.urandom(64 << 10))
        os.fsync(disk.fileno())
    s.write("/sys/block/md4/md/sync_speed_max", "4000")  # ~4 s of check progress
    s.write("/sys/block/md4/md/sync_action", "check")
    s.timings["check_s_at_4000"] = s.watch(
        "md4", "check", lambda: sysfs("md4", "last_sync_action") == "check" and sync_idle("md4")
    )
    s.mdadm("/dev/md4", "--add", new)
    s.observe("spare-added", settled=True)
    s.mdadm("/dev/md4", "--replace", a, "--with", new)
    new_name = new.removeprefix("/dev/")
    s.timings["replace_s_at_4000"] = s.watch(
        "md4", "replace", lambda: member_state("md4", new_name) == "in_sync" and sync_idle("md4")
    )
    s.facts["devices"] = {"replaced": a, "corrupted": b, "new": new}


def rebuild_recording(s: Scenario) -> None:
    """A raid5 fail → remove → add → recovery → clean under fio load, recorded for the demo.

    raidtop's own recorder (1 s interval) writes ``rebuild.xz``. The live UI
    (guest_ui.py, started by :func:`main` so its imports overlap the earlier
    scenarios) runs alongside and screenshots the recovery; the disk is added
    only once the UI shows samples, so it sees the whole recovery.
    """
    disks = s.disks.make(4, REBUILD_DISK_MIB)
    s.speed_limits(1000, 200000)
    s.create(UI_ARRAY, 5, disks[:3])
    s.watch(UI_ARRAY, "create", lambda: whole_and_idle(UI_ARRAY))
    results = Path(os.environ["RESULTS"])
    UI_GO_FILE.touch()
    fio = start_fio(f"/dev/{UI_ARRAY}")
    s.facts["fio"] = fio is not None
    if fio is not None:
        time.sleep(FIO_WARMUP_S)  # fio's own start (over 9p) takes a few seconds
    recording = Path("/tmp/rebuild.xz")
    recording.unlink(missing_ok=True)  # the writer refuses to open an existing file
    recorder = RecordingRoot(Root("/"))
    writer = RecordingWriter(recording, RECORD_INTERVAL, recorder)
    sampler = Sampler(recorder)
    victim, fresh = disks[1], disks[3]
    tick, added_at, finished_at = 0, None, None
    started = time.monotonic()
    try:
        while True:
            time.sleep(max(0.0, started + tick * RECORD_INTERVAL - time.monotonic()))
            args: tuple[str, ...] = ()
            if tick == FAIL_TICK:
                args = ("--fail", victim)
            elif tick == REMOVE_TICK:
                args = ("--remove", victim)
            elif (
                added_at is None
                and tick >= ADD_TICK
                and (UI_READY_FILE.exists() or tick >= ADD_TICK + UI_READY_WAIT_TICKS)
            ):
                # min = max: fio's load would otherwise hold the rebuild at
                # speed_limit_min; equal limits give a steady rebuild.
                s.write(f"/sys/block/{UI_ARRAY}/md/sync_speed_min", str(REBUILD_SPEED))
                s.write(f"/sys/block/{UI_ARRAY}/md/sync_speed_max", str(REBUILD_SPEED))
                s.facts["add_tick"] = tick
                added_at = time.monotonic()
                args = ("--add", fresh)
            actions = []
            if args:
                s.mdadm(f"/dev/{UI_ARRAY}", *args)
                actions.append(
                    {"time": time.time(), "kind": "lab", "command": f"mdadm /dev/{UI_ARRAY} {' '.join(args)}"}
                )
            snap = sampler.sample()
            events = [{"array": e.array, "event": e.event, "member": e.member} for e in snap.events]
            writer.add(snap.time, recorder.take_frame(), events=events, actions=actions)
            if added_at is not None and finished_at is None and whole_and_idle(UI_ARRAY):
                finished_at = tick
                s.timings[f"recovery_s_at_{REBUILD_SPEED}_under_fio"] = round(time.monotonic() - added_at, 2)
            if finished_at is not None and tick >= finished_at + CLEAN_TICKS:
                break
            if tick > 240:
                raise ScenarioError(f"{UI_ARRAY}: recovery not finished after {tick} ticks")
            tick += 1
    finally:
        writer.close()
        UI_STOP_FILE.touch()
        if fio is not None:
            fio.terminate()
            fio.wait()
    s.facts["recording_frames"] = writer.frames
    s.facts["recording_bytes"] = writer.size_bytes
    s.timings["recording_s"] = round(time.monotonic() - started, 2)
    (results / "rebuild.xz").write_bytes(recording.read_bytes())
    s.facts["devices"] = {"victim": victim, "fresh": fresh}
    wait_for_ui(s)


def wait_for_ui(s: Scenario) -> None:
    """Let the UI finish its screenshot and keep its exit status and log tail."""
    global _ui_process
    if _ui_process is None:
        s.facts["ui_rc"] = None
        return
    try:
        s.facts["ui_rc"] = _ui_process.wait(timeout=UI_GRACE_S)
    except subprocess.TimeoutExpired:
        _ui_process.kill()
        _ui_process.wait()
        s.facts["ui_rc"] = None
    _ui_process = None
    s.facts["ui_log"] = UI_LOG.read_text(errors="replace")[-4000:]


def start_ui(results: Path) -> subprocess.Popen[bytes]:
    """Start guest_ui.py now: it imports, then waits for the rebuild scenario's GO."""
    for path in (UI_GO_FILE, UI_READY_FILE, UI_STOP_FILE):
        path.unlink(missing_ok=True)
    return subprocess.Popen(
        [sys.executable, "-m", "tests.realmd.guest_ui", UI_ARRAY, str(results)],
        stdout=open(UI_LOG, "w"),
        stderr=subprocess.STDOUT,
    )


def start_fio(device: str) -> subprocess.Popen[bytes] | None:
    """A light random read/write load on ``device`` so the disks look busy; None without fio."""
    fio = "/usr/bin/fio"
    if not Path(fio).exists():
        return None
    return subprocess.Popen(
        [
            fio,
            "--name=demo-load",
            f"--filename={device}",
            "--rw=randrw",
            "--rwmixread=60",
            "--bs=4k",
            "--direct=1",
            "--ioengine=psync",
            "--rate=600k,300k",
            "--time_based",
            "--runtime=600",
            "--size=32M",
            "--output=/dev/null",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def write_and_read_back(device: str, size: int = 1 << 20) -> dict[str, Any]:
    """Write a random MiB to ``device``, drop the page cache, read it back from the disks."""
    pattern = os.urandom(size)
    with open(device, "r+b", buffering=0) as handle:
        handle.seek(4 << 20)
        handle.write(pattern)
        os.fsync(handle.fileno())
    Path("/proc/sys/vm/drop_caches").write_text("3\n")
    with open(device, "rb", buffering=0) as handle:
        handle.seek(4 << 20)
        read = handle.read(size)
    return {"bytes": size, "equal": read == pattern}


SCENARIOS: dict[str, Callable[[Scenario], None]] = {
    "raid1_cycle": raid1_cycle,
    "raid5_spare": raid5_spare,
    "raid6_double": raid6_double,
    "raid10_fail_add": raid10_fail_add,
    "check_and_replace": check_and_replace,
    "rebuild_recording": rebuild_recording,
}


def run_scenario(name: str, results: Path) -> None:
    """Run one scenario, clean up whatever it left, write ``<name>.json``."""
    scenario = Scenario(name)
    error = None
    try:
        SCENARIOS[name](scenario)
    except Exception:  # noqa: BLE001 - any failure is the scenario's result, reported to the host
        error = traceback.format_exc()
        print(f"realmd scenario {name} failed:\n{error}", file=sys.stderr)
        try:
            scenario.observe("error", settled=True)
        except Exception:  # noqa: BLE001 - the last observation is best effort; the first error is the one reported
            pass
    finally:
        stop_all_arrays()
        scenario.disks.release()
        Path(SPEED_LIMIT_MIN).write_text(f"{DEFAULT_SPEED_LIMITS[0]}\n")
        Path(SPEED_LIMIT_MAX).write_text(f"{DEFAULT_SPEED_LIMITS[1]}\n")
    result = scenario.result(error)
    (results / f"{name}.json").write_text(json.dumps(result, separators=(",", ":")))
    print(f"realmd scenario {name}: {'FAILED' if error else 'ok'} in {result['wall_s']:.1f}s", flush=True)


def main(argv: list[str] | None = None) -> int:
    """Run the named scenarios (default: all, in order) and write the results."""
    names = (sys.argv[1:] if argv is None else argv) or list(SCENARIOS)
    unknown = [n for n in names if n not in SCENARIOS]
    if unknown:
        print(f"unknown scenarios: {unknown}; known: {list(SCENARIOS)}", file=sys.stderr)
        return 2
    results = Path(os.environ["RESULTS"])
    mdadm_version = subprocess.run([MDADM, "--version"], capture_output=True, text=True)
    meta = {
        "kernel": os.uname().release,
        "mdadm": (mdadm_version.stderr or mdadm_version.stdout).strip(),
        "python": sys.executable,
        "scenarios": names,
        "started_uptime_s": float(Path("/proc/uptime").read_text().split()[0]),
    }
    (results / "meta.json").write_text(json.dumps(meta))
    global _ui_process
    if "rebuild_recording" in names:
        _ui_process = start_ui(results)
    try:
        for name in names:
            run_scenario(name, results)
    finally:
        if _ui_process is not None:
            _ui_process.kill()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
