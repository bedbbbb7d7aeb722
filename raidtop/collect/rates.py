"""The one place where counters become rates.

Formulas follow sysstat 12.6 (iostat.c, rd_stats.c, mpstat.c) and procps
vmstat, so raidtop's numbers equal theirs on the same inputs. Where a value is
undefined (an average over zero requests, a counter that went backwards) the
result is ``None``: the UI shows "—" and the JSON ``null``.
"""

from __future__ import annotations

from dataclasses import replace
from operator import add, attrgetter, lt, sub

from raidtop.model import (
    CpuCounters,
    CpuUsage,
    DiskCounters,
    DiskIdentity,
    DiskIO,
    MemInfo,
    Pressure,
    StatCounters,
    VmCounters,
    VmStat,
)

_DISK_FIELDS = DiskCounters.__slots__[3:]
DISK_RATE_FIELDS = (
    "r_s", "w_s", "rkb_s", "wkb_s", "rrqm_s", "wrqm_s", "rrqm_pct", "wrqm_pct", "r_await_ms",
    "w_await_ms", "aqu_sz", "rareq_sz_kb", "wareq_sz_kb", "util_pct", "d_s", "dkb_s", "drqm_s",
    "drqm_pct", "d_await_ms", "dareq_sz_kb", "f_s", "f_await_ms",
)
"""Every DiskIO field that is a rate over the interval (the rest is identity)."""


def disk_io(
    prev: DiskCounters | None,
    cur: DiskCounters,
    interval_s: float,
    identity: DiskIdentity | None = None,
) -> DiskIO:
    """One ``iostat -x`` row from two samples of a device, ``interval_s`` apart.

    ``prev=None`` means "since the device appeared", as iostat's first report.
    """
    ident = identity or DiskIdentity(cur.name, "disk")
    changes = _changes(prev, cur)
    if changes is None or interval_s <= 0:
        # Removed and re-added, or reset: no honest rate exists for this interval.
        return _unknown_row(cur, ident)
    (
        rd_ios, rd_merges, rd_sec, rd_ticks, wr_ios, wr_merges, wr_sec, wr_ticks, _in_flight, tot_ticks,
        rq_ticks, dc_ios, dc_merges, dc_sec, dc_ticks, fl_ios, fl_ticks,
    ) = changes
    ms = interval_s * 1000.0
    return DiskIO(
        name=cur.name,
        kind=ident.kind,
        r_s=rd_ios / interval_s,
        w_s=wr_ios / interval_s,
        rkb_s=rd_sec / 2.0 / interval_s,
        wkb_s=wr_sec / 2.0 / interval_s,
        rrqm_s=rd_merges / interval_s,
        wrqm_s=wr_merges / interval_s,
        rrqm_pct=_share(rd_merges, rd_ios),
        wrqm_pct=_share(wr_merges, wr_ios),
        r_await_ms=_per(rd_ticks, rd_ios),
        w_await_ms=_per(wr_ticks, wr_ios),
        aqu_sz=rq_ticks / ms,
        rareq_sz_kb=_per(rd_sec, rd_ios, 2.0),
        wareq_sz_kb=_per(wr_sec, wr_ios, 2.0),
        util_pct=tot_ticks / ms * 100.0,
        d_s=None if dc_ios is None else dc_ios / interval_s,
        dkb_s=None if dc_sec is None else dc_sec / 2.0 / interval_s,
        drqm_s=None if dc_merges is None else dc_merges / interval_s,
        drqm_pct=_share(dc_merges, dc_ios),
        d_await_ms=_per(dc_ticks, dc_ios),
        dareq_sz_kb=_per(dc_sec, dc_ios, 2.0),
        f_s=None if fl_ios is None else fl_ios / interval_s,
        f_await_ms=_per(fl_ticks, fl_ios),
        ever_used=cur.ever_used,
        parent=ident.parent,
        model=ident.model,
        serial=ident.serial,
        by_id=ident.by_id,
    )


