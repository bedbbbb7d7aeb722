"""rebuild_risks: which survivors hold the last copy, what a rebuild still reads, the URE estimate."""

from __future__ import annotations

import math

import pytest

from raidtop.model.md import MdArray, MdMember, MdSync
from raidtop.model.smart import SmartHealth, SmartReason
from raidtop.presentation.rebuild_risk import (
    ASSUMED_ERROR_BITS,
    DEGRADED_WHY,
    REBUILDING_WHY,
    rebuild_risks,
    ure_probability,
)

TB = 976_562_500
"""10^12 bytes in KiB: a component size that makes the arithmetic checkable by hand."""


def in_sync(name: str, slot: int) -> MdMember:
    return MdMember(name, slot, ("in_sync",))


def health(disk: str, verdict: str = "ok", *reasons: str, rate: float | None = None) -> SmartHealth:
    return SmartHealth(
        disk,
        0.0,
        "read",
        verdict,
        tuple(SmartReason(verdict, r, "test") for r in reasons),
        unrecoverable_error_bits=rate,
    )


def array(
    level: str,
    disks: int,
    members: tuple[MdMember, ...],
    *,
    layout: str | None = None,
    sync: MdSync | None = None,
    component: int | None = TB,
) -> MdArray:
    missing = disks - sum(1 for m in members if m.is_in_sync)
    return MdArray(
        "md0",
        level,
        "clean",
        "degraded" if missing else "ok",
        raid_disks=disks,
        degraded=missing,
        members=members,
        layout=layout,
        sync=sync,
        component_size_kib=component,
    )


def disks_of(*arrays: MdArray) -> dict[str, tuple[str, ...]]:
    """Members are partitions sdX1 on whole disks sdX."""
    return {m.name: (m.name.rstrip("0123456789"),) for a in arrays for m in a.members}


def smart(**verdicts: str) -> dict[str, SmartHealth]:
    return {
        disk: health(disk, v, "8 pending sectors" if v != "ok" else "") if v != "ok" else health(disk)
        for disk, v in verdicts.items()
    }


def at_risk(arrays, smart_map) -> dict[str, list[str]]:
    return {r.array: [s.disk for s in r.survivors] for r in rebuild_risks(tuple(arrays), smart_map, disks_of(*arrays))}


def test_raid1_with_one_in_sync_member_is_at_risk_on_that_disk():
    md = array("raid1", 2, (in_sync("sda1", 0),))
    risks = rebuild_risks((md,), smart(sda="watch"), disks_of(md))
    assert [(r.array, r.why) for r in risks] == [("md0", DEGRADED_WHY)]
    survivor = risks[0].survivors[0]
    assert (survivor.member, survivor.disk, survivor.verdict, survivor.reasons) == (
        "sda1",
        "sda",
        "watch",
        ("8 pending sectors",),
    )
    assert "mdadm --replace" in risks[0].advice and "Back up now" in risks[0].advice


def test_raid5_degraded_names_only_the_survivor_that_is_not_ok():
    md = array("raid5", 4, (in_sync("sda1", 0), in_sync("sdb1", 1), in_sync("sdc1", 2)))
    assert at_risk([md], smart(sda="ok", sdb="failing", sdc="ok")) == {"md0": ["sdb"]}


def test_raid5_degraded_idle_ure_number_by_hand():
    # 10^12 bytes = 8×10^12 bits at 1 in 10^14: 1 − e^−0.08 = 0.0768837 (7.7 %).
    md = array("raid5", 3, (in_sync("sda1", 0), in_sync("sdb1", 1)))
    (risk,) = rebuild_risks((md,), smart(sda="watch", sdb="ok"), disks_of(md))
    (survivor,) = risk.survivors
    assert survivor.bytes_to_read == 10**12
    assert survivor.error_rate_bits == ASSUMED_ERROR_BITS == 1e14 and survivor.rate_assumed
    assert survivor.ure_probability == pytest.approx(0.0768837, abs=1e-7)


