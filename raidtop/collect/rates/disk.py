"""iostat -x rows: a device's counters at two samples become its rates (sysstat 12.6 iostat.c, rd_stats.c)."""

from __future__ import annotations

from operator import attrgetter, sub
from typing import cast

from raidtop.model.snapshot import DISK_RATE_FIELDS, DiskCounters, DiskIdentity, DiskIO

_DISK_FIELDS = DiskCounters.__slots__[3:]
__all__ = ["DISK_RATE_FIELDS", "disk_io"]


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
    return DiskIO(
        cur.name,
        ident.kind,
        **dict.fromkeys(DISK_RATE_FIELDS),
        ever_used=cur.ever_used,
        parent=ident.parent,
        model=ident.model,
        serial=ident.serial,
        by_id=ident.by_id,
        by_id_links=ident.by_id_links,
    )
