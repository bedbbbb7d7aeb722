"""Running smartctl, resolving whole disks, the poller and the sampler: real smartctl, real loop devices.

A fake smartctl appears only where the real one cannot do it: being slow
(the real one answers /dev/vda at once). The poller's reader is swapped for a
function only to count and hold calls; it is still the poller's own thread
and queue under test.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
from pathlib import Path

import pytest

from raidtop.collect.recording.roots import RecordingRoot, RecordingWriter, read_recording
from raidtop.collect.recording.replayer import Replayer
from raidtop.collect.sampler import Sampler
from raidtop.collect.smart.parse import parse_smartctl
from raidtop.collect.smart.poller import SmartPoller
from raidtop.collect.smart.smartctl import NOT_ROOT, cannot_ask, device_path, read_disk, run_bounded
from raidtop.collect.source import Root
from raidtop.collect.whole_disk import is_physical_disk, whole_disks
from raidtop.model.smart import SmartHealth
from raidtop.presentation.judgement import judged_replayer, judged_sampler
from raidtop.presentation.smart_rules import judge

DATA = Path(__file__).resolve().parents[2] / "data" / "smartctl"
ROOT_AND_SMARTCTL = (
    os.geteuid() == 0 and shutil.which("smartctl", path=os.environ.get("PATH", "") + ":/usr/sbin") is not None
)
needs_root = pytest.mark.skipif(not ROOT_AND_SMARTCTL, reason="needs root and smartctl")


def failing(disk: str = "vda") -> SmartHealth:
    doc = json.loads((DATA / "derived" / "sata-failing-ST3500418AS.json").read_text())
    return judge(parse_smartctl(doc, disk, 1000.0))


def smartctl_first_on_path(tmp_path: Path, monkeypatch, body: str) -> None:
    """A shell script named smartctl, first on PATH for this test."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "smartctl").write_text(f"#!/bin/sh\n{body}\n")
    (bin_dir / "smartctl").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")


@pytest.fixture
def loop_device(tmp_path):
    """A real loop device on a sparse file with a sentinel; detached (only this one) afterwards."""
    if os.geteuid() != 0 or shutil.which("losetup") is None:
        pytest.skip("needs root and losetup")
    image = tmp_path / "disk.img"
    with open(image, "wb") as f:
        f.truncate(8 << 20)
        f.seek(4096)
        f.write(b"SENTINEL-smart")
    dev = subprocess.run(
        ["losetup", "-f", "--show", str(image)], capture_output=True, text=True, check=True
    ).stdout.strip()
    try:
        yield dev, image
    finally:
        subprocess.run(["losetup", "-d", dev], check=False)
    with open(image, "rb") as f:
        f.seek(4096)
        assert f.read(14) == b"SENTINEL-smart"


@needs_root
def test_real_smartctl_on_a_virtio_disk_says_unsupported() -> None:
    if not Path("/sys/block/vda").exists():
        pytest.skip("no /dev/vda here")
    h = read_disk(Root("/"), "vda")
    assert h.state == "unsupported" and h.verdict == "unknown" and h.message


def test_a_loop_device_has_no_disk_under_it_and_smartctl_is_never_run(loop_device, tmp_path, monkeypatch) -> None:
    dev, _ = loop_device
    name = Path(dev).name
    root = Root("/")
    assert whole_disks(root, name) == () and not is_physical_disk(root, name)
    mark = tmp_path / "ran"
    smartctl_first_on_path(tmp_path, monkeypatch, f"touch {mark}")  # leaves a mark if anyone runs it
    h = read_disk(root, name)
    assert h.state == "unsupported" and "not a whole physical disk" in h.message
    assert not mark.exists()


def test_names_that_are_not_whole_disks_are_refused_before_smartctl(tmp_path) -> None:
    root = Root("/")
    for name in ("../../etc/passwd", "-h", "vda1", "zram0", "md0", "dm-0", "nonexistent"):
        path, why = device_path(root, name)
        assert path is None and why


def test_a_dev_node_that_is_not_the_disk_sysfs_names_is_refused(tmp_path) -> None:
    if not Path("/dev/vda").exists():
        pytest.skip("no /dev/vda here")
    fake = tmp_path / "root"
    (fake / "sys/block/vda").mkdir(parents=True)
    (fake / "sys/block/vda/dev").write_text("1:1\n")
    path, why = device_path(Root(fake), "vda")
    assert path is None and "sysfs says 1:1" in why


