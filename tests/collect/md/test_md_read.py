"""What read_md reports on md trees written in the formats a 6.1 kernel prints.

The sysfs + /proc/mdstat merge, health and sync states, speed limits and notes;
the trees are built attribute by attribute, as listed in issue 3 (md_sysfs_trees.py).
"""

from __future__ import annotations

import shutil

from raidtop.collect.md.read import read_md
from raidtop.collect.md.sysfs import read_md_sysfs
from raidtop.model.md import RaidSpeedLimit
from raidtop.output.md_json import array_to_json, md_to_json
from tests.collect.md.md_sysfs_trees import (
    DATA,
    IN,
    RECOVERING_MEMBERS,
    RECOVERING_RAID5,
    array,
    md_tree,
    member,
    recovering_root,
    write_tree,
)


def test_recovering_raid5_every_field(tmp_path):
    reading = read_md(recovering_root(tmp_path))
    assert reading.notes == ()
    assert md_to_json(reading.arrays, reading.speed_limit, []) == {
        "arrays": [
            array(
                "md127",
                "raid5",
                "active",
                "degraded",
                3,
                1,
                129024,
                512,
                "left-symmetric",
                "1.2",
                "internal",
                [
                    member("loop0", 0, IN, 0),
                    member("loop1", 1, ["in_sync", "write_mostly"], 3),
                    member("loop2", 2, ["spare"], 0),
                ],
                # 32768 / 129024 sectors = 25.40 %; (64512 - 16384) KiB at 16384 KiB/s = 2.9 s.
                {
                    "action": "recover",
                    "percent": 25.4,
                    "done_kib": 16384,
                    "total_kib": 64512,
                    "speed_kib_s": 16384,
                    "eta_s_kernel": 2.9,
                    "eta_s": None,
                    "eta_basis": None,
                    "rate_kib_s": None,
                    "stalled": False,
                    "stalled_s": None,
                    "held_by": None,
                    "held_limit_kib_s": None,
                },
                0,
                1000,
                200000,
                256,
            )
            | {
                "read_only": False,
                "auto_read_only": False,
                "sparse_by_design": False,
                "degraded_since": None,
                "degraded_since_basis": None,
            },
        ],
        "raid_speed_limit": {"min": 1000, "max": 200000},
        "events": [],
    }
    md127 = reading.arrays[0]
    assert md127.status_string == "[UU_]"
    assert (md127.consistency_policy, md127.component_size_kib, md127.reshape_position) == ("bitmap", 64512, None)
    assert md127.last_sync_action == "recover"


def test_mdstat_supplies_finish_numbers_and_bitmap_file(tmp_path):
    root = recovering_root(tmp_path)
    (root / "sys/block/md127/md/bitmap/location").write_text("file\n")
    write_tree(
        root,
        {
            "proc/mdstat": (
                "Personalities : [raid6] [raid5] [raid4] \n"
                "md127 : active raid5 loop2[3] loop1[1](W) loop0[0]\n"
                "      129024 blocks super 1.2 level 5, 512k chunk, algorithm 2 [3/2] [UU_]\n"
                "      [====>................]  recovery = 25.3% (16384/64512) finish=0.1min speed=16384K/sec\n"
                "      bitmap: 1/1 pages [4KB], 65536KB chunk, file: /var/lib/md127.bitmap\n"
                "\n"
                "unused devices: <none>\n"
            )
        },
    )
    reading = read_md(root)
    md127 = reading.arrays[0]
    assert md127.source == "both"
    assert md127.sync.eta_s_kernel == 6.0  # finish=0.1min, the kernel's own figure
    assert md127.sync.done_kib == 16384 and md127.sync.action == "recover"
    assert md127.bitmap == "/var/lib/md127.bitmap"
    assert [(m.name, m.slot, m.number) for m in md127.members] == [("loop0", 0, 0), ("loop1", 1, 1), ("loop2", 2, 3)]
    assert reading.notes == ()


