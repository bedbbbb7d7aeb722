"""An LV's data start against its md array's chunk, from the alignment_offset the kernel stacked.

The trees are written as the kernel lays out sysfs for LVs on md arrays (one
directory per device with ``dev``, ``size``, ``slaves/``, ``holders/``, ``dm/``
and ``alignment_offset``); the offsets are what the kernel's
``queue_limit_alignment_offset`` gives for an LV whose PV data starts 1 MiB in
(aligned) and 1 MiB + 3 sectors in (``pvcreate --dataalignmentoffset 3s``):
(chunk − start mod chunk) mod chunk. tests/realmd/test_stack.py checks that
formula, and these sentences, against the real kernel and ``pvs``.
"""

from __future__ import annotations

from pathlib import Path

from raidtop.collect.source import Root
from raidtop.collect.stack.tree import read_stack
from raidtop.model.md import MdArray
from raidtop.presentation.stack import tree_rows
from raidtop.presentation.stack_alignment import misalignments

LVM = "LVM-8Bwyu3HKhVe4Vkg6PsbYBfDf9e2QG9K8dVvuB4kSxMFqQO7rvmEoVq5S9YB"
RAID5 = MdArray("md0", "raid5", "clean", "ok", raid_disks=3, chunk_kib=64, layout="left-symmetric")
RAID1 = MdArray("md1", "raid1", "clean", "ok", raid_disks=2)
MISALIGNED = 65536 - 1536  # the start is 1 MiB + 1.5 KiB: 1.5 KiB past a 64 KiB chunk boundary


def _device(sys: Path, name: str, dev: str, slaves: tuple[str, ...] = (), **files: str) -> None:
    d = sys / "class/block" / name
    for sub in ("holders", "slaves"):
        (d / sub).mkdir(parents=True, exist_ok=True)
    for slave in slaves:
        (d / "slaves" / slave).mkdir()
        (sys / "class/block" / slave / "holders" / name).mkdir(parents=True)
    for fname, text in {"dev": dev, "size": "204800", **files}.items():
        (d / fname).parent.mkdir(parents=True, exist_ok=True)
        (d / fname).write_text(text + "\n")


def _tree(tmp_path: Path, offsets: dict[str, str]) -> Root:
    sys = tmp_path / "sys"
    for i, disk in enumerate(("sdb", "sdc", "sdd", "sde", "sdf")):
        _device(sys, disk, f"8:{16 * (i + 1)}", alignment_offset="0")
    _device(sys, "md0", "9:0", ("sdb", "sdc", "sdd"), **{"md/level": "raid5", "md/chunk_size": "65536"})
    _device(sys, "md1", "9:1", ("sde", "sdf"), **{"md/level": "raid1"})
    lvs = {"dm-0": ("vg5-good", "md0"), "dm-1": ("vg5-bad", "md0"), "dm-2": ("vg1-any", "md1")}
    for i, (name, (label, under)) in enumerate(lvs.items()):
        files = {"dm/name": label, "dm/uuid": f"{LVM}{i:05d}"}
        if name in offsets:
            files["alignment_offset"] = offsets[name]
        _device(sys, name, f"253:{i}", (under,), **files)
    # LUKS on the misaligned LV inherits its offset: only the LV is named for it.
    _device(sys, "dm-3", "253:3", ("dm-1",), **{"dm/name": "secret", "dm/uuid": "CRYPT-LUKS2-0-secret"})
    (sys / "class/block/dm-3/alignment_offset").write_text(offsets.get("dm-1", "0") + "\n")
    return Root(tmp_path)


def test_an_lv_off_the_chunk_flags_and_one_on_it_does_not(tmp_path) -> None:
    root = _tree(tmp_path, {"dm-0": "0", "dm-1": str(MISALIGNED), "dm-2": "3584"})
    stack = read_stack(root)
    assert [stack.nodes[n].alignment_offset for n in ("dm-0", "dm-1", "dm-3", "sdb")] == [
        0,
        MISALIGNED,
        MISALIGNED,
        None,
    ]
    found = misalignments(stack, {"md0": RAID5, "md1": RAID1})
    assert found == {"dm-1": "LV starts 1.5 KiB past a 64 KiB chunk of md0, so off its 128 KiB stripe"}
    # raid1 does not stripe: an LV's offset there is not judged (dm-2); a LUKS layer is not an LV (dm-3).
    rows = {r.name.lstrip("│├└─ "): r for r in tree_rows(stack, {"md0": RAID5, "md1": RAID1}, roots=["md0"])}
    assert rows["vg5-bad"].note == "! " + found["dm-1"]
    assert rows["vg5-good"].note == "" and rows["secret"].note == ""


def test_the_kernels_misaligned_flag_is_said_as_such(tmp_path) -> None:
    stack = read_stack(_tree(tmp_path, {"dm-0": "-1", "dm-1": "0"}))
    assert misalignments(stack, {"md0": RAID5}) == {
        "dm-0": "kernel: LV misaligned on md0's 64 KiB chunk (128 KiB stripe)"
    }


def test_an_offset_that_is_missing_or_not_a_number_is_not_judged(tmp_path) -> None:
    stack = read_stack(_tree(tmp_path, {"dm-1": "12abc", "dm-2": "-7"}))
    assert [stack.nodes[n].alignment_offset for n in ("dm-0", "dm-1", "dm-2")] == [None, None, None]
    assert misalignments(stack, {"md0": RAID5, "md1": RAID1}) == {}


def test_a_whole_chunk_is_on_a_boundary(tmp_path) -> None:
    # A --root tree may say anything: an offset of exactly one chunk is still a boundary.
    stack = read_stack(_tree(tmp_path, {"dm-0": "65536", "dm-1": "131072"}))
    assert misalignments(stack, {"md0": RAID5}) == {}
