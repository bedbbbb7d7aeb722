"""Read temperatures and fan speeds from /sys/class/hwmon, as ``sensors`` does.

psutil's ``sensors_temperatures`` cannot be pointed at another root and drops
the link from a sensor to its block device, so raidtop walks sysfs itself.
"""

from __future__ import annotations

import os
import re

from raidtop.model.frozen import frozen_dataclass
from raidtop.collect.source import Root, SourceError
from raidtop.model.snapshot import Sensor

_INPUT = re.compile(r"^(temp|fan)(\d+)_input$")
# hwmon reports millidegrees for temperatures and RPM for fans.
_SCALE = {"temp": 1000.0, "fan": 1.0}


@frozen_dataclass
class _Input:
    """One ``*_input`` file and what ``sensors`` shows beside its value."""

    entry: str
    kind: str
    prefix: str
    label: str
    high: float | None
    crit: float | None


@frozen_dataclass
class _Chip:
    """What a chip directory says apart from its readings."""

    title: str
    device: str | None
    inputs: tuple[_Input, ...]


class SensorReader:
    """Reads every hwmon reading each sample; names, labels and limits only now and then.

    A chip's name, device and labels stay put while its directory listing and
    device link do, so a sample opens one file per reading instead of up to
    five. Limits can be rewritten by hand, so everything is read afresh every
    ``refresh_every`` samples.
    """

    def __init__(self, refresh_every: int = 60) -> None:
        self._refresh_every = refresh_every
        self._reads = 0
        self._chips: dict[tuple[str, tuple[str, ...], str | None], _Chip] = {}

    def read(self, root: Root) -> tuple[list[Sensor], list[str]]:
        """Return every temperature and fan reading of every hwmon chip, and notes."""
        self._reads += 1
        if self._reads % self._refresh_every == 0:
            self._chips = {}
        try:
            chips = root.listdir("/sys/class/hwmon")
        except SourceError:
            # No hwmon class at all is normal on VMs: the panel says so in words.
            return [], []
        sensors: list[Sensor] = []
        notes: list[str] = []
        seen: dict[tuple[str, tuple[str, ...], str | None], _Chip] = {}
        for chip_dir in sorted(chips, key=_natural_key):
            base = f"/sys/class/hwmon/{chip_dir}"
            try:
                entries = root.listdir(base)
            except SourceError as exc:
                notes.append(str(exc))
                continue
            key = (chip_dir, tuple(entries), root.readlink(f"{base}/device"))
            chip = self._chips.get(key) or _describe_chip(root, chip_dir, base, entries)
            seen[key] = chip
            sensors.extend(_read_values(root, base, chip, notes))
        self._chips = seen
        return sensors, notes


def read_sensors(root: Root) -> tuple[list[Sensor], list[str]]:
    """Return every temperature and fan reading of every hwmon chip (reads everything)."""
    return SensorReader().read(root)


def _describe_chip(root: Root, chip_dir: str, base: str, entries: list[str]) -> _Chip:
    name = (root.read_optional(f"{base}/name") or "").strip()
    device = _block_device_of(root, base)
    # Like sensors' "coretemp-isa-0000": the driver name plus which instance.
    title = f"{name}-{chip_dir.removeprefix('hwmon')}" if name else chip_dir
    if device:
        title = f"{title} ({device})"
    entry_set = set(entries)
    inputs = []
    for entry in sorted(entries, key=_natural_key):
        match = _INPUT.match(entry)
        if not match:
            continue
        kind, index = match.group(1), match.group(2)
        prefix = f"{kind}{index}"
        inputs.append(
            _Input(
                entry,
                kind,
                prefix,
                _read_label(root, base, prefix, entry_set) or prefix,
                _read_limit(root, base, prefix, ("max",), entry_set, kind),
                _read_limit(root, base, prefix, ("crit", "emergency"), entry_set, kind),
            )
        )
    return _Chip(title, device, tuple(inputs))


def _read_values(root: Root, base: str, chip: _Chip, notes: list[str]) -> list[Sensor]:
    sensors = []
    for item in chip.inputs:
        try:
            raw = root.read_text(f"{base}/{item.entry}").strip()
            value: float | None = int(raw) / _SCALE[item.kind]
        except SourceError as exc:
            notes.append(f"{chip.title} {item.prefix}: {exc}")
            value = None
        except ValueError:
            notes.append(f"{chip.title} {item.prefix}: not a number")
            value = None
        sensors.append(Sensor(chip.title, item.label, item.kind, value, item.high, item.crit, chip.device))
    return sensors


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
