"""The ``raidtop snapshot --json`` document (schema version 2: :attr:`raidtop.model.snapshot.Snapshot.version`)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from raidtop.output.md_json import md_to_json
from raidtop.model.snapshot import DISK_RATE_FIELDS, CpuUsage, DiskIO, Sensor, Snapshot, VmStat
from raidtop.model.md import MdEvent
from raidtop.model.processes import IoAttribution
from raidtop.model.smart import RebuildRisk, SmartHealth

_CPU_KEYS = ("usr", "nice", "sys", "iowait", "irq", "soft", "steal", "guest", "gnice", "idle")
_VM_KEYS = (
    "r",
    "b",
    "swpd_kib",
    "free_kib",
    "buff_kib",
    "cache_kib",
    "si_kib_s",
    "so_kib_s",
    "bi_kib_s",
    "bo_kib_s",
    "in_s",
    "cs_s",
    "us",
    "sy",
    "id",
    "wa",
    "st",
)


def disk_json(d: DiskIO) -> dict[str, Any]:
    """One disk row; rates rounded to 2 decimals as iostat prints them, ``null`` when undefined."""
    row: dict[str, Any] = {"name": d.name, "kind": d.kind}
    for key in DISK_RATE_FIELDS:
        row[key] = _round(getattr(d, key))
    row.update(model=d.model, serial=d.serial, by_id=d.by_id, parent=d.parent)
    return row


def cpu_json(c: CpuUsage) -> dict[str, Any]:
    """One mpstat row."""
    return {"cpu": c.cpu, **{k: _round(getattr(c, k)) for k in _CPU_KEYS}}


def vm_json(v: VmStat | None) -> dict[str, Any] | None:
    """The vmstat line plus load averages and PSI."""
    if v is None:
        return None
    out: dict[str, Any] = {k: _round(getattr(v, k)) for k in _VM_KEYS}
    out["loadavg"] = list(v.loadavg) if v.loadavg else None
    out["pressure"] = {
        p.resource: {
            "some_avg10": p.some_avg10,
            "some_avg60": p.some_avg60,
            "some_avg300": p.some_avg300,
            "full_avg10": p.full_avg10,
            "full_avg60": p.full_avg60,
            "full_avg300": p.full_avg300,
        }
        for p in v.pressure
    }
    return out


def sensor_json(s: Sensor) -> dict[str, Any]:
    """One hwmon reading."""
    return {
        "chip": s.chip,
        "label": s.label,
        "kind": s.kind,
        "value": s.value,
        "high": s.high,
        "crit": s.crit,
        "device": s.device,
    }


def smart_json(h: SmartHealth) -> dict[str, Any]:
    """One disk's SMART reading: every SmartHealth field, reasons as {severity, text, rule}."""
    return asdict(h)


def rebuild_risk_json(r: RebuildRisk) -> dict[str, Any]:
    """One array at risk, with its survivors."""
    return asdict(r)


def audit_json(findings) -> list[dict[str, Any]]:
    """The audit's findings (:class:`raidtop.audit.model.Finding`), worst first within each array."""
    return [asdict(f) for f in findings]


def snapshot_json(snap: Snapshot, earlier_events: tuple[MdEvent, ...] = ()) -> dict[str, Any]:
    """The whole document for one snapshot.

    ``earlier_events`` are prepended to the snapshot's own: ``raidtop
    snapshot`` passes the first sample's, so an array already degraded at
    start shows its DegradedArray event.
    """
    return {
        "version": snap.version,
        "time": snap.time,
        "interval_s": _round(snap.interval_s, 3),
        "since_boot": snap.since_boot,
        "disks": _with_units([disk_json(d) for d in snap.disks], snap.io),
        "cpus": [cpu_json(c) for c in snap.cpus],
        "vm": vm_json(snap.vm),
        "sensors": [sensor_json(s) for s in snap.sensors],
        **md_to_json(snap.arrays, snap.raid_speed_limit, earlier_events + snap.events),
        "md_absence": snap.md_absence,
        "md_threads": [
            {"array": t.array, "thread": t.thread, "pid": t.pid, "cpu_pct": _round(t.cpu_pct)} for t in snap.md_threads
        ],
        "smart": {name: smart_json(h) for name, h in sorted(snap.smart.items())},
        "smart_disk_of": {name: list(disks) for name, disks in sorted(snap.smart_disk_of.items())},
        "rebuild_risks": [rebuild_risk_json(r) for r in snap.rebuild_risks],
        **io_json(snap.io),
        "full_filesystems": list(snap.full_filesystems),
        # Present only when this sample read it (a view showed it, or an array is degraded).
        "stack": {name: asdict(node) for name, node in sorted(snap.stack.nodes.items())}
        if snap.stack is not None
        else None,
        "notes": list(snap.notes),
    }


def io_json(io: IoAttribution | None) -> dict[str, Any]:
    """``io_attribution`` (level and source) and ``processes`` (busiest first; ``null`` when not read)."""
    if io is None:
        return {"io_attribution": None, "processes": None}
    return {
        "io_attribution": {"level": io.level, "source": io.source},
        "processes": [
            {
                "pid": p.pid,
                "comm": p.comm,
                "user": p.user,
                "unit": p.unit,
                "kernel": p.kernel,
                "read_b_s": _round(p.read_b_s),
                "write_b_s": _round(p.write_b_s),
                "syscr_s": _round(p.syscr_s),
                "syscw_s": _round(p.syscw_s),
            }
            for p in io.processes
        ],
    }


def _with_units(rows: list[dict[str, Any]], io: IoAttribution | None) -> list[dict[str, Any]]:
    """Each disk row with ``io_by_unit``: cgroups' own I/O on it (``null`` without per-device accounting)."""
    by_device = io.by_device if io is not None else None
    for row in rows:
        units = by_device.get(row["name"], ()) if by_device is not None else None
        row["io_by_unit"] = (
            None
            if units is None
            else [
                {
                    "unit": u.unit,
                    "read_b_s": _round(u.read_b_s),
                    "write_b_s": _round(u.write_b_s),
                    "reads_s": _round(u.reads_s),
                    "writes_s": _round(u.writes_s),
                }
                for u in units
            ]
        )
    return rows


def _round(value: Any, digits: int = 2) -> Any:
    return round(value, digits) if isinstance(value, float) else value
