"""The device stack under a target and the tuning recorded with each result."""

from __future__ import annotations

from pathlib import Path

from raidtop.actions.fio.stack import (
    DeviceTuning,
    MdTuning,
    TuningState,
    capture_tuning,
    parse_mountinfo,
    stack_of,
)
from raidtop.collect.source import Root

from tests.actions.fio_sysfs import FakeSys


def test_mountinfo_lines_are_parsed_with_escapes():
    text = (
        "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"
        "40 27 7:3 / /mnt/my\\040disk rw - xfs /dev/loop3 rw\n"
        "garbage line\n"
        "41 27 0:55 /sub /srv rw shared:1 - btrfs /dev/sdb2 rw\n"
    )
    entries = parse_mountinfo(text)
    assert [(e.major, e.minor, e.mount_point, e.fstype, e.source) for e in entries] == [
        (254, 0, "/", "ext4", "/dev/vda"),
        (7, 3, "/mnt/my disk", "xfs", "/dev/loop3"),
        (0, 55, "/srv", "btrfs", "/dev/sdb2"),
    ]
    assert entries[2].root == "/sub"


def test_the_stack_walks_from_md_to_the_disks_under_its_partitions(tmp_path: Path):
    fake = FakeSys(tmp_path)
    fake.disk("md0", major=9)
    for disk in ("sdb", "sdc"):
        fake.disk(disk, major=8)
        fake.partition(disk, f"{disk}1")
        fake.hold(f"{disk}1", "md0")
    assert stack_of(Root(tmp_path), "md0") == [("md0", "target", 0), ("sdb", "member", 1), ("sdc", "member", 1)]


def test_a_partition_target_reports_its_disk(tmp_path: Path):
    fake = FakeSys(tmp_path)
    fake.disk("nvme0n1", major=259)
    fake.partition("nvme0n1", "nvme0n1p2")
    assert stack_of(Root(tmp_path), "nvme0n1p2") == [("nvme0n1", "target", 0)]


def test_dm_slaves_are_followed(tmp_path: Path):
    fake = FakeSys(tmp_path)
    fake.disk("dm-0", major=253)
    fake.disk("sdd", major=8)
    fake.hold("sdd", "dm-0")
    assert stack_of(Root(tmp_path), "dm-0") == [("dm-0", "target", 0), ("sdd", "slave", 1)]


def _state() -> TuningState:
    return TuningState(
        target="/srv/bench",
        target_kind="directory",
        device="md0",
        fstype="xfs",
        mount_point="/srv",
        devices=(
            DeviceTuning("md0", "target", 0, "none", ("none",), 4096, 128, 1, "write back"),
            DeviceTuning("sdb", "member", 1, "mq-deadline", ("none", "mq-deadline"), 128, 64, 2, "write through", True),
        ),
        arrays=(MdTuning("md0", "raid5", 512, ("sdb1", "sdc1", "sdd1"), "clean", "ok", "resync", True, 1000, 200000),),
        speed_limit_min=1000,
        speed_limit_max=200000,
    )


def test_settings_flatten_every_layer_for_comparison():
    settings = _state().settings()
    assert settings["md0.read_ahead_kb"] == "4096"
    assert settings["sdb.scheduler"] == "mq-deadline"
    assert settings["sdb.write_cache"] == "write through"
    assert settings["md0.level"] == "raid5"
    assert settings["md0.chunk"] == "512K"
    assert settings["md0.members"] == "sdb1,sdc1,sdd1"
    assert settings["md0.sync_running"] == "yes"
    assert settings["md0.sync_action"] == "resync"
    assert settings["speed_limit_max"] == "200000"
    assert _state().raid_level == "raid5"


def test_tuning_state_survives_a_json_round_trip():
    import json

    state = _state()
    assert TuningState.from_dict(json.loads(json.dumps(state.to_dict()))) == state


def test_a_path_without_a_block_device_says_so(tmp_path: Path):
    state = capture_tuning(str(tmp_path / "missing"), Root(tmp_path / "emptyroot"))
    assert state.devices == () and state.device is None
    assert any("missing" in note for note in state.notes)
