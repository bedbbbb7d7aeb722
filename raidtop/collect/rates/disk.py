"""iostat -x rows: a device's counters at two samples become its rates (sysstat 12.6 iostat.c, rd_stats.c)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import fields
from itertools import compress, repeat
from operator import add, attrgetter, mul, not_, sub, truediv
from typing import Any, cast

from raidtop.collect import native
from raidtop.model.disk_columns import DiskCounterColumns
from raidtop.model.snapshot import DISK_RATE_FIELDS, DiskCounters, DiskIdentity, DiskIO, disk_row

_DISK_FIELDS = tuple(f.name for f in fields(DiskCounters))[3:]
__all__ = ["DISK_RATE_FIELDS", "disk_io", "disk_rate_columns", "updated_rate_columns"]


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
    # The first eleven fields are on every kernel, so their changes are never None.
    (
        rd_ios,
        rd_merges,
        rd_sec,
        rd_ticks,
        wr_ios,
        wr_merges,
        wr_sec,
        wr_ticks,
        _in_flight,
        tot_ticks,
        rq_ticks,
    ) = cast("list[int]", changes[:_CORE_FIELDS])
    dc_ios, dc_merges, dc_sec, dc_ticks, fl_ios, fl_ticks = changes[_CORE_FIELDS:]
    ms = interval_s * 1000.0
    # Positional and inline: this runs for every busy device every tick, and
    # keyword calls and helper calls were most of its cost at thousands of disks.
    # The formulas are iostat's, term for term (the float results are identical).
    rd_total, wr_total = rd_merges + rd_ios, wr_merges + wr_ios
    if dc_ios is None or dc_merges is None or dc_sec is None or dc_ticks is None:
        discards = _NO_DISCARDS
    else:
        dc_total = dc_merges + dc_ios
        discards = (
            dc_ios / interval_s,
            dc_sec / 2.0 / interval_s,
            dc_merges / interval_s,
            dc_merges / dc_total * 100.0 if dc_total else None,
            dc_ticks / 1.0 / dc_ios if dc_ios else None,
            dc_sec / 2.0 / dc_ios if dc_ios else None,
        )
    return DiskIO(
        cur.name,
        ident.kind,
        rd_ios / interval_s,
        wr_ios / interval_s,
        rd_sec / 2.0 / interval_s,
        wr_sec / 2.0 / interval_s,
        rd_merges / interval_s,
        wr_merges / interval_s,
        rd_merges / rd_total * 100.0 if rd_total else None,
        wr_merges / wr_total * 100.0 if wr_total else None,
        rd_ticks / 1.0 / rd_ios if rd_ios else None,
        wr_ticks / 1.0 / wr_ios if wr_ios else None,
        rq_ticks / ms,
        rd_sec / 2.0 / rd_ios if rd_ios else None,
        wr_sec / 2.0 / wr_ios if wr_ios else None,
        tot_ticks / ms * 100.0,
        *discards,
        None if fl_ios is None else fl_ios / interval_s,
        fl_ticks / 1.0 / fl_ios if fl_ios and fl_ticks is not None else None,
        cur.ever_used,
        ident.parent,
        ident.model,
        ident.serial,
        ident.by_id,
        ident.by_id_links,
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
_CORE_FIELDS = _DISK_FIELDS.index("dc_ios")
_Discards = tuple[float | None, float | None, float | None, float | None, float | None, float | None]
_NO_DISCARDS: _Discards = (None, None, None, None, None, None)
"""A kernel before 4.18 counts no discards."""


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
    return disk_row(cur.name, ident, {}, cur.ever_used)


# ---------------------------------------------------------------- every device at once


def disk_rate_columns(
    prev: DiskCounterColumns | None, cur: DiskCounterColumns, interval_s: float, before: list[int | None] | None = None
) -> tuple[dict[str, list[float | None] | None], list[int]]:
    """:func:`disk_io`'s rates for every device of ``cur`` at once, one column per rate.

    ``before[i]`` is device ``i``'s position in ``prev`` (``None``: it has
    none); without ``before`` the two reads list the same devices in the same
    order. ``prev=None`` means since each device appeared. Returns the
    columns and the positions whose rates are unknown (a counter went back,
    or no previous sample): every rate of those is ``None``. The arithmetic
    is :func:`disk_io`'s, operation for operation, so the floats are the same.
    """
    n = len(cur)
    compiled = native.disk_rates
    if compiled is not None and before is None:
        done = compiled.rate_columns(
            tuple(cur.counters.values()), None if prev is None else tuple(prev.counters.values()), interval_s
        )
        if done is not None:  # the regular case, in C; the rest below decides what it declines
            rate_values, went_back = done
            return dict(zip(DISK_RATE_FIELDS, rate_values)), went_back
    unknown: set[int] = set()
    if before is not None:
        unknown.update(i for i, b in enumerate(before) if b is None)
    deltas: dict[str, list[int]] = {}
    for field, now in cur.counters.items():
        if field == "ios_pgr" or now is None:
            continue  # a gauge, not a counter; or a field this kernel does not print
        old = None if prev is None else prev.counters[field]
        if prev is not None and old is None:
            continue
        deltas[field] = _delta(field, now, old, before, unknown)
    if interval_s <= 0:
        unknown.update(range(n))
    if not n or not all(f in deltas for f in _DISK_FIELDS[:_CORE_FIELDS] if f != "ios_pgr"):
        return dict.fromkeys(DISK_RATE_FIELDS), list(range(n))  # no device, or none with the core fields
    s, ms = interval_s, interval_s * 1000.0
    rd_ios, rd_merges, rd_sec, rd_ticks = (deltas[f] for f in ("rd_ios", "rd_merges", "rd_sectors", "rd_ticks"))
    wr_ios, wr_merges, wr_sec, wr_ticks = (deltas[f] for f in ("wr_ios", "wr_merges", "wr_sectors", "wr_ticks"))
    tot_ticks, rq_ticks = deltas["tot_ticks"], deltas["rq_ticks"]
    per_s, halves = repeat(s), repeat(2.0)
    columns: dict[str, list[float | None] | None] = dict.fromkeys(DISK_RATE_FIELDS)
    if s > 0:
        columns.update(
            r_s=list(map(truediv, rd_ios, per_s)),
            w_s=list(map(truediv, wr_ios, per_s)),
            rkib_s=list(map(truediv, map(truediv, rd_sec, halves), per_s)),
            wkib_s=list(map(truediv, map(truediv, wr_sec, halves), per_s)),
            rrqm_s=list(map(truediv, rd_merges, per_s)),
            wrqm_s=list(map(truediv, wr_merges, per_s)),
            rrqm_pct=_share(rd_merges, rd_ios),
            wrqm_pct=_share(wr_merges, wr_ios),
            r_await_ms=_per_request(rd_ticks, rd_ios, 1.0),
            w_await_ms=_per_request(wr_ticks, wr_ios, 1.0),
            aqu_sz=list(map(truediv, rq_ticks, repeat(ms))),
            rareq_sz_kib=_per_request(rd_sec, rd_ios, 2.0),
            wareq_sz_kib=_per_request(wr_sec, wr_ios, 2.0),
            util_pct=list(map(mul, map(truediv, tot_ticks, repeat(ms)), repeat(100.0))),
        )
        if all(f in deltas for f in ("dc_ios", "dc_merges", "dc_sectors", "dc_ticks")):
            dc_ios, dc_merges, dc_sec, dc_ticks = (deltas[f] for f in ("dc_ios", "dc_merges", "dc_sectors", "dc_ticks"))
            columns.update(
                d_s=list(map(truediv, dc_ios, per_s)),
                dkib_s=list(map(truediv, map(truediv, dc_sec, halves), per_s)),
                drqm_s=list(map(truediv, dc_merges, per_s)),
                drqm_pct=_share(dc_merges, dc_ios),
                d_await_ms=_per_request(dc_ticks, dc_ios, 1.0),
                dareq_sz_kib=_per_request(dc_sec, dc_ios, 2.0),
            )
        if "fl_ios" in deltas:
            fl_ios = deltas["fl_ios"]
            columns["f_s"] = list(map(truediv, fl_ios, per_s))
            if "fl_ticks" in deltas:
                columns["f_await_ms"] = _per_request(deltas["fl_ticks"], fl_ios, 1.0)
    if unknown:
        for values in columns.values():
            if values is not None:
                for i in unknown:
                    values[i] = None
    return columns, sorted(unknown)


def updated_rate_columns(
    prev: DiskCounterColumns,
    cur: DiskCounterColumns,
    interval_s: float,
    last: Mapping[str, list[float | None] | None],
    redo: list[int],
) -> tuple[dict[str, list[float | None] | None], list[int]] | None:
    """``last`` (the previous interval's columns) with the devices at ``redo`` worked out again.

    For the same devices as the previous interval, when every device not in
    ``redo`` was idle in both intervals: an idle device's rates are 0 or
    unknown whatever the interval, so they stand. ``None`` when a column's
    presence changed (then compute every device).
    """
    sub, sub_unknown = disk_rate_columns(prev.take(redo), cur.take(redo), interval_s) if redo else ({}, [])
    columns: dict[str, list[float | None] | None] = {}
    for field, values in last.items():
        new = sub.get(field) if redo else values
        if (values is None) != (new is None):
            return None
        if values is None or new is None or not redo:
            columns[field] = values
            continue
        column = list(values)
        for index, value in zip(redo, new):
            column[index] = value
        columns[field] = column
    return columns, [redo[j] for j in sub_unknown]


def _delta(
    field: str, now: Sequence[int], old: Sequence[int] | None, before: list[int | None] | None, unknown: set[int]
) -> list[int]:
    """``now - old`` per device (``now`` without ``old``); a decrease other than a wrap adds to ``unknown``."""
    if old is None:
        return list(now)
    if before is not None:
        old = [0 if b is None else old[b] for b in before]
    elif now == old:  # a counter no device moved (discards, flushes on most machines): compared in C
        return [0] * len(now)
    changes = list(map(sub, now, old))
    if changes and min(changes) < 0:
        for index, change in enumerate(changes):
            if change < 0:
                change = _change(field, old[index], now[index])
                if change < 0:
                    unknown.add(index)
                    change = 0
                changes[index] = change
    return changes


def _share(merges: list[int], ios: list[int]) -> list[float | None]:
    """Merged requests as a percentage of all, iostat's %rrqm (``None`` over no request)."""
    totals = list(map(add, merges, ios))
    return _where_requests(
        totals,
        lambda i: merges[i] / totals[i] * 100.0,
        lambda nonzero: list(map(mul, map(truediv, merges, nonzero), repeat(100.0))),
    )


def _per_request(amount: list[int], ios: list[int], divisor: float) -> list[float | None]:
    """``amount / divisor / ios`` per device, ``None`` over no request (await, areq-sz)."""
    return _where_requests(
        ios,
        lambda i: amount[i] / divisor / ios[i],
        lambda nonzero: list(map(truediv, map(truediv, amount, repeat(divisor)), nonzero)),
    )


_SPARSE = 4
"""Where more than a quarter of the devices had no request, the average is worked out only where
some were (a Python loop over few) rather than for every device and undone (C over all, then a loop)."""


def _where_requests(
    divisors: list[int], one: Callable[[int], float], every: Callable[[list[int]], list[float]]
) -> list[float | None]:
    """``one(i)`` where ``divisors[i]`` is not 0, ``None`` elsewhere; ``every`` computes all at once in C."""
    if divisors.count(0) * _SPARSE > len(divisors):
        out: list[float | None] = [None] * len(divisors)
        for i in compress(range(len(divisors)), divisors):
            out[i] = one(i)
        return out
    return _none_where_zero(every(_nonzero(divisors)), divisors)


def _nonzero(divisors: list[int]) -> list[int]:
    """``divisors`` with each 0 made 1, so the division runs in C; :func:`_none_where_zero` undoes it."""
    return divisors if 0 not in divisors else [d or 1 for d in divisors]


def _none_where_zero(values: list[Any], divisors: list[int]) -> list[Any]:
    """``values`` with ``None`` where the divisor was 0 (an average over nothing)."""
    if 0 in divisors:
        for index in compress(range(len(divisors)), map(not_, divisors)):
            values[index] = None
    return values
