"""The heat map's layout: intervals placed by time, buckets as rows (the fastest folded), shares as levels."""

from __future__ import annotations

from raidtop.latency.histogram import from_values
from raidtop.latency.summary import Interval
from raidtop.model.units import micros
from raidtop.presentation.latency_heat import heat_map, level, shade_line


def test_levels_follow_the_legend():
    assert [level(n, 100) for n in (0, 1, 9, 10, 29, 30, 59, 60, 100)] == [0, 1, 1, 2, 2, 3, 3, 4, 4]
    assert level(3, 0) == 0


def test_columns_are_placed_by_time_so_a_gap_stays_a_gap():
    hist = from_values([5] * 10)  # bucket [4, 7] µs
    series = [Interval(10.0, hist), Interval(11.0, hist), Interval(14.0, hist)]  # not traced at 12 and 13
    found = heat_map(series, now=14.0, interval_s=1.0, columns=6, rows=10)
    assert found is not None and found.labels == ("4µs",) and found.filled == 3
    assert shade_line(found.levels[0]) == " ██  █"


def test_more_buckets_than_rows_fold_the_fastest_into_the_bottom_row():
    # One request in each bucket from [1,1] µs up to [2^19, 2^20-1] µs (~0.5 s): 21 rows wanted, 4 drawn.
    hist = from_values([0, 1] + [1 << k for k in range(1, 20)])
    found = heat_map([Interval(0.0, hist)], now=0.0, interval_s=1.0, columns=1, rows=4)
    assert found is not None
    assert found.labels == (micros(1 << 19), micros(1 << 18), micros(1 << 17), "<" + micros(1 << 17))
    # The bottom row holds the 18 requests below 131 ms of 21: ≥60 %, the darkest shade; the others one each.
    assert [row[0] for row in found.levels] == [1, 1, 1, 4]


def test_nothing_completed_gives_no_map():
    assert heat_map([], now=0.0, interval_s=1.0, columns=10, rows=10) is None
    assert heat_map([Interval(0.0, from_values([]))], now=0.0, interval_s=1.0, columns=10, rows=10) is None


def test_latency_labels_carry_their_unit():
    assert [micros(x) for x in (0, 512, 1024, 16384, 131072, 1 << 20)] == [
        "0µs",
        "512µs",
        "1.0ms",
        "16ms",
        "131ms",
        "1.0s",
    ]