def test_a_rated_rate_from_the_drive_class_is_used_and_not_called_assumed():
    md = array("raid1", 2, (in_sync("sda1", 0),))
    rated = {"sda": health("sda", "watch", "8 pending sectors", rate=1e15)}
    (survivor,) = rebuild_risks((md,), rated, disks_of(md))[0].survivors
    assert (survivor.error_rate_bits, survivor.rate_assumed) == (1e15, False)
    assert survivor.ure_probability == pytest.approx(1 - math.exp(-8e12 / 1e15))


def test_raid6_down_one_keeps_redundancy_down_two_does_not():
    down_one = array("raid6", 4, (in_sync("sda1", 0), in_sync("sdb1", 1), in_sync("sdc1", 2)))
    down_two = array("raid6", 4, (in_sync("sda1", 0), in_sync("sdb1", 1)))
    bad = smart(sda="watch", sdb="ok", sdc="ok")
    assert at_risk([down_one], bad) == {}
    assert at_risk([down_two], bad) == {"md0": ["sda"]}


def test_raid10_near2_only_the_lost_members_mirror_partner_is_at_risk():
    # near=2 on 4 disks: slots (0,1) and (2,3) mirror each other; slot 1 is gone.
    md = array("raid10", 4, (in_sync("sda1", 0), in_sync("sdc1", 2), in_sync("sdd1", 3)), layout="near=2")
    assert at_risk([md], smart(sda="ok", sdc="watch", sdd="ok")) == {}
    assert at_risk([md], smart(sda="watch", sdc="ok", sdd="ok")) == {"md0": ["sda"]}


def test_raid10_with_unknown_layout_names_every_survivor_as_an_approximation():
    md = array("raid10", 4, (in_sync("sda1", 0), in_sync("sdc1", 2), in_sync("sdd1", 3)))
    assert at_risk([md], smart(sda="ok", sdc="watch", sdd="ok")) == {"md0": ["sdc"]}


def test_rebuilding_raid1_reads_the_rest_of_the_sync_range_from_the_watch_survivor():
    sync = MdSync("recover", 25.0, done_kib=250_000, total_kib=1_000_000)
    members = (in_sync("sda1", 0), in_sync("sdb1", 1), MdMember("sdc1", 2, ("spare",)))
    md = array("raid1", 3, members, sync=sync)
    assert (md.health, md.degraded) == ("degraded", 1)  # two copies left: redundancy, but it rebuilds
    risks = rebuild_risks((md,), smart(sda="watch", sdb="ok", sdc="ok"), disks_of(md))
    assert [(r.why, [s.disk for s in r.survivors]) for r in risks] == [(REBUILDING_WHY, ["sda"])]
    assert risks[0].survivors[0].bytes_to_read == 750_000 * 1024


def test_a_check_is_not_a_rebuild_and_a_whole_array_is_not_at_risk():
    members = (in_sync("sda1", 0), in_sync("sdb1", 1))
    checking = array("raid1", 2, members, sync=MdSync("check", 10.0, done_kib=1, total_kib=10))
    assert at_risk([checking], smart(sda="failing", sdb="ok")) == {}


def test_healthy_survivors_raise_nothing():
    md = array("raid5", 3, (in_sync("sda1", 0), in_sync("sdb1", 1)))
    assert at_risk([md], smart(sda="ok", sdb="ok")) == {}
    assert rebuild_risks((md,), {}, disks_of(md)) == ()
    unknown = {"sda": SmartHealth("sda", 0.0, "standby")}
    assert at_risk([md], unknown) == {}


def test_unknown_component_size_leaves_bytes_and_chance_unknown_not_zero():
    md = array("raid1", 2, (in_sync("sda1", 0),), component=None)
    (survivor,) = rebuild_risks((md,), smart(sda="watch"), disks_of(md))[0].survivors
    assert survivor.bytes_to_read is None and survivor.ure_probability is None


def test_ure_probability_formula():
    assert ure_probability(0, 1e14) == 0.0
    assert ure_probability(12_500_000_000_000, 1e14) == pytest.approx(1 - math.exp(-1))
