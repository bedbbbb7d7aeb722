"""Disk rates at the edges of the counters (raidtop.collect.rates.disk).

The golden files (test_sysstat_equivalence.py) hold no counter near its
32-bit wrap. Here each millisecond field is taken across the wrap at its
exact boundary: a drop of half the range or more is a wrap (the modular
difference is the change, as iostat's unsigned arithmetic has it), a drop
of less is a reset (no rate); a count field never wraps; the in-flight
gauge may go down; a zero or negative interval gives no rate. Expected
values are the arithmetic written out.
"""

from __future__ import annotations

import pytest

from raidtop.collect.rates.disk import DISK_RATE_FIELDS, disk_io
from raidtop.model.snapshot import DiskCounters

U32 = 2**32


def counters(tot_ticks=1000, rq_ticks=2000, rd_ios=100, ios_pgr=1, rd_ticks=500, fl_ios=None, fl_ticks=None, dc=None):
    dc_ios, dc_merges, dc_sectors, dc_ticks = dc or (None, None, None, None)
    return DiskCounters(
        8,
        0,
        "sda",
        rd_ios,
        0,
        800,
        rd_ticks,
        10,
        0,
        80,
        50,
        ios_pgr,
        tot_ticks,
        rq_ticks,
        dc_ios,
        dc_merges,
        dc_sectors,
        dc_ticks,
        fl_ios,
        fl_ticks,
    )


def no_rates(row) -> bool:
    return all(getattr(row, field) is None for field in DISK_RATE_FIELDS)


@pytest.mark.parametrize(
    "before, after, busy_ms",
    [
        (U32 - 1, 0, 1),  # the smallest wrap
        (U32 - 1, 999, 1000),
        (2**31, 0, 2**31),  # a drop of exactly half the range: a wrap
        (U32 - 300, 700, 1000),
    ],
)
def test_a_wrapped_busy_time_is_the_modular_difference(before, after, busy_ms):
    row = disk_io(counters(tot_ticks=before), counters(tot_ticks=after), 1.0)
    assert row.util_pct == busy_ms / 1000 * 100


def test_a_drop_just_under_half_the_range_is_a_reset():
    assert no_rates(disk_io(counters(tot_ticks=2**31 - 1), counters(tot_ticks=0), 1.0))
    assert no_rates(disk_io(counters(tot_ticks=U32 - 1), counters(tot_ticks=U32 - 2), 1.0))


def test_every_millisecond_field_wraps():
    before = counters(rq_ticks=U32 - 10, rd_ticks=U32 - 20, fl_ios=5, fl_ticks=U32 - 30, dc=(4, 0, 8, U32 - 40))
    after = counters(rq_ticks=990, rd_ticks=80, fl_ios=10, fl_ticks=20, dc=(8, 0, 16, 60))
    row = disk_io(before, after, 1.0)
    assert row.aqu_sz == 1000 / 1000  # rq_ticks: 1000 ms in 1 s
    assert row.r_await_ms is None  # rd_ticks wrapped too, but no read finished: no await
    assert row.f_await_ms == 50 / 5  # 50 ms over 5 flushes
    assert row.d_await_ms == 100 / 4  # 100 ms over 4 discards


def test_read_await_across_a_wrap():
    row = disk_io(counters(rd_ios=100, rd_ticks=U32 - 100), counters(rd_ios=110, rd_ticks=400), 1.0)
    assert row.r_await_ms == 500 / 10


def test_a_count_field_never_wraps():
    assert no_rates(disk_io(counters(rd_ios=U32 - 1), counters(rd_ios=5), 1.0))


def test_the_in_flight_gauge_may_go_down():
    row = disk_io(counters(ios_pgr=30), counters(ios_pgr=0, tot_ticks=1500), 1.0)
    assert row.util_pct == 50.0


def test_unchanged_counters_are_zero_rates_not_unknown():
    row = disk_io(counters(), counters(), 2.0)
    assert (row.r_s, row.util_pct, row.aqu_sz, row.r_await_ms) == (0.0, 0.0, 0.0, None)


@pytest.mark.parametrize("interval", [0.0, -1.0])
def test_no_interval_gives_no_rate(interval):
    assert no_rates(disk_io(counters(), counters(tot_ticks=2000), interval))