def test_sysfs_repair_wins_over_mdstat_resync(tmp_path):
    attrs = dict(RECOVERING_RAID5, sync_action="repair", degraded="0", sync_completed="1024 / 129024")
    members = dict(RECOVERING_MEMBERS, loop2={"state": "in_sync", "slot": "2", "errors": "0"})
    files, links = md_tree("md127", attrs, members, "258048")
    files["proc/mdstat"] = (
        "Personalities : [raid5] \n"
        "md127 : active raid5 loop2[3] loop1[1] loop0[0]\n"
        "      129024 blocks super 1.2 level 5, 512k chunk, algorithm 2 [3/3] [UUU]\n"
        "      [>....................]  resync =  0.7% (512/64512) finish=3.9min speed=256K/sec\n"
        "\nunused devices: <none>\n"
    )
    md127 = read_md(write_tree(tmp_path, files, links)).arrays[0]
    assert md127.sync.action == "repair"  # mdstat prints a repair as "resync"
    assert md127.health == "ok"


def test_mdstat_only_root_gives_arrays_members_roles_and_sync(tmp_path):
    shutil.copy(
        DATA / "mdstat" / "prometheus-procfs__proc_mdstat", write_tree(tmp_path, {"proc/x": ""}) / "proc/mdstat"
    )
    reading = read_md(tmp_path)
    assert reading.md_driver_present
    by_name = {a.name: a for a in reading.arrays}
    assert len(by_name) == 18 and all(a.source == "mdstat" for a in reading.arrays)
    md6 = array_to_json(by_name["md6"])
    assert md6["members"] == [
        member("sdb2", None, ["faulty"]),
        member("sdc", None, ["spare"]),
        member("sda2", None, IN),
    ]
    assert md6["sync"]["action"] == "recover" and md6["sync"]["eta_s_kernel"] == 1020.0
    assert by_name["md11"].sync.action == "pending"


def test_no_md_driver_versus_no_arrays(tmp_path):
    bare = read_md(write_tree(tmp_path / "bare", {"proc/stat": "cpu 0 0 0 0"}))
    assert not bare.md_driver_present
    assert bare.arrays == () and bare.notes == ()
    assert bare.absence.startswith("No md driver")
    shutil.copy(
        DATA / "mdstat" / "libstorage-ng__proc-mdstat-cc_parse_empty2",
        write_tree(tmp_path / "empty", {"proc/x": ""}) / "proc/mdstat",
    )
    empty = read_md(tmp_path / "empty")
    assert empty.md_driver_present and empty.arrays == ()
    assert empty.absence == "The md driver is loaded, but there are no md arrays."
    assert empty.speed_limit is None


def test_speed_limits(tmp_path):
    root = write_tree(
        tmp_path, {"proc/sys/dev/raid/speed_limit_min": "1000", "proc/sys/dev/raid/speed_limit_max": "200000"}
    )
    assert read_md(root).speed_limit == RaidSpeedLimit(1000, 200000)


def test_raid5_with_two_failed_members_is_broken(tmp_path):
    attrs = dict(RECOVERING_RAID5, array_state="broken", degraded="2", sync_action="idle", sync_completed="none")
    members = {
        "loop0": {"state": "in_sync", "slot": "0", "errors": "0"},
        "loop1": {"state": "faulty", "slot": "none", "errors": "0"},
        "loop2": {"state": "faulty,write_error", "slot": "none", "errors": "12"},
    }
    files, links = md_tree("md0", attrs, members, "258048")
    md0 = read_md(write_tree(tmp_path, files, links)).arrays[0]
    assert (md0.state, md0.health, md0.status_string, md0.sync) == ("broken", "failed", "[U__]", None)
    assert md0.members[2].roles == ("faulty", "write_error")


