"""The kernel's own md files, parsed independently of raidtop, to check raidtop against.

The guest driver keeps, per step, the exact files raidtop's sampler read
(recording keys ``f:<path>``, ``d:<dir>``, ``l:<link>``, as
``raidtop.collect.recording.roots`` writes them). This module reads them the
simplest way that works, without raidtop's parsers, so a test can say
"raidtop reported X where the kernel's file said Y at that same moment".

Standard library only; runs on the host and in unit tests.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

RUNNING_ACTIONS = ("resync", "recover", "check", "repair", "reshape")
_MDSTAT_MEMBER = re.compile(r"^(\S+)\[(\d+)\](\([A-Z]\))*$")
_COUNTS = re.compile(r"\[(\d+)/(\d+)\] \[([U_]+)\]")
_PROGRESS = re.compile(
    r"(resync|recovery|check|repair|reshape)\s*=\s*([\d.]+)% \((\d+)/(\d+)\) finish=([\d.]+)min speed=(\d+)K/sec"
)


@dataclass(frozen=True)
class KernelMember:
    """One ``dev-*`` directory: the words of its state file and its slot."""

    name: str
    roles: tuple[str, ...]
    slot: int | None


def phantom_recovery(kernel: KernelArray) -> bool:
    """The kernel's brief ``recover`` at 0 with no speed, right after a failure with no spare.

    raidtop deliberately reports no sync then (raidtop/collect/md/read.py:
    _without_phantom_recovery): nothing is being rebuilt onto.
    """
    done = kernel.sync_completed[0] if kernel.sync_completed else 0
    rebuilding_onto = any("spare" in m.roles and m.slot is not None for m in kernel.members.values())
    return kernel.sync_action == "recover" and not kernel.sync_speed and done == 0 and not rebuilding_onto


@dataclass(frozen=True)
class KernelArray:
    """One array as its sysfs files said it (values as the kernel wrote them)."""

    name: str
    level: str | None
    array_state: str | None
    raid_disks: int | None
    degraded: int | None
    sync_action: str | None
    sync_completed: tuple[int, int] | None
    """(done, total) in 512-byte sectors; None for "none" or "delayed"."""
    sync_speed: int | None
    mismatch_cnt: int | None
    sync_speed_max: int | None
    members: dict[str, KernelMember] = field(default_factory=dict)


@dataclass(frozen=True)
class MdstatArray:
    """One array's lines of /proc/mdstat."""

    name: str
    level: str | None
    members: dict[str, str]
    """name -> flag: "" in use, "F" faulty, "S" spare."""
    raid_disks: int | None
    working: int | None
    pattern: str | None
    progress: dict[str, Any] | None
    """{"action", "percent", "done_kib", "total_kib", "finish_min", "speed_kib_s"}."""


def _first_int(text: str | None) -> int | None:
    if text is None:
        return None
    match = re.match(r"\s*(\d+)", text)
    return int(match.group(1)) if match else None


def _text(frame: dict[str, Any], path: str) -> str | None:
    value = frame.get(f"f:{path}")
    return value.strip() if isinstance(value, str) else None


def kernel_array(frame: dict[str, Any], md: str) -> KernelArray | None:
    """``md`` as /sys/block/<md>/md showed it in ``frame``; None when not listed."""
    base = f"/sys/block/{md}/md"
    listing = frame.get(f"d:{base}")
    if not isinstance(listing, list):
        return None
    slots_by_link = {}
    for entry in listing:
        if re.fullmatch(r"rd\d+", entry):
            target = frame.get(f"l:{base}/{entry}")
            if isinstance(target, str):
                slots_by_link[target.rsplit("/", 1)[-1]] = int(entry[2:])
    members = {}
    for entry in listing:
        if not entry.startswith("dev-"):
            continue
        state = _text(frame, f"{base}/{entry}/state")
        roles = tuple(word for word in (state or "").split(",") if word)
        slot = slots_by_link.get(entry)
        if slot is None:
            slot_text = _text(frame, f"{base}/{entry}/slot")
            slot = int(slot_text) if slot_text and slot_text.isdigit() else None
        members[entry[4:]] = KernelMember(entry[4:], roles, slot)
    completed = _text(frame, f"{base}/sync_completed")
    done_total = None
    if completed and "/" in completed:
        done, total = (int(part) for part in completed.split("/"))
        done_total = (done, total)
    return KernelArray(
        name=md,
        level=_text(frame, f"{base}/level"),
        array_state=_text(frame, f"{base}/array_state"),
        raid_disks=_first_int(_text(frame, f"{base}/raid_disks")),
        degraded=_first_int(_text(frame, f"{base}/degraded")),
        sync_action=_text(frame, f"{base}/sync_action"),
        sync_completed=done_total,
        sync_speed=_first_int(_text(frame, f"{base}/sync_speed")),
        mismatch_cnt=_first_int(_text(frame, f"{base}/mismatch_cnt")),
        sync_speed_max=_first_int(_text(frame, f"{base}/sync_speed_max")),
        members=members,
    )


