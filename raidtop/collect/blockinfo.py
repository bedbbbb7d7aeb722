"""Identify block devices: whole disk or partition, what kind, model and serial.

Identity does not change while a device exists, so the sampler asks only for
devices it has not seen before; this keeps sysfs walks out of the steady state.
"""

from __future__ import annotations

import re

from raidtop.collect.source import Root
from raidtop.model.snapshot import DiskIdentity

# Names that are partitions when sysfs cannot tell (a /proc-only fixture).
_PARTITION_NAME = re.compile(r"^(?:(?:[hsv]|xv)d[a-z]+\d+|.*\dp\d+|cciss/c\d+d\d+p\d+)$")
_KIND_BY_PREFIX = (("loop", "loop"), ("zram", "zram"), ("ram", "ram"), ("md", "md"), ("dm-", "dm"))


def identify(root: Root, name: str, major: int, minor: int) -> DiskIdentity:
    """Describe one device from sysfs and, where present, the udev database."""
    sys_name = name.replace("/", "!")  # cciss/c0d0 is cciss!c0d0 in sysfs
    kind, parent = _kind_and_parent(root, name, sys_name)
    props = _udev_properties(root, major, minor)
    base = f"/sys/block/{sys_name}" if kind != "partition" else None
    model = props.get("ID_MODEL", "").replace("_", " ") or (
        _strip(root.read_optional(f"{base}/device/model")) if base else None
    )
    serial = props.get("ID_SERIAL_SHORT") or (
        (_strip(root.read_optional(f"{base}/device/serial")) or _strip(root.read_optional(f"{base}/serial")))
        if base
        else None
    )
    return DiskIdentity(
        name=name,
        kind=kind,
        parent=parent,
        model=model or None,
        serial=serial or None,
        by_id=_shortest_by_id(props.get("_links", ())),
        by_id_links=props.get("_links", ()),
    )


def identify_kind(root: Root, name: str) -> DiskIdentity:
    """What ``identify`` says without the udev database and the model/serial reads.

    A few stat calls per device: enough to hide partitions and idle loops on
    the first frame while the full walk is still to come.
    """
    kind, parent = _kind_and_parent(root, name, name.replace("/", "!"))
    return DiskIdentity(name=name, kind=kind, parent=parent)


def _kind_and_parent(root: Root, name: str, sys_name: str) -> tuple[str, str | None]:
    if root.exists(f"/sys/class/block/{sys_name}/partition"):
        link = root.readlink(f"/sys/class/block/{sys_name}")
        parent = link.rstrip("/").split("/")[-2].replace("!", "/") if link else None
        return "partition", parent
    for prefix, kind in _KIND_BY_PREFIX:
        if name.startswith(prefix):
            return kind, None
    if root.exists(f"/sys/block/{sys_name}"):
        return "disk", None
    if root.exists("/sys/block"):
        # sysfs is there and does not list it as a disk: a partition of an
        # older tree without /sys/class/block (sysstat's recorded roots).
        parent = _parent_from_sys_block(root, sys_name)
        if parent:
            return "partition", parent
    if _PARTITION_NAME.match(name):
        return "partition", None
    return "disk", None


def _parent_from_sys_block(root: Root, sys_name: str) -> str | None:
    stem = re.sub(r"p?\d+$", "", sys_name)
    if stem and root.exists(f"/sys/block/{stem}/{sys_name}"):
        return stem.replace("!", "/")
    return None


def _udev_properties(root: Root, major: int, minor: int) -> dict:
    """Read the udev database entry libudev (and so pyudev) would read.

    Reading the file directly keeps it root-relative, so fixtures and
    recordings identify disks the same way as the live host.
    """
    text = root.read_optional(f"/run/udev/data/b{major}:{minor}")
    if not text:
        return {}
    props: dict = {}
    links: list[str] = []
    for line in text.splitlines():
        if line.startswith("E:"):
            key, _, value = line[2:].partition("=")
            props[key] = value
        elif line.startswith("S:disk/by-id/"):
            links.append(line[len("S:disk/by-id/") :])
    props["_links"] = tuple(links)
    return props


def _shortest_by_id(links: tuple[str, ...]) -> str | None:
    # wwn- names are stable but unreadable; prefer the model_serial ones.
    named = [link for link in links if not link.startswith("wwn-")] or list(links)
    return min(named, key=len) if named else None


def _strip(text: str | None) -> str | None:
    return text.strip() if text else None
