"""Alignment where it matters: layers on a striped array checked against its stripe.

The mkfs hints (:mod:`raidtop.actions.alignment`) say what a new filesystem
should use; this checks what exists. A partition whose first sector is not on
a full-stripe boundary makes every "full-stripe" write straddle two stripes
(a read-modify-write of parity on raid4/5/6); an ext4 ``stripe=`` or an XFS
``sunit``/``swidth`` that is not the array's chunk and stripe aligns the
allocator to the wrong boundary. An LVM logical volume is judged by the
``alignment_offset`` the kernel computed when it stacked the LV's queue
limits on the array's: md sets ``io_min`` to its chunk, so a non-zero offset
means the LV's data start (the PV's data offset plus the segment's extent) is
not on a chunk boundary, and then not on a stripe boundary either; -1 is the
kernel's own "misaligned". It needs no lock, no program run and works on
``--root`` trees. What the kernel does not show is not judged: an ext4
mounted without ``stripe=``, and an LV that is on a chunk boundary but not on
a full-stripe one (the offset is against the chunk; the stripe start is only
in the dm table).
"""

from __future__ import annotations

import re

from raidtop.actions.alignment import EXT4_BLOCK_KIB, alignment_hint
from raidtop.collect.stack.tree import above
from raidtop.model.md import MdArray
from raidtop.model.stack import Stack, StackNode

_EXT4_BLOCKS_KIB = (1, 2, 4, 64)
_OPT = re.compile(r"(?:^|,)(stripe|sunit|swidth)=(\d{1,12})(?=,|$)")


def misalignments(stack: Stack, arrays: dict[str, MdArray]) -> dict[str, str]:
    """Kernel name -> one sentence, for each layer on a striped array that does not align."""
    found: dict[str, str] = {}
    for array in arrays.values():
        hint = alignment_hint(array)
        if hint.chunk_kib is None or hint.data_disks is None or hint.xfs_su_kib is None:
            continue  # raid1, linear, unknown geometry: nothing to align
        stripe_kib = hint.chunk_kib * hint.data_disks
        for depth, node in above(stack, array.name):
            if depth == 1 and node.kind == "part" and node.start_sectors is not None:
                start_kib = node.start_sectors / 2
                if start_kib % stripe_kib:
                    shown = f"{start_kib:.0f}" if start_kib.is_integer() else f"{start_kib:.1f}"
                    found[node.name] = f"start {shown} KiB not on {array.name}'s {stripe_kib} KiB stripe"
            lv_note = _lv_note(node, array.name, hint.chunk_kib, stripe_kib) if depth >= 1 else None
            if lv_note is not None:
                found[node.name] = lv_note
            note = _fs_mismatch(node.fstype, node.fs_options or "", hint.chunk_kib, stripe_kib)
            if depth >= 1 and note is not None:
                found.setdefault(node.name, note)
    return found


def _lv_note(node: StackNode, array: str, chunk_kib: int, stripe_kib: int) -> str | None:
    offset, chunk = node.alignment_offset, chunk_kib * 1024
    if node.kind != "lvm" or offset is None or (offset >= 0 and offset % chunk == 0):
        return None
    if offset < 0:
        return f"kernel: LV misaligned on {array}'s {chunk_kib} KiB chunk ({stripe_kib} KiB stripe)"
    # The offset runs from the LV's start to the next chunk boundary; the start is that much past the last.
    past = (chunk - offset % chunk) / 1024
    shown = f"{past:.0f}" if past.is_integer() else f"{past:.1f}"
    return f"LV starts {shown} KiB past a {chunk_kib} KiB chunk of {array}, so off its {stripe_kib} KiB stripe"


def _fs_mismatch(fstype: str | None, options: str, chunk_kib: int, stripe_kib: int) -> str | None:
    values = {k: int(v) for k, v in _OPT.findall(options)}
    if fstype == "ext4" and "stripe" in values:
        # stripe= counts filesystem blocks and mountinfo does not say their size: mkfs.ext4
        # makes 1 KiB blocks on a small filesystem (seen in the VM), so any block size that
        # makes it the stripe is taken as a match.
        have = values["stripe"] * EXT4_BLOCK_KIB
        if all(values["stripe"] * block != stripe_kib for block in _EXT4_BLOCKS_KIB):
            return f"ext4 stripe={values['stripe']} ({have} KiB) ≠ stripe {stripe_kib} KiB"
    if fstype == "xfs" and "sunit" in values and "swidth" in values:
        su, sw = values["sunit"] // 2, values["swidth"] // 2  # 512-byte units in mountinfo
        if su != chunk_kib or sw != stripe_kib:
            return f"xfs su {su}K sw-width {sw}K ≠ chunk {chunk_kib}K stripe {stripe_kib}K"
    return None
