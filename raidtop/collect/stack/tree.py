"""The block-device graph: holders up to mountpoints, slaves down to disks.

One pass over ``/sys/class/block`` builds a :class:`StackNode` per device;
:func:`above` and :func:`below` walk it. Filesystem usage comes from
``statvfs`` on the live root only: a fixture or recording root has no
filesystem to ask, so its usage is unknown (``None``) unless the caller
passes a ``usage`` function.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace

from raidtop.collect.source import Root, SourceError
from raidtop.collect.stack.mounts import Mount, read_mounts
from raidtop.collect.whole_disk import valid_name
from raidtop.model.stack import FsUsage, Stack, StackNode

MAX_DEVICES = 4096
"""Devices read at most per pass (a bound on one sample's work)."""
_MAX_DEPTH = 16
_IDLE = ("loop", "ram", "zram", "nbd")
_DM_KINDS = ("lvm", "crypt", "mpath", "dm")

Usage = Callable[[str], "tuple[int, ...] | None"]
"""``mountpoint -> (size_bytes, used_bytes[, avail_bytes])`` or ``None`` when unknown."""


def live_usage(mountpoint: str) -> tuple[int, int, int] | None:
    """``statvfs`` of a mounted local filesystem: (size, used, available) in bytes, as ``df`` counts."""
    try:
        st = os.statvfs(mountpoint)
    except OSError:
        return None
    size = st.f_blocks * st.f_frsize
    return size, size - st.f_bfree * st.f_frsize, st.f_bavail * st.f_frsize


def read_stack(root: Root, usage: Usage | None = None) -> Stack:
    """Read the whole stack under ``root``; ``usage`` defaults to statvfs on the live root only."""
    if usage is None and root.is_live:
        usage = live_usage
    notes: list[str] = []
    if not root.exists("/sys/class/block"):
        # Every kernel has it; a root without it (the demo, a recording made before
        # raidtop read the stack, a /proc-only fixture) has no stack, which is no fault.
        return Stack({}, ())
    try:
        names = list(device_names(root))
    except SourceError as exc:
        return Stack({}, (f"storage stack: {exc}",))
    mounts, more = read_mounts(root)
    notes.extend(more)
    # An unbound loop/ram device has size 0 and nothing on it: one read, not eight
    # (a test host has hundreds of them).
    names = [n for n in names if not n.startswith(_IDLE) or _int(root.read_optional(f"/sys/class/block/{n}/size"))]
    raw = {name: _read_node(root, name, mounts, usage) for name in names}
    parts: dict[str, list[str]] = {}
    for name, node in raw.items():
        for disk in node.under if node.kind == "part" else ():
            parts.setdefault(disk, []).append(name)
    nodes = {}
    for name, node in raw.items():
        if (
            node.kind in ("loop", "ram")
            and not node.holders
            and not node.mountpoints
            and not parts.get(name)
            and not node.size_bytes
        ):
            continue  # an unused loop/ram device is noise, as lsblk hides it
        holders = tuple(sorted(set(node.holders) | set(parts.get(name, ()))))
        nodes[name] = replace(node, holders=holders)
    return Stack(nodes, tuple(notes))


def device_names(root: Root) -> tuple[str, ...]:
    """The block devices under ``root``, sorted (at most :data:`MAX_DEVICES`); raises SourceError."""
    return tuple(n for n in root.listdir("/sys/class/block") if valid_name(n))[:MAX_DEVICES]


def with_fresh_usage(stack: Stack, root: Root, usage: Usage | None = None) -> Stack:
    """``stack`` with each mounted filesystem's usage asked again (the same object when none changed).

    A filesystem fills from one second to the next; the device graph under it
    changes only when devices come, go or are rebuilt, which the caller watches.
    """
    if usage is None and root.is_live:
        usage = live_usage
    if usage is None:
        return stack
    changed = {}
    for name, node in stack.nodes.items():
        if node.mountpoints:
            fs = _fs_usage(usage, node.mountpoints[0])
            if fs != node.usage:
                changed[name] = replace(node, usage=fs)
    return Stack({**stack.nodes, **changed}, stack.notes) if changed else stack


def above(stack: Stack, name: str) -> list[tuple[int, StackNode]]:
    """``name`` and everything built on it, depth-first, with each node's depth."""
    return _walk(stack, name, lambda n: n.holders)


def below(stack: Stack, name: str) -> list[tuple[int, StackNode]]:
    """``name`` and everything it is built on, down to whole disks, with depth."""
    return _walk(stack, name, lambda n: n.under)


def _walk(stack: Stack, name: str, step: Callable[[StackNode], tuple[str, ...]]) -> list[tuple[int, StackNode]]:
    out: list[tuple[int, StackNode]] = []
    seen: set[str] = set()

    def visit(n: str, depth: int) -> None:
        node = stack.nodes.get(n)
        # sysfs in a --root tree is any tree: a cycle or a deep chain must end.
        if node is None or n in seen or depth > _MAX_DEPTH:
            return
        seen.add(n)
        out.append((depth, node))
        for nxt in step(node):
            visit(nxt, depth + 1)

    visit(name, 0)
    return out


def _read_node(root: Root, name: str, mounts: dict[str, list[Mount]], usage: Usage | None) -> StackNode:
    base = f"/sys/class/block/{name}"
    size = _int(root.read_optional(f"{base}/size"))
    under: tuple[str, ...]
    start = None
    if root.exists(f"{base}/partition"):
        link = root.readlink(base)
        parent = link.rstrip("/").split("/")[-2] if link else ""
        under = (parent,) if valid_name(parent) else ()
        start, kind, label = _int(root.read_optional(f"{base}/start")), "part", name
    else:
        under = _list(root, f"{base}/slaves")
        kind, label = _kind(root, base, name)
    # Only a dm device's offset is kept: the LV check needs it, and a disk's is the drive's own.
    offset = _offset(root.read_optional(f"{base}/alignment_offset")) if kind in _DM_KINDS else None
    dev = (root.read_optional(f"{base}/dev") or "").strip()
    mine = mounts.get(dev, [])
    fs = _fs_usage(usage, mine[0].mountpoint) if mine and usage is not None else None
    return StackNode(
        name=name,
        kind=kind,
        label=label,
        size_bytes=size * 512 if size is not None else None,
        holders=_list(root, f"{base}/holders"),
        under=under,
        start_sectors=start,
        fstype=mine[0].fstype if mine else None,
        fs_options=mine[0].options if mine else None,
        mountpoints=tuple(dict.fromkeys(m.mountpoint for m in mine)),
        usage=fs,
        alignment_offset=offset,
    )


def _fs_usage(usage: Usage, mountpoint: str) -> FsUsage | None:
    answer = usage(mountpoint)
    if answer is None or answer[0] <= 0:
        return None
    avail = max(0, answer[2]) if len(answer) > 2 else None
    return FsUsage(answer[0], max(0, min(answer[1], answer[0])), avail)


def _kind(root: Root, base: str, name: str) -> tuple[str, str]:
    uuid = (root.read_optional(f"{base}/dm/uuid") or "").strip()
    dm_name = (root.read_optional(f"{base}/dm/name") or "").strip()
    if dm_name or uuid:
        prefix = uuid.split("-", 1)[0].upper() if "-" in uuid else ""
        kind = {"LVM": "lvm", "CRYPT": "crypt", "MPATH": "mpath"}.get(prefix, "dm")
        return kind, dm_name or name
    if root.exists(f"{base}/md"):
        return "raid", name
    if name.startswith(_IDLE):
        return ("loop" if name.startswith("loop") else "ram"), name
    return "disk", name


def _list(root: Root, path: str) -> tuple[str, ...]:
    try:
        return tuple(n for n in root.listdir(path) if valid_name(n))
    except SourceError:
        return ()


def _offset(text: str | None) -> int | None:
    """``alignment_offset``: bytes, or -1 for the kernel's "misaligned"; bounded like any outside number."""
    value = _int(text)
    return -1 if value is None and (text or "").strip() == "-1" else value


def _int(text: str | None) -> int | None:
    try:
        value = int((text or "").strip())
    except ValueError:
        return None
    return value if 0 <= value < 1 << 62 else None
