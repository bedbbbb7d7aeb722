"""Parse ``mdadm --detail --export`` (KEY=VALUE lines) for cross-checks.

raidtop never needs mdadm to run; this parser lets the VM tests and the lab
compare what sysfs said with what mdadm says about the same array.
Device keys are ``MD_DEVICE_<tag>_ROLE`` and ``MD_DEVICE_<tag>_DEV``; the tag
varies between mdadm versions (``dev_sdb1``, ``sdb1``, even ``ev_sdb1``), so
devices are paired by tag and named from their ``_DEV`` path.
"""

from __future__ import annotations

import re
from typing import Any

from raidtop.model.md import MdadmDevice, MdadmExport

_DEVICE_KEY = re.compile(r"^MD_DEVICE_(?P<tag>.+)_(?P<kind>ROLE|DEV)$")
_SIMPLE = {
    "MD_LEVEL": "level",
    "MD_METADATA": "metadata",
    "MD_UUID": "uuid",
    "MD_NAME": "name",
    "MD_DEVNAME": "devname",
    "MD_CONTAINER": "container",
    "MD_MEMBER": "member",
}


def parse_mdadm_export(text: str) -> tuple[MdadmExport, list[str]]:
    """Parse one array's export; never raises, notes what it could not read."""
    notes: list[str] = []
    values: dict[str, Any] = {}  # MdadmExport's fields by name: str, or int for raid_devices
    devices: dict[str, dict[str, str]] = {}
    other: list[tuple[str, str]] = []
    for number, raw in enumerate(text.replace("\r", "").split("\n"), start=1):
        line = raw.strip()
        if not line:
            continue
        key, sep, value = line.partition("=")
        if not sep or not key:
            notes.append(f"mdadm export line {number} is not KEY=VALUE: {line[:60]!r}")
            continue
        key, value = key.strip(), value.strip().strip("'\"")
        device = _DEVICE_KEY.match(key)
        if device is not None:
            devices.setdefault(device.group("tag"), {})[device.group("kind")] = value
        elif key in _SIMPLE:
            values[_SIMPLE[key]] = value
        elif key == "MD_DEVICES":
            if value.isdigit():
                values["raid_devices"] = int(value)
            else:
                notes.append(f"mdadm export MD_DEVICES={value[:20]!r} is not a number")
        else:
            other.append((key, value))
    parsed = tuple(
        MdadmDevice(
            name=_device_name(tag, parts.get("DEV")),
            role=parts.get("ROLE"),
            dev=parts.get("DEV"),
        )
        for tag, parts in devices.items()
    )
    return MdadmExport(**values, devices=parsed, other=tuple(other)), notes


def _device_name(tag: str, dev: str | None) -> str:
    if dev:
        return dev.rstrip("/").rsplit("/", 1)[-1]
    return tag.removeprefix("dev_")