# The kernel prints the millisecond fields with %u: they wrap at 2**32 ms
# (49.7 days of busy time; far sooner for rq_ticks, which adds up the time of
# every request in flight). A drop of more than half that range in one of
# them, with every count still growing, is a wrap, not a reset: the modular
# difference is the exact change, as iostat's unsigned arithmetic gets it.
_WRAPPING_MS_FIELDS = frozenset({"rd_ticks", "wr_ticks", "dc_ticks", "fl_ticks", "tot_ticks", "rq_ticks"})
_U32 = 1 << 32


def _change(attr: str, before: int, now: int) -> int:
    """``now - before``, across a 32-bit wrap of a millisecond field."""
    if now < before and attr in _WRAPPING_MS_FIELDS and before - now >= _U32 // 2:
        return now + _U32 - before
    return now - before


_COUNTERS = attrgetter(*_DISK_FIELDS)
_IN_FLIGHT = _DISK_FIELDS.index("ios_pgr")
assert len(_DISK_FIELDS) == 17  # disk_io unpacks exactly these


def _changes(prev: DiskCounters | None, cur: DiskCounters) -> list[int | None] | None:
    """Every counter's change since ``prev`` (since boot without one), in field order.

    ``None`` when a counter decreased for a reason other than a 32-bit wrap;
    a field absent from either sample (an older kernel) has no change. ios_pgr
    is a gauge (requests in flight now), not a counter, so it may go down.
    """
    now = _COUNTERS(cur)
    if prev is None:
        return list(now)
    before = _COUNTERS(prev)
    try:
        changes = list(map(sub, now, before))  # the common case, all in C
    except TypeError:
        changes = [None if n is None or b is None else n - b for n, b in zip(now, before)]
    if None not in changes and min(changes) >= 0:
        return changes
    for index, change in enumerate(changes):
        if change is not None and change < 0 and index != _IN_FLIGHT:
            change = _change(_DISK_FIELDS[index], before[index], now[index])
            if change < 0:
                return None
            changes[index] = change
    return changes


def _unknown_row(cur: DiskCounters, ident: DiskIdentity) -> DiskIO:
    return DiskIO(
        cur.name, ident.kind, **{name: None for name in DISK_RATE_FIELDS}, ever_used=cur.ever_used,
        parent=ident.parent, model=ident.model, serial=ident.serial, by_id=ident.by_id,
    )


def _share(merges: int | None, ios: int | None) -> float | None:
    """%rrqm: the share of requests merged before reaching the device."""
    if merges is None or ios is None:
        return None
    total = merges + ios
    return merges / total * 100.0 if total else None


def _per(amount: int | None, ios: int | None, divisor: float = 1.0) -> float | None:
    """An average per request (await, request size); undefined with no requests."""
    if amount is None or not ios:
        return None
    return amount / divisor / ios


# ---------------------------------------------------------------- CPU (mpstat)

# The fields whose sum is a CPU's elapsed ticks. guest and guest_nice are left
# out because the kernel already counts them in user and nice.
_TICK_FIELDS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")
_CPU_FIELDS = _TICK_FIELDS + ("guest", "guest_nice")
_NO_USAGE = dict.fromkeys(("usr", "nice", "sys", "iowait", "irq", "soft", "steal", "guest", "gnice", "idle"))
_TICK_VALUES_OF = attrgetter(*_TICK_FIELDS)
_CPU_VALUES_OF = attrgetter(*_CPU_FIELDS)
assert CpuCounters.__slots__[1:] == _CPU_FIELDS  # the sums are passed positionally


