"""How the storage stack is described: lsblk-like tree rows with state and usage.

Pure functions over the stack and the md model (no Textual, no I/O), shared
by the Stack screen, the array detail and the dashboard's notes.
"""

from __future__ import annotations

from dataclasses import replace

from raidtop.model.frozen import frozen_dataclass
from raidtop.collect.stack.full import FULL_PCT
from raidtop.collect.stack.tree import below
from raidtop.model.stack import Stack, StackNode
from raidtop.presentation.stack_alignment import misalignments
from raidtop.presentation.format import DASH, kib
from raidtop.presentation.md import state_badge
from raidtop.model.md import MdArray

_KINDS = {
    "raid": "raid",
    "lvm": "lvm",
    "crypt": "crypt",
    "mpath": "mpath",
    "dm": "dm",
    "part": "part",
    "disk": "disk",
    "loop": "loop",
    "ram": "ram",
}


@frozen_dataclass(slots=False)
class StackRow:
    """One line of the tree as shown."""

    key: str
    """Unique per line: the path of kernel names from the root (``sda/sda2/md0``)."""
    name: str
    """The tree prefix and the device's label (``└─vg0-root``)."""
    kind: str
    size: str
    state: str
    state_tone: str | None
    fs: str
    used: str
    used_tone: str | None
    mount: str
    note: str = ""
    """What is wrong with this layer: a misalignment against the array under it."""


def used_text(node: StackNode) -> tuple[str, str | None]:
    """``97 %`` with a tone, ``usage unknown`` for a mount statvfs did not answer, or blank."""
    if node.usage is not None:
        pct = node.usage.used_pct
        return f"{node.usage.df_pct} %", "crit" if pct >= FULL_PCT else ("warn" if pct >= 85.0 else None)
    return ("usage unknown", "dim") if node.mountpoints else ("", None)


def node_state(node: StackNode, arrays: dict[str, MdArray]) -> tuple[str, str | None]:
    """An md array's or LVM RAID volume's state badge; other layers have no state of their own to show."""
    array = arrays.get(node.name)
    if array is None and node.kind in ("lvm", "dm"):
        found = arrays.get(node.label)  # an LVM RAID volume: the Arrays panel names it vg-lv
        array = found if found is not None and found.source == "dm-raid" else None
    if array is not None and (node.kind == "raid" or array.source == "dm-raid"):
        level = f"{array.level} " if array.level else ""
        badge, tone = state_badge(array)
        return level + badge, tone
    return "", None


def tree_rows(stack: Stack, arrays: dict[str, MdArray], roots: list[str] | None = None) -> list[StackRow]:
    """The stack from ``roots`` (default: every whole disk) up, lsblk-style.

    A device on several parents (an array on its members) is drawn in full the
    first time and as one line ``(above)`` after, so a 24-disk array is not
    repeated 24 times.
    """
    rows: list[StackRow] = []
    drawn: set[str] = set()
    for root in roots if roots is not None else stack.roots():
        _draw(stack, arrays, root, "", "", root, rows, drawn, 0)
    notes = misalignments(stack, arrays)
    return [
        replace(r, note="! " + notes[r.key.rsplit("/", 1)[-1]]) if r.key.rsplit("/", 1)[-1] in notes else r
        for r in rows
    ]


def _draw(
    stack: Stack,
    arrays: dict[str, MdArray],
    name: str,
    lead: str,
    branch: str,
    key: str,
    rows: list[StackRow],
    drawn: set[str],
    depth: int,
) -> None:
    node = stack.nodes.get(name)
    if node is None or depth > 16:
        return
    again = name in drawn
    drawn.add(name)
    state, tone = node_state(node, arrays)
    used, used_tone = used_text(node)
    label = node.label + ("  (above)" if again and node.holders else "")
    rows.append(
        StackRow(
            key=key,
            name=lead + branch + label,
            kind=_KINDS.get(node.kind, node.kind),
            size=kib(node.size_bytes / 1024) if node.size_bytes is not None else DASH,
            state=state,
            state_tone=tone,
            fs=node.fstype or "",
            used=used,
            used_tone=used_tone,
            mount=", ".join(node.mountpoints),
        )
    )
    if again:
        return
    child_lead = lead + ("│ " if branch == "├─" else "  " if branch else "")
    for i, holder in enumerate(node.holders):
        last = i == len(node.holders) - 1
        _draw(stack, arrays, holder, child_lead, "└─" if last else "├─", f"{key}/{holder}", rows, drawn, depth + 1)


def below_text(stack: Stack, name: str) -> str:
    """What ``name`` is built on, down to whole disks: ``sda2 on sda · sdb1 on sdb``."""
    node = stack.nodes.get(name)
    if node is None:
        return "not in /sys/class/block"
    parts = []
    for under in node.under:
        disks = [n.name for _, n in below(stack, under) if not n.under and n.name != under]
        parts.append(f"{under} on {', '.join(disks)}" if disks else under)
    return " · ".join(parts) or "nothing (a whole device)"
