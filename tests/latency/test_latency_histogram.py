"""Percentiles from log2 buckets against exact percentiles (hypothesis), and bpftrace's JSON."""

from __future__ import annotations

import math
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from raidtop.latency.histogram import (
    Bucket,
    delta,
    from_values,
    log2_bucket,
    parse_hist_message,
    percentile,
    percentile_bounds,
    percentile_bucket,
)
from raidtop.latency.program import FINER

DATA = Path(__file__).parent.parent / "data" / "bpftrace"


def exact(values: list[int], q: float) -> int:
    """Nearest-rank percentile: the smallest value with at least q % of the samples at or below it."""
    ordered = sorted(values)
    return ordered[max(1, math.ceil(q / 100 * len(ordered))) - 1]


latencies = st.lists(st.integers(min_value=0, max_value=10**9), min_size=1, max_size=400)
quantiles = st.sampled_from([1, 25, 50, 90, 99, 99.9, 100])


@settings(max_examples=300, deadline=None)
@given(latencies, quantiles)
def test_the_exact_percentile_lies_in_the_reported_bucket(values, q):
    hist = from_values(values)
    bucket = percentile_bucket(hist, q)
    assert bucket.low <= exact(values, q) <= bucket.high


@settings(max_examples=300, deadline=None)
@given(latencies, quantiles)
def test_the_estimate_is_within_its_bucket_and_a_factor_of_two(values, q):
    hist = from_values(values)
    estimate = percentile(hist, q)
    truth = exact(values, q)
    bucket = percentile_bucket(hist, q)
    assert bucket.low <= estimate <= bucket.high
    if truth >= 1:
        assert truth / 2 <= estimate <= truth * 2


@settings(max_examples=200, deadline=None)
@given(latencies)
def test_max_bound_is_at_least_the_max_and_under_twice_it(values):
    bound = from_values(values).max_bound
    assert max(values) <= bound <= max(2 * max(values), 1)


def test_buckets_are_bpftraces():
    assert [log2_bucket(v) for v in (0, 1, 2, 3, 4, 7, 8, 1023, 1024)] == [
        (0, 0),
        (1, 1),
        (2, 3),
        (2, 3),
        (4, 7),
        (4, 7),
        (8, 15),
        (512, 1023),
        (1024, 2047),
    ]


def test_bpftraces_own_json_parses():
    hists = parse_hist_message((DATA / "bpftrace-bpftrace__runtime_outputs_hist_multiple.json").read_text())
    assert set(hists) == {"bpftrace", "curl"}
    curl = hists["curl"]
    assert curl.total == 4  # the negative bucket left out
    assert percentile_bucket(curl, 50) == Bucket(256, 511, 1)
    assert percentile_bucket(curl, 99) == Bucket(1024, 2047, 2)
    assert curl.max_bound == 2047
    single = parse_hist_message((DATA / "bpftrace-bpftrace__runtime_outputs_hist.json").read_text())["@hist"]
    assert single.total == 2
    zero = parse_hist_message((DATA / "bpftrace-bpftrace__runtime_outputs_hist_zero.json").read_text())
    assert list(zero) == ["@hist"] and zero["@hist"].total == 0 and percentile(zero["@hist"], 99) is None


def test_bad_input_gives_nothing():
    for text in (
        "",
        "not json",
        '{"type": "map", "data": {}}',
        '{"type": "hist", "data": {"@": [{"min": -5, "max": 3, "count": 1}]}}',
        '{"type": "hist", "data": {"@": [{"min": 0, "max": 1, "count": 1e999}]}}',
    ):
        assert parse_hist_message(text) == {}


@settings(max_examples=200, deadline=None)
@given(latencies, latencies)
def test_an_intervals_histogram_is_the_difference_of_two_cumulative_prints(first, second):
    older, newer = from_values(first), from_values(first + second)
    assert delta(newer, older).total == len(second)
    assert {(b.low, b.high): b.count for b in delta(newer, older).buckets if b.count} == {
        (b.low, b.high): b.count for b in from_values(second).buckets
    }


FINER_SCALES = tuple(scale for _name, scale in FINER)


@settings(max_examples=300, deadline=None)
@given(latencies, quantiles)
def test_with_the_finer_histograms_the_bounds_hold_the_exact_percentile_and_the_estimate_is_close(values, q):
    hist = from_values(values, FINER_SCALES)
    low, high = percentile_bounds(hist, q)
    truth = exact(values, q)
    assert low <= truth < high
    # A quarter octave (plus the truncation of small values): the middle is within 10 % of the truth.
    if truth >= 64:
        assert high / low <= 2**0.25 * 1.02
        assert abs(percentile(hist, q) - truth) <= 0.1 * truth


def test_a_tight_distribution_is_no_longer_answered_by_its_buckets_top():
    # Every request ~25 ms (a dm-delay leg): log2 alone interpolates to ~32.6 ms.
    values = [25_000 + i % 300 for i in range(1000)]
    assert percentile(from_values(values), 99) > 32_000
    assert abs(percentile(from_values(values, FINER_SCALES), 99) - 25_300) < 0.1 * 25_300


def test_finer_histograms_are_differenced_with_the_main_one():
    older = from_values([100, 200], FINER_SCALES)
    newer = from_values([100, 200, 300, 40_000], FINER_SCALES)
    gained = delta(newer, older)
    assert gained.total == 2 and [h.total for _scale, h in gained.finer] == [2, 2, 2]
