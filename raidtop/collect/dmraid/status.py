"""Parse dm-raid status lines into arrays.

A line is ``<name>: <start> <length> raid <raid_type> <#devs> <health>
<done>/<total> <sync_action> <mismatch_cnt> [<data_offset> [<journal>]]``.
Health characters: ``A`` alive and in sync, ``a`` alive but not in sync
(being recovered; during a resync or reshape every leg shows ``a``, which is
not a degradation), ``D`` dead (failed). Older kernels stop after the ratio
or the action; what is missing is ``None``.
"""

from __future__ import annotations

import re

from raidtop.collect.md.level import judge_health, sync_percent
from raidtop.model.md import MdArray, MdMember, MdSync

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+#-]{0,127}$")
_RATIO = re.compile(r"^(\d{1,19})/(\d{1,19})$")
MAX_LEGS = 64
"""dm-raid's own limit (``MAX_RAID_DEVICES``): more is a damaged line."""
_LEVELS = {"raid0": "raid0", "raid1": "raid1", "raid10": "raid10", "raid4": "raid4"}
_LAYOUTS = {  # dm-raid's raid_type suffix -> mdadm's layout word
    "la": "left-asymmetric",
    "ra": "right-asymmetric",
    "ls": "left-symmetric",
    "rs": "right-symmetric",
    "zr": "rotating-zero-restart",
    "nr": "rotating-n-restart",
    "nc": "rotating-n-continue",
    "n": "parity-last",
}
_ACTIONS = ("idle", "frozen", "resync", "recover", "check", "repair", "reshape")
_ROLES = {"A": ("in_sync",), "a": ("spare",), "D": ("faulty",)}


def level_and_layout(raid_type: str) -> tuple[str, str | None]:
    """``raid5_ls`` -> (``raid5``, ``left-symmetric``); ``raid1`` -> (``raid1``, None)."""
    if raid_type in _LEVELS:
        return _LEVELS[raid_type], None
    head, _, tail = raid_type.partition("_")
    if head in ("raid4", "raid5", "raid6"):
        return head, _LAYOUTS.get(tail.removesuffix("_6"), tail or None)
    return raid_type, None


def parse_status(text: str) -> tuple[list[MdArray], list[str]]:
    """Every dm-raid volume in ``dmsetup status`` output; other targets are skipped, damage is a note."""
    arrays: list[MdArray] = []
    notes: list[str] = []
    seen: set[str] = set()
    for line in text.splitlines():
        name, sep, rest = line.partition(": ")
        fields = rest.split()
        if not sep or len(fields) < 3 or fields[2] != "raid":
            continue
        array = _array(name, fields[3:], fields[1])
        if array is None or name in seen:
            notes.append(f"dm-raid: a status line could not be read: {line[:120]!r}")
            continue
        seen.add(name)
        arrays.append(array)
    return arrays, notes


def _array(name: str, f: list[str], length: str) -> MdArray | None:
    if not _NAME.match(name) or len(f) < 4:
        return None
    raid_type, count, health = f[0], f[1], f[2]
    if not count.isdigit() or not 0 < int(count) <= MAX_LEGS or len(health) != int(count):
        return None
    ratio = _RATIO.match(f[3])
    if ratio is None:
        return None
    done, total = int(ratio.group(1)), int(ratio.group(2))
    action = f[4] if len(f) > 4 and f[4] in _ACTIONS else None
    mismatch = int(f[5]) if len(f) > 5 and f[5].isdigit() and len(f[5]) < 19 else None
    level, layout = level_and_layout(raid_type)
    if action != "recover":
        # During a resync or reshape dm-raid shows every leg 'a': the data is not
        # missing anywhere, it is being made consistent (md shows them in_sync too).
        health = health.replace("a", "A")
    members = tuple(MdMember(f"{name}_rimage_{i}", slot=i, roles=_ROLES.get(c, ())) for i, c in enumerate(health))
    not_alive = sum(1 for c in health if c != "A")
    status = "".join("U" if c == "A" else "_" for c in health)
    sync = None
    if action not in (None, "idle", "frozen") or (action is None and done < total):
        # Sectors of 512 bytes; md's rule for the denominator (per device) is the kernel's here too.
        sync = MdSync(
            action=action or "resync", percent=sync_percent(done, total), done_kib=done // 2, total_kib=total // 2
        )
    health_word = judge_health(
        level=level,
        state="active",
        raid_disks=int(count),
        degraded=not_alive,
        status=status,
        layout=layout,
        members=members,
    )
    return MdArray(
        name=name,
        level=level,
        state="active",
        size_kib=int(length) // 2 if length.isdigit() and len(length) < 19 else None,
        health=health_word,
        raid_disks=int(count),
        degraded=not_alive,
        layout=layout,
        members=members,
        sync=sync,
        mismatch_cnt=mismatch,
        status=status,
        source="dm-raid",
        sysfs_sync_action=action,
        last_sync_action=action if action not in (None, "idle", "frozen") else None,
    )
