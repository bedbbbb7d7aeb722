"""vmstat lines: /proc/stat, /proc/vmstat and meminfo at two samples become procps vmstat's figures."""

from __future__ import annotations

from dataclasses import replace

from raidtop.collect.rates.cpu import TICK_FIELDS
from raidtop.model.snapshot import CpuCounters, MemInfo, Pressure, StatCounters, VmCounters, VmStat


def vm_stat(
    prev_stat: StatCounters | None,
    cur_stat: StatCounters | None,
    prev_vm: VmCounters | None,
    cur_vm: VmCounters | None,
    meminfo: MemInfo | None,
    interval_s: float | None,
    page_kb: float,
    loadavg: tuple[float, float, float] | None = None,
    pressure: tuple[Pressure, ...] = (),
    since_boot: bool | None = None,
) -> VmStat:
    """One ``vmstat`` line from two samples.

    ``since_boot`` (default: both ``prev_*`` are ``None``) measures every
    counter from zero, as vmstat's first line. Otherwise a counter the previous
    sample lacked has no rate, rather than its since-boot total passed off as one.
    """
    if since_boot is None:
        since_boot = prev_stat is None and prev_vm is None

    def rate(now: int | None, before: int | None, scale: float = 1.0) -> float | None:
        if now is None or interval_s is None or interval_s <= 0:
            return None
        if before is None and not since_boot:
            return None
        base = 0 if before is None else before
        if now < base:
            return None
        return (now - base) * scale / interval_s

    pv = prev_vm or VmCounters()
    cv = cur_vm or VmCounters()
    ps = prev_stat or StatCounters(cpus=())
    cs = cur_stat or StatCounters(cpus=())
    us = sy = idle = wa = st = None
    if cs.cpus and cs.cpus[0].cpu == "all":
        now = cs.cpus[0]
        before = ps.cpus[0] if ps.cpus and ps.cpus[0].cpu == "all" else None
        if since_boot or before is not None:
            us, sy, idle, wa, st = _vmstat_cpu(None if since_boot else before, now)
    mi = meminfo or MemInfo()
    swpd = mi.swap_total - mi.swap_free if mi.swap_total is not None and mi.swap_free is not None else None
    if swpd is not None and swpd < 0:
        swpd = None  # SwapFree above SwapTotal: a damaged file, not negative swap
    cache = None if mi.cached is None else mi.cached + (mi.s_reclaimable or 0)
    return VmStat(
        r=cs.procs_running,
        b=cs.procs_blocked,
        swpd_kib=swpd,
        free_kib=mi.mem_free,
        buff_kib=mi.buffers,
        cache_kib=cache,
        si_kib_s=rate(cv.pswpin, None if since_boot else pv.pswpin, page_kb),
        so_kib_s=rate(cv.pswpout, None if since_boot else pv.pswpout, page_kb),
        bi_kib_s=rate(cv.pgpgin, None if since_boot else pv.pgpgin),
        bo_kib_s=rate(cv.pgpgout, None if since_boot else pv.pgpgout),
        in_s=rate(cs.intr, None if since_boot else ps.intr),
        cs_s=rate(cs.ctxt, None if since_boot else ps.ctxt),
        us=us,
        sy=sy,
        id=idle,
        wa=wa,
        st=st,
        loadavg=loadavg,
        pressure=pressure,
    )


def _vmstat_cpu(before: CpuCounters | None, now: CpuCounters) -> tuple[float | None, ...]:
    """procps vmstat's us/sy/id/wa/st from the kernel's ``cpu`` line.

    us = user + nice, sy = system + irq + softirq; the divisor is the change
    of all eight tick fields, as in vmstat and in iostat's avg-cpu (whose
    %user + %nice, %system, %idle, %iowait and %steal these equal). iowait that
    decreased while idle grew was re-accounted as idle by the kernel and counts
    from its new value, as mpstat treats it. Any other decrease (a CPU's idle
    restarting, another boot) leaves no honest share: ``None``, where iostat's
    unsigned arithmetic wraps and prints 0.00, or shares above 100 %.
    """
    if before is not None and now.iowait < before.iowait and now.idle > before.idle:
        before = replace(before, iowait=now.iowait)
    deltas = {attr: getattr(now, attr) - (getattr(before, attr) if before else 0) for attr in TICK_FIELDS}
    total = sum(deltas.values())
    if total <= 0 or min(deltas.values()) < 0:
        return None, None, None, None, None

    def pct(ticks: int) -> float:
        return ticks / total * 100.0

    return (
        pct(deltas["user"] + deltas["nice"]),
        pct(deltas["system"] + deltas["irq"] + deltas["softirq"]),
        pct(deltas["idle"]),
        pct(deltas["iowait"]),
        pct(deltas["steal"]),
    )