def test_a_slow_smartctl_is_killed_at_its_timeout(tmp_path, monkeypatch) -> None:
    if not Path("/sys/block/vda").exists() or os.geteuid() != 0:
        pytest.skip("needs root and /dev/vda")
    pid_file = tmp_path / "pid"
    smartctl_first_on_path(tmp_path, monkeypatch, f"echo $$ > {pid_file}\nexec sleep 300")
    h = read_disk(Root("/"), "vda", timeout=0.5)
    assert h.state == "error" and "killed" in h.message
    pid = int(pid_file.read_text())
    assert not Path(f"/proc/{pid}").exists()  # killed and reaped, not left behind


def test_output_beyond_the_cap_is_cut_and_the_writer_killed() -> None:
    out, problem = run_bounded(["yes"], timeout=30, limit=1 << 16)
    assert "more than" in problem and len(out) <= (1 << 16) + 65536


def test_not_root_is_one_sentence() -> None:
    assert cannot_ask(euid=1000) == ("not_root", NOT_ROOT)


# ------------------------------------------------------------------ the poller


class CountingReader:
    def __init__(self, answers: dict[str, str] | None = None) -> None:
        self.calls: list[str] = []
        self.answers = answers or {}

    def __call__(self, root, disk: str) -> SmartHealth:
        self.calls.append(disk)
        return SmartHealth(disk=disk, read_at=0.0, state=self.answers.get(disk, "read"), verdict="ok")


def drain(poller: SmartPoller) -> None:
    while (disk := poller._next_due()[0]) is not None:
        poller.poll_one(disk)


def test_each_disk_is_asked_once_then_only_when_due_or_urgent() -> None:
    now = [0.0]
    reader = CountingReader({"vdb": "unsupported"})
    poller = SmartPoller(Root("/"), interval=600, reader=reader, clock=lambda: now[0])
    poller.notice(["sda", "vdb"])
    drain(poller)
    assert sorted(reader.calls) == ["sda", "vdb"] and set(poller.results()) == {"sda", "vdb"}
    reader.calls.clear()
    now[0] = 300
    poller.notice(["sda", "vdb"])
    drain(poller)
    assert reader.calls == []
    poller.notice(["sda", "vdb"], urgent=["sda"])  # an md member changed state
    drain(poller)
    assert reader.calls == ["sda"]
    now[0] = 10_000  # due again; the unsupported disk is not asked again while it stays
    drain(poller)
    assert reader.calls == ["sda", "sda"]
    poller.notice(["sda"])  # vdb went away ...
    assert "vdb" not in poller.results()
    poller.notice(["sda", "vdb"])  # ... and came back: asked at once
    drain(poller)
    assert reader.calls[-1] == "vdb"


def test_a_published_result_dict_never_changes_afterwards() -> None:
    poller = SmartPoller(Root("/"), reader=CountingReader())
    poller.notice(["sda"])
    before = poller.results()
    drain(poller)
    assert before == {} and set(poller.results()) == {"sda"}


def test_a_blocked_smartctl_never_holds_up_a_sample() -> None:
    release = threading.Event()
    started = threading.Event()

    def stuck(root, disk):
        started.set()
        release.wait(60)
        return SmartHealth(disk=disk, read_at=0.0, state="read", verdict="ok")

    poller = SmartPoller(Root("/"), reader=stuck)
    poller.start()
    sampler = Sampler("/", smart=poller)
    try:
        first = sampler.sample()
        assert started.wait(30)  # the poller is inside smartctl now ...
        second = sampler.sample()  # ... and the sampler still samples
        assert first.smart == {} and second.smart == {}
        assert second.smart_disk_of  # this machine has at least one whole disk
    finally:
        release.set()
        poller.stop()


def test_the_sampler_maps_devices_to_whole_disks_and_carries_results() -> None:
    poller = SmartPoller(Root("/"), reader=lambda root, disk: failing(disk))
    sampler = Sampler("/", smart=poller)
    snap = sampler.sample()
    disks = {d for under in snap.smart_disk_of.values() for d in under}
    assert disks == set(poller._disks)
    assert all(not name.startswith(("loop", "zram")) for name in disks)
    drain(poller)
    snap = sampler.sample()
    assert set(snap.smart) == disks and all(h.verdict == "failing" for h in snap.smart.values())


