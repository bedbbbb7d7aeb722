"""Parse /proc/stat: per-CPU times, interrupts, context switches, run queue."""

from __future__ import annotations

from raidtop.model import CpuCounters, StatCounters

_SCALARS = {"intr": "intr", "ctxt": "ctxt", "procs_running": "procs_running", "procs_blocked": "procs_blocked"}


def parse_stat(text: str) -> tuple[StatCounters, list[str]]:
    """Return the CPU lines and scalar counters of /proc/stat, plus notes."""
    notes: list[str] = []
    summary: CpuCounters | None = None
    cpus: list[CpuCounters] = []
    scalars: dict[str, int] = {}
    for line in text.splitlines():
        parts = line.split()
        if not parts:
            continue
        key = parts[0]
        if key.startswith("cpu"):
            cpu = _parse_cpu(key, parts[1:], notes)
            if cpu is None:
                continue
            if cpu.cpu == "all":
                summary = cpu
            else:
                cpus.append(cpu)
        elif key in _SCALARS and len(parts) >= 2:
            try:
                scalars[key] = int(parts[1])
            except ValueError:
                notes.append(f"/proc/stat: {key} is not a number: {parts[1][:20]!r}")
    if summary is None:
        notes.append("/proc/stat: no 'cpu' summary line")
    ordered = ((summary,) if summary else ()) + tuple(sorted(cpus, key=lambda c: c.cpu))
    return StatCounters(cpus=ordered, **scalars), notes


def _parse_cpu(key: str, fields: list[str], notes: list[str]) -> CpuCounters | None:
    suffix = key[3:]
    if suffix and not suffix.isdigit():
        notes.append(f"/proc/stat: unknown line {key!r} skipped")
        return None
    try:
        values = [int(f) for f in fields[:10]]
    except ValueError:
        notes.append(f"/proc/stat: non-numeric {key} line skipped")
        return None
    if len(values) < 4:
        notes.append(f"/proc/stat: {key} line has {len(values)} fields, needs at least 4")
        return None
    # Kernels before 2.6.11 lack steal, before 2.6.24 guest, before 2.6.33
    # guest_nice: missing fields count as zero, as in sysstat.
    values += [0] * (10 - len(values))
    return CpuCounters("all" if not suffix else int(suffix), *values)
