"""disk_io's inline formulas give exactly what the helper-based version gave (issue 14).

The reference below is the formula code as it was before (commit b491ea2):
the golden-file tests in test_sysstat_equivalence.py check both against
sysstat; this one checks every field on many counter pairs, discards and
flushes absent, zero requests, 32-bit wraps and resets included.
"""

from __future__ import annotations

import random

import pytest

from raidtop.collect.rates.disk import _changes, disk_io
from raidtop.model.snapshot import DiskCounters, DiskIdentity, DiskIO


def legacy_share(merges, ios):
    if merges is None or ios is None:
        return None
    total = merges + ios
    return merges / total * 100.0 if total else None


def legacy_per(amount, ios, divisor=1.0):
    if amount is None or not ios:
        return None
    return amount / divisor / ios


def legacy_rates(prev, cur, interval_s, ident):
    """The keyword-argument DiskIO of the old disk_io, from the same counter changes."""
    changes = _changes(prev, cur)
    if changes is None or interval_s <= 0:
        return None
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
        dc_ios,
        dc_merges,
        dc_sec,
        dc_ticks,
        fl_ios,
        fl_ticks,
    ) = changes
    ms = interval_s * 1000.0
    return DiskIO(
        name=cur.name,
        kind=ident.kind,
        r_s=rd_ios / interval_s,
        w_s=wr_ios / interval_s,
        rkib_s=rd_sec / 2.0 / interval_s,
        wkib_s=wr_sec / 2.0 / interval_s,
        rrqm_s=rd_merges / interval_s,
        wrqm_s=wr_merges / interval_s,
        rrqm_pct=legacy_share(rd_merges, rd_ios),
        wrqm_pct=legacy_share(wr_merges, wr_ios),
        r_await_ms=legacy_per(rd_ticks, rd_ios),
        w_await_ms=legacy_per(wr_ticks, wr_ios),
        aqu_sz=rq_ticks / ms,
        rareq_sz_kib=legacy_per(rd_sec, rd_ios, 2.0),
        wareq_sz_kib=legacy_per(wr_sec, wr_ios, 2.0),
        util_pct=tot_ticks / ms * 100.0,
        d_s=None if dc_ios is None else dc_ios / interval_s,
        dkib_s=None if dc_sec is None else dc_sec / 2.0 / interval_s,
        drqm_s=None if dc_merges is None else dc_merges / interval_s,
        drqm_pct=legacy_share(dc_merges, dc_ios),
        d_await_ms=legacy_per(dc_ticks, dc_ios),
        dareq_sz_kib=legacy_per(dc_sec, dc_ios, 2.0),
        f_s=None if fl_ios is None else fl_ios / interval_s,
        f_await_ms=legacy_per(fl_ticks, fl_ios),
        ever_used=cur.ever_used,
        parent=ident.parent,
        model=ident.model,
        serial=ident.serial,
        by_id=ident.by_id,
    )


def counters(rng: random.Random, fields: int, base: list[int] | None = None) -> DiskCounters:
    values = [rng.choice((0, 0, 1, 7, 1000, 2**31, 2**32 - 5, 10**12)) for _ in range(17)]
    if base is not None:
        # Mostly growth, sometimes none, sometimes a 32-bit wrap of a ms field, rarely a reset.
        values = [b + rng.choice((0, 0, 1, 3, 250, 10**6)) for b in base]
        if rng.random() < 0.1:
            values[3] = (values[3] + 2**32 - 10) % 2**32  # rd_ticks wraps
        if rng.random() < 0.03:
            values[0] = 0  # reset
    values = values[: fields - 3] + [None] * (20 - fields)
    return DiskCounters(8, 0, "sdx", *values)


@pytest.mark.parametrize("fields", [14, 18, 20])
def test_disk_io_equals_the_helper_based_formulas(fields):
    rng = random.Random(fields)
    ident = DiskIdentity("sdx", "disk", None, "M", "S", "ata-M_S")
    for _ in range(3000):
        prev = counters(rng, fields)
        base = [getattr(prev, f) or 0 for f in DiskCounters.__slots__[3:]]
        cur = counters(rng, fields, base)
        interval = rng.choice((0.5, 1.0, 1.01, 31.17, 3600.0))
        want = legacy_rates(prev, cur, interval, ident)
        got = disk_io(prev, cur, interval, ident)
        if want is None:
            assert got.r_s is None
        else:
            assert got == want
