"""Parse /proc/meminfo, /proc/vmstat, /proc/loadavg, /proc/uptime and PSI files."""

from __future__ import annotations

import math

from raidtop.model.snapshot import MemInfo, Pressure, VmCounters

_MEMINFO_KEYS = {
    "MemTotal": "mem_total",
    "MemFree": "mem_free",
    "MemAvailable": "mem_available",
    "Buffers": "buffers",
    "Cached": "cached",
    "SReclaimable": "s_reclaimable",
    "SwapTotal": "swap_total",
    "SwapFree": "swap_free",
}
_VMSTAT_KEYS = ("pgpgin", "pgpgout", "pswpin", "pswpout")


def parse_meminfo(text: str) -> tuple[MemInfo, list[str]]:
    """Return the fields vmstat needs, in kB."""
    values: dict[str, int] = {}
    notes: list[str] = []
    for line in text.splitlines():
        name, sep, rest = line.partition(":")
        attr = _MEMINFO_KEYS.get(name.strip())
        if attr is None or not sep:
            continue
        try:
            value = int(rest.split()[0])
        except (ValueError, IndexError):
            notes.append(f"/proc/meminfo: {name.strip()} is not a number")
            continue
        if value < 0:
            notes.append(f"/proc/meminfo: {name.strip()} is negative")
            continue
        values[attr] = value
    if not values:
        notes.append("/proc/meminfo: no usable fields")
    return MemInfo(**values), notes


def parse_vmstat(text: str) -> tuple[VmCounters, list[str]]:
    """Return the paging and swapping counters from /proc/vmstat."""
    values: dict[str, int] = {}
    notes: list[str] = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0] in _VMSTAT_KEYS:
            try:
                value = int(parts[1])
            except ValueError:
                notes.append(f"/proc/vmstat: {parts[0]} is not a number")
                continue
            if value < 0:
                notes.append(f"/proc/vmstat: {parts[0]} is negative")
                continue
            values[parts[0]] = value
    if not values and not notes:
        notes.append("/proc/vmstat: no paging or swapping counters")
    return VmCounters(**values), notes


def parse_loadavg(text: str) -> tuple[tuple[float, float, float] | None, list[str]]:
    """Return the 1, 5 and 15 minute load averages."""
    parts = text.split()
    try:
        loads = (float(parts[0]), float(parts[1]), float(parts[2]))
    except (ValueError, IndexError):
        return None, ["/proc/loadavg: malformed"]
    if not all(math.isfinite(v) and v >= 0 for v in loads):
        return None, ["/proc/loadavg: malformed"]
    return loads, []


def parse_uptime(text: str) -> tuple[float | None, list[str]]:
    """Return seconds since boot: the clock sysstat measures intervals with."""
    try:
        seconds = float(text.split()[0])
    except (ValueError, IndexError):
        return None, ["/proc/uptime: malformed"]
    if not math.isfinite(seconds) or seconds < 0:
        return None, ["/proc/uptime: malformed"]
    return seconds, []


def parse_pressure(resource: str, text: str) -> tuple[Pressure | None, list[str]]:
    """Parse one /proc/pressure/<resource> file (``some`` and ``full`` lines)."""
    values: dict[str, float] = {}
    for line in text.splitlines():
        parts = line.split()
        if not parts or parts[0] not in ("some", "full"):
            continue
        for item in parts[1:]:
            key, _, raw = item.partition("=")
            if key in ("avg10", "avg60", "avg300"):
                try:
                    value = float(raw)
                except ValueError:
                    continue
                if math.isfinite(value) and value >= 0:
                    values[f"{parts[0]}_{key}"] = value
    if not values:
        return None, [f"/proc/pressure/{resource}: malformed"]
    return Pressure(resource, **values), []