def mdstat_array(frame: dict[str, Any], md: str) -> MdstatArray | None:
    """``md``'s block of /proc/mdstat in ``frame``; None when it is not there."""
    text = frame.get("f:/proc/mdstat")
    if not isinstance(text, str):
        return None
    lines = text.splitlines()
    for index, line in enumerate(lines):
        if not line.startswith(f"{md} : "):
            continue
        words = line.split(" : ", 1)[1].split()
        level = next((w for w in words if w.startswith("raid") or w == "linear"), None)
        members = {}
        for word in words:
            match = _MDSTAT_MEMBER.match(word)
            if match:
                flags = re.findall(r"\(([A-Z])\)", word)
                members[match.group(1)] = flags[0] if flags else ""
        block = []
        for following in lines[index + 1 :]:
            if not following.startswith(" "):
                break
            block.append(following)
        detail = "\n".join(block)
        counts = _COUNTS.search(detail)
        progress_match = _PROGRESS.search(detail)
        progress = None
        if progress_match:
            action, percent, done, total, finish, speed = progress_match.groups()
            progress = {
                "action": {"recovery": "recover"}.get(action, action),
                "percent": float(percent),
                "done_kib": int(done),
                "total_kib": int(total),
                "finish_min": float(finish),
                "speed_kib_s": int(speed),
            }
        return MdstatArray(
            name=md,
            level=level,
            members=members,
            raid_disks=int(counts.group(1)) if counts else None,
            working=int(counts.group(2)) if counts else None,
            pattern=counts.group(3) if counts else None,
            progress=progress,
        )
    return None


def md_names(frame: dict[str, Any]) -> list[str]:
    """The md arrays listed under /sys/block in ``frame``."""
    listing = frame.get("d:/sys/block")
    return sorted(name for name in listing if name.startswith("md")) if isinstance(listing, list) else []


def ghost_sync_from_mdstat(sync: dict[str, Any], kernel: KernelArray, progress: dict[str, Any] | None) -> bool:
    """True when raidtop shows mdstat's progress line although sysfs said idle.

    raidtop reads /proc/mdstat, then sysfs. When a sync ends between the two
    reads, mdstat still has its progress line and sysfs says ``idle``;
    raidtop's merge (``collect/md.py: _merge_sync``) then fills the missing
    sysfs sync from mdstat and shows a sync that is already over, for one
    sample. Seen on raid10 at the end of a creation resync.
    """
    return (
        kernel.sync_action == "idle"
        and progress is not None
        and progress["action"] == sync["action"]
        and progress["done_kib"] == sync["done_kib"]
    )