def cpu_usage(prev: CpuCounters | None, cur: CpuCounters) -> CpuUsage:
    """One ``mpstat`` row: each field's share of the CPU's ticks in the interval.

    ``prev=None`` means since boot. This is mpstat's per-CPU computation
    (sysstat 12.6 ``write_plain_cpu_stats`` with ``get_per_cpu_interval``):
    guest time is taken out of user and nice (a user - guest that shrank
    reads 0 and widens the interval instead); idle and iowait that restarted
    (a CPU back online, or iowait moved to idle by the kernel) are measured
    from zero or from their new value; a CPU with no ticks at all (tickless,
    asleep) is 100 % idle. Where mpstat would go on with a counter that only
    grows going backwards, every share is ``None``.
    """
    before = _reference(prev, cur)
    return _usage(cur.cpu, before, cur, _ticks(before, cur))


def cpu_usages(prev: StatCounters | None, cur: StatCounters) -> tuple[CpuUsage, ...]:
    """``mpstat -P ALL``: the ``all`` row first, then one per online CPU.

    As mpstat does, ``all`` is the sum of the per-CPU rows rather than the
    kernel's ``cpu`` line, so it covers exactly the CPUs shown. A CPU missing
    from ``cur`` is offline and has no row; a CPU that came online during the
    interval and has no earlier counters (not even carried ones, see
    :func:`carry_offline_cpus`) has no honest rate yet, so it has no row and
    is left out of ``all`` until the next sample. ``prev=None``: since boot.
    """
    online = [c for c in cur.cpus if c.cpu != "all"]
    summary = next((c for c in cur.cpus if c.cpu == "all"), None)
    earlier = {c.cpu: c for c in prev.cpus} if prev is not None else None
    if not online:
        # A /proc/stat with only the summary line (some containers, old UP kernels).
        if summary is None:
            return ()
        if earlier is not None and "all" not in earlier:
            return (CpuUsage("all", **_NO_USAGE),)
        return (cpu_usage(earlier["all"] if earlier is not None else None, summary),)
    rows: list[CpuUsage] = []
    sum_before = [0] * len(_CPU_FIELDS)
    sum_now = [0] * len(_CPU_FIELDS)
    all_ticks = 0
    counted = 0
    for now in online:
        if earlier is not None and now.cpu not in earlier:
            continue
        before = _reference(earlier[now.cpu] if earlier is not None else None, now)
        ticks = _ticks(before, now)
        rows.append(_usage(now.cpu, before, now, ticks))
        if ticks is None:
            continue
        counted += 1
        all_ticks += ticks
        # Field-wise sums in C: this loop runs once per CPU, hundreds of times a sample.
        sum_before = list(map(add, sum_before, _CPU_VALUES_OF(before)))
        sum_now = list(map(add, sum_now, _CPU_VALUES_OF(now)))
    if not counted:
        return (CpuUsage("all", **_NO_USAGE), *rows)
    total_before = CpuCounters("all", *sum_before)
    total_now = CpuCounters("all", *sum_now)
    return (_usage("all", total_before, total_now, all_ticks), *rows)


def carry_offline_cpus(prev: StatCounters | None, cur: StatCounters) -> StatCounters:
    """``cur`` plus the last counters of CPUs that ``prev`` had and ``cur`` lacks.

    An offline CPU disappears from /proc/stat. Keep its last counters as the
    reference so that when it comes back its first interval has a rate, as
    mpstat does (it copies an offline CPU's previous values forward). The
    sampler stores this, not the raw counters, as the previous sample.
    """
    if prev is None:
        return cur
    present = {c.cpu for c in cur.cpus}
    missing = [c for c in prev.cpus if c.cpu not in present and c.cpu != "all"]
    if not missing:
        return cur
    summary = [c for c in cur.cpus if c.cpu == "all"]
    per_cpu = sorted((c for c in (*cur.cpus, *missing) if c.cpu != "all"), key=lambda c: c.cpu)
    return replace(cur, cpus=(*summary, *per_cpu))


