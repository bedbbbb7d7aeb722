"""dm-raid status lines as arrays, and a leg failing and rebuilding through the md event table."""

from __future__ import annotations

import itertools
from pathlib import Path

from raidtop.collect.bounded_run import Ran
from raidtop.collect.dmraid.reader import DmRaidReader
from raidtop.collect.dmraid.status import level_and_layout, parse_status
from raidtop.collect.sampler import Sampler
from raidtop.collect.source import Root

DATA = Path(__file__).resolve().parents[2] / "data" / "dmraid"


def test_real_status_output_gives_the_raid_volumes_and_skips_the_rest() -> None:
    arrays, notes = parse_status((DATA / "all-combos").read_text())
    assert notes == []
    assert [
        (a.name, a.level, a.layout, a.raid_disks, a.status, a.health, a.mismatch_cnt, a.sync, a.source) for a in arrays
    ] == [
        ("vg-raid1", "raid1", None, 2, "UU", "ok", 0, None, "dm-raid"),
        ("vg-raid5", "raid5", "left-symmetric", 3, "UUU", "ok", 0, None, "dm-raid"),
        ("vg-raid6", "raid6", "rotating-zero-restart", 5, "UUUUU", "ok", 0, None, "dm-raid"),
    ]
    assert arrays[0].size_kib == 1048576
    unsorted, _ = parse_status((DATA / "raid1-unsorted").read_text())
    assert sorted(a.name for a in unsorted) == ["vg1-cache1", "vg1-zoom1"]
    assert parse_status((DATA / "lvm-only").read_text()) == ([], [])


def test_health_characters() -> None:
    (rec,), _ = parse_status("vg-r: 0 2097152 raid raid1 2 aA 1024/2097152 recover 0 0 -")
    assert rec.health == "degraded" and rec.status == "_U" and rec.members[0].roles == ("spare",)
    assert rec.sync.action == "recover" and rec.sync.done_kib == 512 and rec.sync.total_kib == 1048576
    (dead,), _ = parse_status("vg-d: 0 8 raid raid5_ls 3 ADA 8/8 idle 7")
    assert dead.health == "degraded" and dead.members[1].is_faulty and dead.mismatch_cnt == 7 and dead.sync is None
    (gone,), _ = parse_status("vg-g: 0 8 raid raid1 2 DD 8/8 idle 0")
    assert gone.health == "failed"
    # A fresh volume's initial resync shows every leg 'a': that is not a degradation.
    (fresh,), _ = parse_status("vg-f: 0 2097152 raid raid1 2 aa 4096/2097152 resync 0")
    assert fresh.health == "ok" and fresh.status == "UU" and fresh.sync.action == "resync"


def test_damaged_lines_are_a_note_not_an_array() -> None:
    text = (
        "vg-a: 0 8 raid raid1 3 AA 8/8 idle 0\n"  # 3 legs, 2 characters
        "vg-b: 0 8 raid raid1 2 AA 8of8 idle 0\n"  # no ratio
        "../x: 0 8 raid raid1 2 AA 8/8 idle 0\n"  # not a dm name
        "vg-c: 0 8 raid raid1 99999 AA 8/8 idle 0\n"
    )
    arrays, notes = parse_status(text)
    assert arrays == [] and len(notes) == 4


def test_level_names() -> None:
    assert level_and_layout("raid6_nc") == ("raid6", "rotating-n-continue")
    assert level_and_layout("raid5_n") == ("raid5", "parity-last")
    assert level_and_layout("raid10") == ("raid10", None)


def test_no_module_no_process_and_a_fixture_root_runs_nothing(tmp_path) -> None:
    calls = []
    reader = DmRaidReader(run=lambda argv: calls.append(argv) or Ran(0, b"", b""))
    assert reader.read(Root(tmp_path)) == ([], []) and calls == []
    (tmp_path / "sys/module/dm_raid").mkdir(parents=True)
    assert DmRaidReader().read(Root(tmp_path)) == ([], [])  # not the live root: dmsetup is never run
    reader.read(Root(tmp_path))
    assert calls[0][1:] == ["status", "--target", "raid"]


def test_a_failed_or_cut_run_is_a_note(tmp_path) -> None:
    (tmp_path / "sys/module/dm_raid").mkdir(parents=True)
    root = Root(tmp_path)
    assert (
        "failed: Permission denied"
        in DmRaidReader(run=lambda a: Ran(1, b"", b"x\nPermission denied\n")).read(root)[1][0]
    )
    assert "stopped (timeout)" in DmRaidReader(run=lambda a: Ran(None, b"vg", b"", "timeout")).read(root)[1][0]


def test_a_leg_fails_and_rebuilds_with_md_events_and_eta(tmp_path) -> None:
    (tmp_path / "sys/module/dm_raid").mkdir(parents=True)
    lines = iter(
        [
            "vg-lv: 0 2097152 raid raid1 2 AA 2097152/2097152 idle 0 0 -",
            "vg-lv: 0 2097152 raid raid1 2 AD 2097152/2097152 idle 0 0 -",
            "vg-lv: 0 2097152 raid raid1 2 Aa 0/2097152 recover 0 0 -",
            "vg-lv: 0 2097152 raid raid1 2 Aa 1048576/2097152 recover 0 0 -",
            "vg-lv: 0 2097152 raid raid1 2 AA 2097152/2097152 idle 0 0 -",
        ]
    )
    clock = itertools.count(1000, 10)
    sampler = Sampler(tmp_path, clock=lambda: float(next(clock)))
    sampler.dm_raid = DmRaidReader(run=lambda argv: Ran(0, (next(lines) + "\n").encode(), b""))
    seen = []
    for _ in range(5):
        snap = sampler.sample()
        (array,) = snap.arrays
        seen.append((array.health, array.status, [(e.event, e.member) for e in snap.events]))
    assert seen[0] == ("ok", "UU", [])
    assert seen[1] == ("degraded", "U_", [("Fail", "vg-lv_rimage_1"), ("DegradedArray", None)])
    assert seen[2][2] == [("RebuildStarted", None)]
    assert seen[4] == ("ok", "UU", [("RebuildFinished", None), ("SpareActive", "vg-lv_rimage_1")])
    assert snap.arrays[0].source == "dm-raid"
