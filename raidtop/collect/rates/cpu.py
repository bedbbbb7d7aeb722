"""mpstat's CPU shares: tick counters at two samples become per-CPU percentages (sysstat 12.6 mpstat.c)."""

from __future__ import annotations

from dataclasses import fields, replace
from operator import add, attrgetter, lt

from raidtop.model.snapshot import CpuCounters, CpuUsage, StatCounters

# The fields whose sum is a CPU's elapsed ticks. guest and guest_nice are left
# out because the kernel already counts them in user and nice.
TICK_FIELDS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")
_CPU_FIELDS = TICK_FIELDS + ("guest", "guest_nice")
_NO_USAGE = dict.fromkeys(("usr", "nice", "sys", "iowait", "irq", "soft", "steal", "guest", "gnice", "idle"))
_TICK_VALUES_OF = attrgetter(*TICK_FIELDS)
_CPU_VALUES_OF = attrgetter(*_CPU_FIELDS)
assert tuple(f.name for f in fields(CpuCounters))[1:] == _CPU_FIELDS  # the sums are passed positionally


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
