"""p50/p99/max of a member from raidtop's own bpftrace output, recorded on loop devices."""

from __future__ import annotations

import math
from pathlib import Path

from raidtop.latency.histogram import delta, from_values, parse_hist_message, percentile_bucket
from raidtop.latency.summary import summarize

RECORDED = Path(__file__).parent.parent / "data" / "bpftrace" / "raidtop-loop-members.jsonl"
LOOP0 = str(7 << 20 | 0)


def prints() -> list[dict]:
    return [h for h in map(parse_hist_message, RECORDED.read_text().splitlines()) if h]


def test_each_interval_of_the_recording_holds_its_round_of_writes():
    cumulative = [p[LOOP0] for p in prints()]
    intervals = [delta(now, before) for now, before in zip(cumulative, [None, *cumulative])]
    assert [summarize(h).requests for h in intervals] == [999, 1000, 1000, 0]
    # An interval without requests has no percentiles: the grid shows a dash, never a zero.
    assert summarize(intervals[-1]).p99_ms is None and summarize(intervals[-1]).max_ms is None


def test_percentiles_lie_in_the_bucket_that_holds_them_in_milliseconds():
    hist = prints()[0][LOOP0]
    lat = summarize(hist)
    for q, value in ((50, lat.p50_ms), (99, lat.p99_ms)):
        bucket = percentile_bucket(hist, q)
        assert bucket is not None and value is not None
        assert bucket.low / 1000 <= value <= bucket.high / 1000
    top = max(b.high for b in hist.buckets if b.count)
    assert lat.max_ms == top / 1000
    assert lat.p50_ms <= lat.p99_ms <= lat.max_ms


def test_max_bounds_the_slowest_request_within_a_factor_of_two():
    values = [30, 31, 40, 2_500, 70_000]  # microseconds
    lat = summarize(from_values(values))
    assert lat.max_ms is not None
    assert max(values) / 1000 <= lat.max_ms < 2 * max(values) / 1000
    assert lat.requests == len(values)
    assert math.isclose(lat.p50_ms or 0, 0.032, abs_tol=0.032)  # inside [32, 63] µs
