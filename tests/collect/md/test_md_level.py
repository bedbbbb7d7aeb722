"""Level knowledge shared by both readers: layout names, health, container names."""

from __future__ import annotations

from raidtop.collect.md.level import container_of, judge_health, layout_name, natural_key, sort_roles
from raidtop.model.md import MdMember


def test_layout_names_match_mdadm():
    assert layout_name("raid5", 2) == "left-symmetric"
    assert layout_name("raid4", 5) == "parity-last"
    assert layout_name("raid6", 18) == "left-symmetric-6"
    assert layout_name("raid6", 99) == "99"
    # raid10: near copies in bits 0-7, far in 8-15, bit 16 makes far copies "offset".
    assert layout_name("raid10", 0x102) == "near=2"
    assert layout_name("raid10", 0x201) == "far=2"
    assert layout_name("raid10", 0x10201) == "offset=2"
    assert layout_name("raid10", 0x202) == "near=2,far=2"
    assert layout_name("raid1", 0) is None
    assert layout_name("raid0", 0) is None and layout_name("raid0", 2) == "alternate"


def health(level, status, layout=None, degraded=None, state="clean", raid_disks=None, members=()):
    return judge_health(
        level=level,
        state=state,
        raid_disks=raid_disks or len(status or ""),
        degraded=degraded if degraded is not None else (status or "").count("_"),
        status=status,
        layout=layout,
        members=list(members),
    )


def test_health_by_level():
    assert health("raid1", "U_") == "degraded"
    assert health("raid1", "__") == "failed"
    assert health("raid5", "U_U") == "degraded"
    assert health("raid5", "U__") == "failed"
    assert health("raid6", "U__U") == "degraded"
    assert health("raid6", "U___") == "failed"
    assert health("raid5", "UUU", state="broken") == "failed"
    assert health("raid5", "UUU", state="inactive") == "inactive"
    assert health("container", None, state="inactive") == "ok"
    assert health("raid0", None, members=[MdMember("sda", 0, ("faulty",))]) == "failed"
    assert health("linear", None, members=[MdMember("sda", 0, ("in_sync",))]) == "ok"


def test_raid10_health_depends_on_which_members_are_missing():
    # near=2 over 4 devices: mirrors are (0,1) and (2,3).
    assert health("raid10", "_U_U", "near=2") == "degraded"
    assert health("raid10", "__UU", "near=2") == "failed"
    # far=2 over 4 devices: the far copy sits on the next device.
    assert health("raid10", "_U_U", "far=2") == "degraded"
    assert health("raid10", "U__U", "far=2") == "failed"
    # near=2 over 3 devices wraps: chunk 1 is on devices 2 and 0.
    assert health("raid10", "_U_", "near=2") == "failed"
    assert health("raid10", "_UU", "near=2") == "degraded"
    assert health("raid10", "_UU", None) == "degraded"


def test_container_names():
    assert container_of("external:/md127/0") == ("md127", "0")
    assert container_of("external:-md127/1") == ("md127", "1")  # mdmon's read-only marker
    assert container_of("external:imsm") == (None, None)
    assert container_of("1.2") == (None, None)


def test_natural_order_and_roles():
    assert sorted(["md10", "md2", "md_d0", "md127", "md1"], key=natural_key) == ["md1", "md2", "md10", "md127", "md_d0"]
    assert sort_roles(["spare", "write_mostly", "failfast", "faulty"]) == (
        "faulty",
        "write_mostly",
        "spare",
        "failfast",
    )
