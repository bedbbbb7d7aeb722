"""Read temperatures and fan speeds from /sys/class/hwmon, as ``sensors`` does.

psutil's ``sensors_temperatures`` cannot be pointed at another root and drops
the link from a sensor to its block device, so raidtop walks sysfs itself.
"""

from __future__ import annotations

import os
import re

from raidtop.collect.source import Root, SourceError
from raidtop.model import Sensor

_INPUT = re.compile(r"^(temp|fan)(\d+)_input$")
# hwmon reports millidegrees for temperatures and RPM for fans.
_SCALE = {"temp": 1000.0, "fan": 1.0}


def read_sensors(root: Root) -> tuple[list[Sensor], list[str]]:
    """Return every temperature and fan reading of every hwmon chip."""
    try:
        chips = root.listdir("/sys/class/hwmon")
    except SourceError:
        # No hwmon class at all is normal on VMs: the panel says so in words.
        return [], []
    sensors: list[Sensor] = []
    notes: list[str] = []
    for chip_dir in sorted(chips, key=_natural_key):
        base = f"/sys/class/hwmon/{chip_dir}"
        try:
            entries = root.listdir(base)
        except SourceError as exc:
            notes.append(str(exc))
            continue
        name = (root.read_optional(f"{base}/name") or "").strip()
        device = _block_device_of(root, base)
        # Like sensors' "coretemp-isa-0000": the driver name plus which instance.
        chip = f"{name}-{chip_dir.removeprefix('hwmon')}" if name else chip_dir
        if device:
            chip = f"{chip} ({device})"
        entry_set = set(entries)
        for entry in sorted(entries, key=_natural_key):
            match = _INPUT.match(entry)
            if not match:
                continue
            kind, index = match.group(1), match.group(2)
            prefix = f"{kind}{index}"
            try:
                raw = root.read_text(f"{base}/{entry}").strip()
                value: float | None = int(raw) / _SCALE[kind]
            except SourceError as exc:
                notes.append(f"{chip} {prefix}: {exc}")
                value = None
            except ValueError:
                notes.append(f"{chip} {prefix}: not a number")
                value = None
            label = _read_label(root, base, prefix, entry_set) or prefix
            high = _read_limit(root, base, prefix, ("max",), entry_set, kind)
            crit = _read_limit(root, base, prefix, ("crit", "emergency"), entry_set, kind)
            sensors.append(Sensor(chip, label, kind, value, high, crit, device))
    return sensors, notes


def _read_label(root: Root, base: str, prefix: str, entries: set[str]) -> str | None:
    if f"{prefix}_label" not in entries:
        return None
    text = root.read_optional(f"{base}/{prefix}_label")
    return text.strip() if text else None


def _read_limit(
    root: Root, base: str, prefix: str, names: tuple[str, ...], entries: set[str], kind: str
) -> float | None:
    if kind != "temp":
        return None
    for name in names:
        if f"{prefix}_{name}" in entries:
            text = root.read_optional(f"{base}/{prefix}_{name}")
            try:
                return int(text.strip()) / _SCALE[kind] if text else None
            except ValueError:
                return None
    return None


def _block_device_of(root: Root, chip_base: str) -> str | None:
    """Map a chip to the block device it measures (NVMe composite, drivetemp)."""
    target = root.readlink(f"{chip_base}/device")
    if not target:
        return None
    device_dir = f"{chip_base}/device"
    # NVMe: the hwmon's device is the controller nvmeN; its namespaces are nvmeNnM.
    leaf = os.path.basename(target.rstrip("/"))
    if re.fullmatch(r"nvme\d+", leaf):
        try:
            namespaces = [e for e in root.listdir(device_dir) if re.fullmatch(rf"{leaf}n\d+", e)]
        except SourceError:
            namespaces = []
        return namespaces[0] if namespaces else f"{leaf}n1"
    # drivetemp: the device is a SCSI device with a block/<sdX> directory.
    try:
        blocks = root.listdir(device_dir + "/block")
    except SourceError:
        return None
    return blocks[0] if blocks else None


def _natural_key(name: str) -> list[object]:
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name)]
