"""What the command palette finds: every array, member and disk of a snapshot, by any name it goes by.

Pure (no Textual, no I/O): the palette's provider matches what the user types
against :attr:`Findable.text` and opens :attr:`Findable.opens`. A disk is found
by its kernel name, model, serial and /dev/disk/by-id name (sysfs, udev and
smartctl all say them), a member by its name and its array's, an array by its
name, level and state. Every string here comes from the system: it is made
plain (control characters replaced) and the palette shows it as text.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

from raidtop.model.frozen import frozen_dataclass
from raidtop.model.md import MdArray
from raidtop.model.snapshot import Snapshot
from raidtop.presentation.md import member_role_text, state_badge
from raidtop.untrusted import plain

Opens = Literal["detail", "smart", "explain"]
"""The screen a hit opens: the array's detail, the disk's SMART, the figures behind the row (Explain)."""
SCREEN_WORDS: dict[Opens, str] = {"detail": "Array detail", "smart": "SMART", "explain": "Explain"}


@frozen_dataclass(slots=False)
class Findable:
    """One thing the palette can open.

    Attributes:
        kind: what it is: an array, a member of an array, a disk.
        name: ``md0``, ``sdb1``, ``sdb``.
        text: what the query is matched against, shown as the hit: names, model, serial, by-id, the screen.
        says: one line saying what it is (the hit's help line).
        opens: the screen it opens.
        target: the array (detail), the disk (SMART), or the explained row's key (``md0``, ``sdb``, ``md0/sdb1``).
        urgent: a degraded or failed array, or a faulty member: sorted first.
    """

    kind: Literal["array", "member", "disk"]
    name: str
    text: str
    says: str
    opens: Opens
    target: str
    urgent: bool = False


def findables(snap: Snapshot) -> list[Findable]:
    """Every array, member and disk of ``snap`` as palette entries: urgent ones first, then arrays, members, disks."""
    found = [*_arrays(snap), *_members(snap), *_disks(snap)]
    kinds = {"array": 0, "member": 1, "disk": 2}
    return sorted(found, key=lambda f: (not f.urgent, kinds[f.kind]))


def _joined(*parts: object) -> str:
    return " · ".join(plain(part) for part in parts if part)


def _disks_under(device: str, snap: Snapshot) -> tuple[str, ...]:
    """The whole disks a member sits on: as the sampler resolved them, else the disk or partition's parent."""
    resolved = snap.smart_disk_of.get(device)
    if resolved:
        return resolved
    return tuple(d.parent or d.name for d in snap.disks if d.name == device)


def _is_urgent(array: MdArray) -> bool:
    return array.health in ("degraded", "failed")


def _arrays(snap: Snapshot) -> Iterator[Findable]:
    for array in snap.arrays:
        badge, _tone = state_badge(array)
        members = ", ".join(
            f"{m.name} ({','.join(m.roles)})" if m.is_faulty or m.is_spare else m.name for m in array.members
        )
        says = (
            f"array {plain(array.name)}: {_joined(array.level, badge, array.counts_string)}; members {plain(members)}"
        )
        for opens in ("detail", "explain"):
            state = badge.lstrip("!~ ")
            # "recovering" alone hides that redundancy is gone: say both.
            health = array.health if array.health != "ok" and array.health not in state else ""
            what = _joined(array.name, f"{array.level or ''} array", health, state, array.status_string)
            yield Findable(
                "array",
                plain(array.name),
                f"{what} → {SCREEN_WORDS[opens]}",
                says,
                opens,
                array.name,
                _is_urgent(array),
            )


def _members(snap: Snapshot) -> Iterator[Findable]:
    for array in snap.arrays:
        for member in array.members:
            role = member_role_text(member, array)
            disks = _disks_under(member.name, snap)
            disk = next((d for d in disks if d in snap.smart), disks[0] if disks else None)
            slot = f"slot {member.slot}" if member.slot is not None else ""
            says = _joined(
                f"member {member.name} of {array.name} ({array.level or '?'})", slot, disk and f"disk {disk}"
            )
            what = _joined(member.name, f"member of {array.name}", role)
            targets: list[tuple[Opens, str, str]] = [
                ("detail", array.name, f"{SCREEN_WORDS['detail']} of {array.name}"),
                ("explain", f"{array.name}/{member.name}", SCREEN_WORDS["explain"]),
            ]
            if disk is not None:
                targets.append(("smart", disk, f"SMART of {disk}"))
            for opens, target, words in targets:
                yield Findable(
                    "member", plain(member.name), f"{what} → {plain(words)}", says, opens, target, member.is_faulty
                )


def _disks(snap: Snapshot) -> Iterator[Findable]:
    holders: dict[str, list[str]] = {}
    for array in snap.arrays:
        for member in array.members:
            for disk_name in _disks_under(member.name, snap):
                holders.setdefault(disk_name, []).append(f"{member.name} in {array.name}")
    for disk in snap.disks:
        if disk.kind != "disk":
            continue  # partitions are found through their disk, loop devices as lab members
        health = snap.smart.get(disk.name)
        model = disk.model or (health.model if health is not None else None)
        serial = disk.serial or (health.serial if health is not None else None)
        # The shortest by-id name in words, the others (wwn-…, nvme-eui.…) after it, so each finds the disk.
        links = [disk.by_id] if disk.by_id else []
        links += [link for link in disk.by_id_links if link != disk.by_id]
        what = _joined(disk.name, "disk", model, serial and f"serial {serial}", links and "by-id " + " ".join(links))
        verdict = f"SMART {health.verdict}" if health is not None else "no SMART reading yet"
        held = "holds " + ", ".join(holders[disk.name]) if disk.name in holders else "in no md array"
        says = _joined(f"disk {disk.name}", verdict, held)
        for opens in ("smart", "explain"):
            yield Findable("disk", plain(disk.name), f"{what} → {SCREEN_WORDS[opens]}", says, opens, disk.name)