def test_a_recording_keeps_smart_and_the_replay_shows_it_at_that_time(tmp_path) -> None:
    answers = {"now": "ok"}

    def reader(root, disk):
        if answers["now"] == "ok":
            return SmartHealth(disk=disk, read_at=5.0, state="read", verdict="ok")
        return failing(disk)

    poller = SmartPoller(Root("/"), reader=reader)
    recorder = RecordingRoot(Root("/"))
    writer = RecordingWriter(tmp_path / "rec.xz", 1.0, recorder, frames_per_stream=3)
    sampler = Sampler(recorder, smart=poller)
    shown = []
    for tick in range(6):
        if tick == 1:
            drain(poller)
        if tick == 3:
            answers["now"] = "failing"
            poller.notice(set(poller._disks), urgent=set(poller._disks))
            drain(poller)
        snap = sampler.sample()
        shown.append({k: v.verdict for k, v in snap.smart.items()})
        writer.add(snap.time, recorder.take_frame())
    writer.close()
    replay = Replayer(read_recording(tmp_path / "rec.xz"))
    replayed = [{k: v.verdict for k, v in replay.snapshot_at(i).smart.items()} for i in range(len(replay))]
    assert replayed == shown
    assert shown[0] == {} and set(shown[1].values()) == {"ok"} and set(shown[5].values()) == {"failing"}
    last = replay.snapshot_at(5)
    some = next(iter(last.smart.values()))
    assert some == failing(some.disk) and last.smart_disk_of


def test_the_judged_replay_warns_where_the_judged_live_run_warned(tmp_path) -> None:
    """The app replays through judged_replayer: SmartWarning comes back at the frame it came live."""
    answers = {"now": "ok"}

    def reader(root, disk):
        if answers["now"] == "ok":
            return SmartHealth(disk=disk, read_at=5.0, state="read", verdict="ok")
        return failing(disk)

    poller = SmartPoller(Root("/"), reader=reader)
    recorder = RecordingRoot(Root("/"))
    writer = RecordingWriter(tmp_path / "rec.xz", 1.0, recorder, frames_per_stream=3)
    sampler = judged_sampler(recorder, smart=poller)
    live = []
    for tick in range(6):
        if tick == 1:
            drain(poller)
        if tick == 3:
            answers["now"] = "failing"
            poller.notice(set(poller._disks), urgent=set(poller._disks))
            drain(poller)
        snap = sampler.sample()
        live.append(sorted(e.member or "" for e in snap.events if e.event == "SmartWarning"))
        writer.add(snap.time, recorder.take_frame())
    writer.close()
    assert [bool(w) for w in live] == [False, False, False, True, False, False]  # once, when it worsened
    replay = judged_replayer(read_recording(tmp_path / "rec.xz"))
    replayed = [
        sorted(e.member or "" for e in replay.snapshot_at(i).events if e.event == "SmartWarning")
        for i in range(len(replay))
    ]
    assert replayed == live


def sysfs_tree(base: Path) -> Root:
    """sysfs as the kernel lays it out: md0 over dm-0 (over sdb1) and sdc; a cycle md9 <-> md8."""
    devices = base / "sys/devices/pci0000:00/host0"
    for disk in ("sdb", "sdc"):
        (devices / disk).mkdir(parents=True)
        (base / "sys/block").mkdir(parents=True, exist_ok=True)
        (base / "sys/block" / disk).symlink_to(devices / disk)
        (base / "sys/class/block").mkdir(parents=True, exist_ok=True)
        (base / "sys/class/block" / disk).symlink_to(f"../../devices/pci0000:00/host0/{disk}")
    (devices / "sdb" / "sdb1").mkdir()
    (devices / "sdb" / "sdb1" / "partition").write_text("1\n")
    (base / "sys/class/block/sdb1").symlink_to("../../devices/pci0000:00/host0/sdb/sdb1")
    for virtual, slaves in (
        ("dm-0", ["sdb1"]),
        ("md0", ["dm-0", "sdc"]),
        ("md9", ["md8"]),
        ("md8", ["md9"]),
        ("loop0", []),
    ):
        (base / "sys/block" / virtual / "slaves").mkdir(parents=True)
        for slave in slaves:
            (base / "sys/block" / virtual / "slaves" / slave).mkdir()
    return Root(base)


def test_whole_disks_through_partitions_dm_and_md(tmp_path) -> None:
    root = sysfs_tree(tmp_path)
    assert whole_disks(root, "md0") == ("sdb", "sdc")
    assert whole_disks(root, "dm-0") == ("sdb",)
    assert whole_disks(root, "sdb1") == ("sdb",)
    assert whole_disks(root, "sdc") == ("sdc",)
    assert whole_disks(root, "loop0") == () and whole_disks(root, "md9") == ()  # a cycle ends, empty
    assert whole_disks(root, "../etc") == ()
    assert is_physical_disk(root, "sdb") and not is_physical_disk(root, "sdb1") and not is_physical_disk(root, "md0")