def _reference(prev: CpuCounters | None, cur: CpuCounters) -> CpuCounters:
    """The previous counters as mpstat measures from them (``get_per_cpu_interval``).

    When a CPU comes back online the kernel restarts idle and iowait from zero
    while user, nice and system keep counting; iowait can also decrease when
    the kernel re-accounts iowait as idle. A decreased idle is measured from
    zero; a decreased iowait from its new value if idle grew meanwhile (the
    re-accounting case), else from zero (the back-online case).
    """
    if prev is None:
        return CpuCounters(cur.cpu, 0, 0, 0, 0)
    iowait, idle = prev.iowait, prev.idle
    if cur.iowait < prev.iowait:
        iowait = cur.iowait if cur.idle > prev.idle else 0
    if cur.idle < prev.idle:
        idle = 0
    if (iowait, idle) == (prev.iowait, prev.idle):
        return prev
    return replace(prev, iowait=iowait, idle=idle)


# Counters that only grow. idle and iowait are not among them: the kernel
# restarts them when a CPU comes back online and can move iowait to idle.
_MONOTONIC_CPU_FIELDS = ("user", "nice", "system", "irq", "softirq", "steal", "guest", "guest_nice")
_MONOTONIC_VALUES_OF = attrgetter(*_MONOTONIC_CPU_FIELDS)


def _ticks(before: CpuCounters, now: CpuCounters) -> int | None:
    """A CPU's ticks in the interval; ``None`` when a counter that only grows went backwards.

    mpstat would count such a field as 0 but keep the smaller total, printing
    shares above 100 %; raidtop shows no share rather than a wrong one.
    """
    if any(map(lt, _MONOTONIC_VALUES_OF(now), _MONOTONIC_VALUES_OF(before))):
        return None
    elapsed = sum(_TICK_VALUES_OF(now)) - sum(_TICK_VALUES_OF(before))
    # guest can run slightly ahead of the user time that includes it; mpstat
    # widens the interval by the difference so the shares still add up.
    for total, guest in (("user", "guest"), ("nice", "guest_nice")):
        shortfall = (getattr(before, total) - getattr(before, guest)) - (getattr(now, total) - getattr(now, guest))
        if shortfall > 0:
            elapsed += shortfall
    return elapsed if elapsed >= 0 else None


def _usage(cpu: str | int, before: CpuCounters, now: CpuCounters, ticks: int | None) -> CpuUsage:
    if ticks is None:
        # Less time than before: a different boot or a broken counter, no honest share.
        return CpuUsage(cpu, **_NO_USAGE)
    if ticks == 0:
        # A tickless CPU that slept the whole interval: mpstat shows it idle.
        return CpuUsage(cpu, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 100.0)

    def share(then: int, now_: int) -> float:
        # A field that went backwards (iowait can, on some kernels) reads as 0, as in mpstat.
        return (now_ - then) / ticks * 100.0 if now_ > then else 0.0

    return CpuUsage(
        cpu,
        usr=share(before.user - before.guest, now.user - now.guest),
        nice=share(before.nice - before.guest_nice, now.nice - now.guest_nice),
        sys=share(before.system, now.system),
        iowait=share(before.iowait, now.iowait),
        irq=share(before.irq, now.irq),
        soft=share(before.softirq, now.softirq),
        steal=share(before.steal, now.steal),
        guest=share(before.guest, now.guest),
        gnice=share(before.guest_nice, now.guest_nice),
        idle=share(before.idle, now.idle),
    )


# ---------------------------------------------------------------- vmstat


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
        swpd_kb=swpd,
        free_kb=mi.mem_free,
        buff_kb=mi.buffers,
        cache_kb=cache,
        si_kb_s=rate(cv.pswpin, None if since_boot else pv.pswpin, page_kb),
        so_kb_s=rate(cv.pswpout, None if since_boot else pv.pswpout, page_kb),
        bi_kb_s=rate(cv.pgpgin, None if since_boot else pv.pgpgin),
        bo_kb_s=rate(cv.pgpgout, None if since_boot else pv.pgpgout),
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
    deltas = {attr: getattr(now, attr) - (getattr(before, attr) if before else 0) for attr in _TICK_FIELDS}
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
