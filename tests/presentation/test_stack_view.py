"""The Stack tree as shown: lsblk's shape, md state, usage, and the full-on-degraded sentence."""

from __future__ import annotations

from pathlib import Path

from raidtop.collect.source import Root
from raidtop.collect.stack.tree import read_stack
from raidtop.model.md import MdArray
from raidtop.collect.stack.full import full_on_degraded
from raidtop.presentation.stack import tree_rows

ROOT = Root(Path(__file__).resolve().parents[1] / "data" / "stack" / "md-lvm")


def _arrays(health: str = "ok") -> dict[str, MdArray]:
    return {
        "md0": MdArray("md0", "raid1", "clean", health, raid_disks=2, degraded=1 if health == "degraded" else 0),
        "md1": MdArray("md1", "raid5", "clean", "ok", raid_disks=3, degraded=0),
    }


def test_rows_read_like_lsblk_and_an_array_is_drawn_once() -> None:
    rows = tree_rows(read_stack(ROOT), _arrays())
    names = [r.name for r in rows]
    assert names[:7] == ["sda", "├─sda1", "└─sda2", "  └─md0", "    ├─vg0-root", "    └─vg0-secret", "      └─secret"]
    assert "  └─md0  (above)" in names  # under sdb1: one line, not the subtree again
    assert names.count("    ├─vg0-root") == 1
    md0 = next(r for r in rows if r.name == "  └─md0")
    assert (md0.kind, md0.state, md0.state_tone) == ("raid", "raid1 clean", "good")
    secret = next(r for r in rows if r.name.endswith("secret") and r.kind == "crypt")
    assert (secret.fs, secret.mount, secret.used) == ("xfs", "/srv/secret files", "usage unknown")
    assert len({r.key for r in rows}) == len(rows)


def test_a_degraded_array_shows_it_and_a_full_filesystem_on_it_is_said() -> None:
    stack = read_stack(ROOT, usage=lambda mp: {"/": (100, 97), "/data": (100, 99)}.get(mp))
    rows = tree_rows(stack, _arrays("degraded"), roots=["md0"])
    assert rows[0].state == "raid1 ! degraded" and rows[0].state_tone == "warn"
    assert rows[1].used == "97 %" and rows[1].used_tone == "crit"
    said = full_on_degraded(stack, _arrays("degraded"))
    # md1's /data is 99 % full but md1 is healthy: that is df's business, not an alarm here.
    assert said == ["md0 is degraded and its filesystem / (ext4 on vg0-root) is 97 % full"]
    assert full_on_degraded(stack, _arrays("ok")) == []


def test_just_below_the_threshold_is_not_full() -> None:
    stack = read_stack(ROOT, usage=lambda mp: (1000, 949) if mp == "/" else None)
    assert full_on_degraded(stack, _arrays("degraded")) == []


def test_what_an_array_sits_on_in_one_line() -> None:
    from raidtop.presentation.stack import below_text

    stack = read_stack(ROOT)
    assert below_text(stack, "md0") == "sda2 on sda · sdb1 on sdb"
    assert below_text(stack, "md1") == "sdc · sdd · sde"
    assert below_text(stack, "dm-2") == "dm-1 on sda, sdb"
    assert below_text(stack, "md9") == "not in /sys/class/block"


def test_an_lvm_raid_volume_node_carries_its_state_and_its_full_filesystem_is_said() -> None:
    from raidtop.model.md import MdArray
    from raidtop.model.stack import FsUsage, Stack, StackNode

    stack = Stack(
        {
            "loop2": StackNode("loop2", "loop", "loop2", 100, ("dm-5",), ()),
            "dm-5": StackNode(
                "dm-5",
                "lvm",
                "vgr-mirror",
                100,
                (),
                ("loop2",),
                fstype="xfs",
                mountpoints=("/srv",),
                usage=FsUsage(100, 97, 3),
            ),
        }
    )
    volume = MdArray(
        "vgr-mirror", "raid1", "active", "degraded", raid_disks=2, degraded=1, status="U_", source="dm-raid"
    )
    rows = tree_rows(stack, {"vgr-mirror": volume})
    assert rows[1].name == "└─vgr-mirror" and rows[1].state == "raid1 ! degraded"
    assert full_on_degraded(stack, {"vgr-mirror": volume}) == [
        "vgr-mirror is degraded and its filesystem /srv (xfs on vgr-mirror) is 97 % full"
    ]
    # An md array that happens to share a dm name is not taken for the volume.
    md_named = MdArray("vgr-mirror", "raid1", "active", "degraded", raid_disks=2)
    assert tree_rows(stack, {"vgr-mirror": md_named})[1].state == ""
