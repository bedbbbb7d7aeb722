"""What each md level tolerates and how mdadm names its layouts.

Shared by the sysfs and /proc/mdstat readers so both judge an array's health
and name its layout the same way, whichever source they came from.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from raidtop.model.md import ROLE_ORDER, MdMember

NO_REDUNDANCY = frozenset({"raid0", "linear"})
"""Levels where any missing member loses data, and that show no ``[UU]``."""

# mdadm's names for raid4/5/6 algorithms (maps.c r5layout / r6layout), by the
# numbers the kernel prints ("algorithm 2") and keeps in sysfs ``layout``.
_R5_LAYOUTS = {
    0: "left-asymmetric",
    1: "right-asymmetric",
    2: "left-symmetric",
    3: "right-symmetric",
    4: "parity-first",
    5: "parity-last",
}
_R6_LAYOUTS = {
    **_R5_LAYOUTS,
    8: "ddf-zero-restart",
    9: "ddf-N-restart",
    10: "ddf-N-continue",
    16: "left-asymmetric-6",
    17: "right-asymmetric-6",
    18: "left-symmetric-6",
    19: "right-symmetric-6",
    20: "parity-first-6",
}
_R0_LAYOUTS = {1: "original", 2: "alternate"}

_R10_PART = re.compile(r"(near|far|offset)=(\d+)")
_DIGITS = re.compile(r"(\d+)")


def layout_name(level: str | None, number: int) -> str | None:
    """Name a sysfs ``layout`` number as ``mdadm --detail`` does, or ``None`` where a level has none."""
    if level in ("raid4", "raid5"):
        return _R5_LAYOUTS.get(number, str(number))
    if level == "raid6":
        return _R6_LAYOUTS.get(number, str(number))
    if level == "raid10":
        near = number & 0xFF
        far = (number >> 8) & 0xFF
        offset = bool(number & 0x10000)
        return raid10_layout(near, far, offset)
    if level == "raid0":
        return _R0_LAYOUTS.get(number)
    return None


def raid10_layout(near: int, far: int, offset: bool = False) -> str:
    """``near=2``, ``far=2``, ``offset=2`` or ``near=2,far=2``, as mdadm prints them."""
    parts = []
    if near != 1:
        parts.append(f"near={near}")
    if far != 1:
        parts.append(f"{'offset' if offset else 'far'}={far}")
    return ",".join(parts) or "near=1"


def _raid10_copies(layout: str | None) -> tuple[int, int] | None:
    if not layout:
        return None
    near, far = 1, 1
    for kind, count in _R10_PART.findall(layout):
        if kind == "near":
            near = int(count)
        else:
            far = int(count)
    return near, far


def raid10_copy_sets(layout: str | None, disks: int) -> list[frozenset[int]] | None:
    """The slots holding the copies of each chunk position; ``None`` when the layout is unknown."""
    copies = _raid10_copies(layout)
    if copies is None or disks <= 0:
        return None
    near, far = copies
    # raid10_find_phys: near copies sit side by side, each far copy is
    # shifted by near_copies devices; offset layouts shift the same way.
    return [
        frozenset((stripe * near + j + k * near) % disks for j in range(near) for k in range(far))
        for stripe in range(disks)
    ]


def _raid10_lost_data(status: str, layout: str | None) -> bool | None:
    """True if some chunk has lost every copy; ``None`` when the layout is unknown."""
    copy_sets = raid10_copy_sets(layout, len(status))
    if copy_sets is None:
        return None
    return any(all(status[d] == "_" for d in devices) for devices in copy_sets)


def tolerated_failures(level: str | None, raid_disks: int | None) -> int | None:
    """How many members a level can lose and keep all data; ``None`` when it depends."""
    if level in ("raid1", "multipath"):
        return None if raid_disks is None else raid_disks - 1
    if level in ("raid4", "raid5"):
        return 1
    if level == "raid6":
        return 2
    if level in NO_REDUNDANCY:
        return 0
    return None


def judge_health(
    *,
    level: str | None,
    state: str | None,
    raid_disks: int | None,
    degraded: int | None,
    status: str | None,
    layout: str | None,
    members: Sequence[MdMember],
) -> str:
    """Say whether an array is ok, degraded, failed or inactive.

    A container never runs by design, so it is ``ok``; its member arrays
    carry the real health.
    """
    if level == "container":
        return "ok"
    if state in ("inactive", "clear"):
        return "inactive"
    if state == "broken":
        return "failed"
    if level in NO_REDUNDANCY:
        return "failed" if any(m.is_faulty for m in members) else "ok"
    missing = degraded
    if missing is None and status is not None:
        missing = status.count("_")
    if not missing:
        return "ok"
    if level == "raid10":
        lost = _raid10_lost_data(status, layout) if status else None
        if lost is None:
            lost = raid_disks is not None and missing >= raid_disks
        return "failed" if lost else "degraded"
    tolerance = tolerated_failures(level, raid_disks)
    if tolerance is not None and missing > tolerance:
        return "failed"
    return "degraded"


def sync_percent(done: int | None, total: int | None) -> float | None:
    """Progress in percent from the counts, to 0.01.

    Not the kernel's printed per-mille, which is (done>>10)*1000/((total>>10)+1)
    and so up to 1.5 points low on small arrays (74.4 % for 47664/63488).
    """
    if done is None or not total or done > total:
        return None
    return round(done * 100 / total, 2)


def sort_roles(words: Iterable[str]) -> tuple[str, ...]:
    """Put role words in the kernel's order; unknown words keep theirs, at the end."""
    words = list(words)
    known = [w for w in ROLE_ORDER if w in words]
    extra = [w for w in words if w not in ROLE_ORDER and w]
    return tuple(known + list(dict.fromkeys(extra)))


def natural_key(name: str) -> tuple:
    """Sort md2 before md10 and md_d0 after md127."""
    return tuple(int(part) if part.isdigit() else part for part in _DIGITS.split(name))


def container_of(metadata: str | None) -> tuple[str | None, str | None]:
    """Split ``external:/md127/0`` into ("md127", "0").

    mdmon writes ``external:-md127/0`` while it holds a subarray read-only,
    so ``-`` is accepted in place of the first ``/``.
    """
    if not metadata or not metadata.startswith("external:"):
        return None, None
    rest = metadata[len("external:") :]
    if not rest or rest[0] not in "/-":
        return None, None
    container, _, member = rest[1:].partition("/")
    return (container or None), (member or None)
