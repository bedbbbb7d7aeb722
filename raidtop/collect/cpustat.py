"""Parse /proc/stat: per-CPU times, interrupts, context switches, run queue."""

from __future__ import annotations

from raidtop.model.snapshot import CpuCounters, StatCounters

_SCALARS = {"intr": "intr", "ctxt": "ctxt", "procs_running": "procs_running", "procs_blocked": "procs_blocked"}
# user nice system idle iowait irq softirq steal guest guest_nice (Linux 2.6.33+).
_CPU_VALUES = 10


def parse_stat(text: str) -> tuple[StatCounters, list[str]]:
    """Return the CPU lines and scalar counters of /proc/stat, plus notes."""
    notes: list[str] = []
    summary: CpuCounters | None = None
    cpus: dict[int, CpuCounters] = {}
    scalars: dict[str, int] = {}
    long_lines = 0
    for line in text.splitlines():
        parts = line.split()
        if not parts:
            continue
        key = parts[0]
        if key.startswith("cpu"):
            long_lines += len(parts) - 1 > _CPU_VALUES
            cpu = _parse_cpu(key, parts[1:], notes)
            if cpu is None:
                continue
            if isinstance(cpu.cpu, str):  # "all": the summary line
                if summary is not None:
                    notes.append("/proc/stat: second 'cpu' summary line ignored")
                    continue
                summary = cpu
            elif cpu.cpu in cpus:
                notes.append(f"/proc/stat: second {key} line ignored")
            else:
                cpus[cpu.cpu] = cpu
        elif key in _SCALARS and len(parts) >= 2:
            try:
                value = int(parts[1])
            except ValueError:
                notes.append(f"/proc/stat: {key} is not a number: {parts[1][:20]!r}")
                continue
            if value < 0:
                notes.append(f"/proc/stat: {key} is negative")
                continue
            scalars[key] = value
    if long_lines:
        notes.append(f"/proc/stat: {long_lines} cpu line(s) with more than {_CPU_VALUES} values; extra ignored")
    if summary is None:
        notes.append("/proc/stat: no 'cpu' summary line")
    ordered = ((summary,) if summary else ()) + tuple(cpus[n] for n in sorted(cpus))
    return StatCounters(cpus=ordered, **scalars), notes


def _parse_cpu(key: str, fields: list[str], notes: list[str]) -> CpuCounters | None:
    suffix = key[3:]
    if suffix and not (suffix.isascii() and suffix.isdigit()):
        notes.append(f"/proc/stat: unknown line {key[:20]!r} skipped")
        return None
    try:
        values = list(map(int, fields[:_CPU_VALUES]))
    except ValueError:
        notes.append(f"/proc/stat: non-numeric {key} line skipped")
        return None
    if len(values) < 4:
        notes.append(f"/proc/stat: {key} line has {len(values)} fields, needs at least 4")
        return None
    if min(values) < 0:
        notes.append(f"/proc/stat: negative time in {key} line, skipped")
        return None
    # Kernels before 2.6.11 lack steal, before 2.6.24 guest, before 2.6.33
    # guest_nice: missing fields count as zero, as in sysstat.
    values += [0] * (_CPU_VALUES - len(values))
    return CpuCounters("all" if not suffix else int(suffix), *values)