def test_degraded_count_beyond_tolerance_is_failed_without_broken_state(tmp_path):
    attrs = dict(RECOVERING_RAID5, array_state="clean", degraded="2", sync_action="idle")
    members = {"loop0": {"state": "in_sync", "slot": "0"}}
    files, links = md_tree("md0", attrs, members)
    assert read_md(write_tree(tmp_path, files, links)).arrays[0].health == "failed"


def test_auto_read_only_with_owed_resync_is_pending(tmp_path):
    attrs = dict(RECOVERING_RAID5, array_state="read-auto", degraded="0", sync_action="idle", resync_start="0")
    files, links = md_tree("md0", attrs, {"loop0": {"state": "in_sync", "slot": "0"}})
    md0 = read_md(write_tree(tmp_path, files, links)).arrays[0]
    assert md0.auto_read_only and md0.sync.action == "pending"


def test_delayed_sync_and_no_bitmap(tmp_path):
    attrs = dict(RECOVERING_RAID5, sync_action="resync", sync_completed="delayed", degraded="0")
    attrs["bitmap/location"] = "none"
    files, links = md_tree("md1", attrs, {"loop0": {"state": "in_sync", "slot": "0"}})
    md1 = read_md(write_tree(tmp_path, files, links)).arrays[0]
    assert md1.sync.action == "delayed" and md1.sync.percent is None
    assert md1.bitmap == "none"


def test_unreadable_attribute_becomes_a_note(tmp_path):
    files, links = md_tree("md0", dict(RECOVERING_RAID5), RECOVERING_MEMBERS)
    root = write_tree(tmp_path, files, links)
    (root / "sys/block/md0/md/degraded").unlink()
    (root / "sys/block/md0/md/degraded").mkdir()  # listed, but reading fails
    (root / "sys/block/md0/md/raid_disks").write_text("three\n")
    (root / "sys/block/md0/md/dev-loop1/state").unlink()
    reading = read_md(root)
    md0 = reading.arrays[0]
    assert md0.degraded is None and md0.raid_disks is None
    assert any(n.startswith("md0: /sys/block/md0/md/degraded:") for n in reading.notes)
    assert "md0: raid_disks reads 'three', not a number" in reading.notes
    assert any("dev-loop1/state unreadable" in n for n in reading.notes)
    assert md0.members[1].roles == ()


def test_non_md_block_devices_are_ignored(tmp_path):
    root = write_tree(tmp_path, {"sys/block/sda/stat": "0", "sys/block/mdX/size": "0"})
    arrays, notes = read_md_sysfs(root)
    assert arrays == [] and notes == []


def test_progress_comes_from_mdstat_when_sysfs_lags(tmp_path):
    """sysfs sync_completed moves in 1/16 steps on 6.1; mdstat's count is the live one."""
    from raidtop.collect.md.read import read_md

    base = tmp_path / "sys" / "block" / "md0" / "md"
    base.mkdir(parents=True)
    files = {
        "level": "raid1",
        "array_state": "active",
        "raid_disks": "2",
        "degraded": "0",
        "sync_action": "resync",
        "sync_completed": "12288 / 327680",
        "sync_speed": "760",
    }
    for name, value in files.items():
        (base / name).write_text(value + "\n")
    (tmp_path / "sys" / "block" / "md0" / "size").write_text("327680\n")
    (tmp_path / "proc").mkdir()
    (tmp_path / "proc" / "mdstat").write_text(
        "Personalities : [raid1] \n"
        "md0 : active raid1 loop1[1] loop0[0]\n"
        "      163840 blocks super 1.2 [2/2] [UU]\n"
        "      [=>...................]  resync =  5.3% (8704/163840) finish=3.4min speed=760K/sec\n"
        "\nunused devices: <none>\n"
    )
    (array,) = read_md(tmp_path).arrays
    assert array.sync.done_kib == 8704 and array.sync.total_kib == 163840  # mdstat's, not 6144 from sysfs
    assert array.sync.speed_kib_s == 760 and array.sync.eta_s_kernel == 204.0