def mismatches(
    reported: dict[str, Any], frame: dict[str, Any], with_mdstat: bool = False, tolerate_ghost_sync: bool = False
) -> list[str]:
    """Where raidtop's reported array (its JSON) disagrees with the kernel's files.

    Returns one sentence per disagreement (empty: they agree). ``with_mdstat``
    also compares the /proc/mdstat block; raidtop reads mdstat a moment
    before sysfs, so only steps taken after the array settled should ask.
    ``tolerate_ghost_sync`` accepts the one known disagreement
    :func:`ghost_sync_from_mdstat` describes.
    """
    md = reported["name"]
    kernel = kernel_array(frame, md)
    if kernel is None:
        return [f"{md}: raidtop reports it, but /sys/block/{md}/md was not listed"]
    problems = []

    def differ(what: str, ours: Any, theirs: Any) -> None:
        if ours != theirs:
            problems.append(f"{md}: {what}: raidtop {ours!r}, kernel {theirs!r}")

    differ("level", reported["level"], kernel.level)
    differ("state", reported["state"], kernel.array_state)
    differ("raid_disks", reported["raid_disks"], kernel.raid_disks)
    differ("degraded", reported["degraded"], kernel.degraded)
    differ("mismatch_cnt", reported["mismatch_cnt"], kernel.mismatch_cnt)
    differ("sync_speed_max", reported["sync_speed_max"], kernel.sync_speed_max)
    ours_members = {m["name"]: m for m in reported["members"]}
    differ("members", sorted(ours_members), sorted(kernel.members))
    for name in sorted(set(ours_members) & set(kernel.members)):
        differ(f"{name} roles", tuple(ours_members[name]["roles"]), kernel.members[name].roles)
        differ(f"{name} slot", ours_members[name]["slot"], kernel.members[name].slot)

    sync = reported["sync"]
    stat = mdstat_array(frame, md)
    progress = stat.progress if stat is not None else None
    if kernel.sync_action in RUNNING_ACTIONS:
        if sync is None:
            if not phantom_recovery(kernel):
                problems.append(f"{md}: kernel sync_action {kernel.sync_action!r}, raidtop reports no sync")
        else:
            differ("sync action", sync["action"], kernel.sync_action)
            if progress is not None:
                # raidtop takes progress from mdstat when it has a line
                # (sysfs sync_completed only moves every 1/16 of the device).
                differ("sync done_kib (mdstat)", sync["done_kib"], progress["done_kib"])
                differ("sync total_kib (mdstat)", sync["total_kib"], progress["total_kib"])
                # Percent from the counts (issue 13), not the kernel's printed
                # per-mille, which md truncates on the way (up to 1.5 points low).
                done, total = progress["done_kib"], progress["total_kib"]
                differ("sync percent (mdstat counts)", sync["percent"], round(done * 100 / total, 2) if total else None)
                differ(
                    "sync eta_s_kernel (mdstat finish=)", sync["eta_s_kernel"], round(progress["finish_min"] * 60, 1)
                )
            elif kernel.sync_completed is not None:
                done, total = kernel.sync_completed
                differ("sync done_kib (sync_completed)", sync["done_kib"], done // 2)
                differ("sync total_kib (sync_completed)", sync["total_kib"], total // 2)
                differ(
                    "sync percent (sync_completed)", sync["percent"], round(done * 100 / total, 2) if total else None
                )
            if kernel.sync_speed is not None:
                differ("sync speed", sync["speed_kib_s"], kernel.sync_speed)
    elif sync is not None and sync["action"] in RUNNING_ACTIONS:
        if ghost_sync_from_mdstat(sync, kernel, progress):
            if not tolerate_ghost_sync:
                problems.append(
                    f"{md}: raidtop reports mdstat's {sync['action']} {sync['percent']}%, "
                    f"though sysfs sync_action read {kernel.sync_action!r} in the same sample"
                )
        else:
            problems.append(
                f"{md}: raidtop reports a running {sync['action']}, kernel sync_action {kernel.sync_action!r}"
            )

    if with_mdstat:
        if stat is None:
            problems.append(f"{md}: not in /proc/mdstat")
        else:
            differ("mdstat members", sorted(stat.members), sorted(kernel.members))
            working = None if reported["degraded"] is None else reported["raid_disks"] - reported["degraded"]
            if stat.working is not None:
                differ("mdstat [n/m]", (reported["raid_disks"], working), (stat.raid_disks, stat.working))
    return problems


def step_mismatches(
    step: dict[str, Any], with_mdstat: bool | None = None, tolerate_ghost_sync: bool = False
) -> list[str]:
    """Every disagreement in one driver step; arrays raidtop missed count too."""
    frame = step["kernel"]
    settled = "extra" in step if with_mdstat is None else with_mdstat
    problems = []
    reported_names = [a["name"] for a in step["reported"]["arrays"]]
    for md in md_names(frame):
        if md not in reported_names and kernel_array(frame, md) is not None:
            problems.append(f"{md}: in sysfs but not reported by raidtop")
    for array in step["reported"]["arrays"]:
        problems.extend(mismatches(array, frame, with_mdstat=settled, tolerate_ghost_sync=tolerate_ghost_sync))
    return [f"step {step['label']!r} at {step['t']}s: {p}" for p in problems]
