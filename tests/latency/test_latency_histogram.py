"""Percentiles from log2 buckets against exact percentiles (hypothesis), and bpftrace's JSON."""

from __future__ import annotations

import math
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from raidtop.latency.histogram import (
    Bucket,
    Log2Histogram,
    delta,
    from_values,
    log2_bucket,
    merged,
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


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.integers(min_value=0, max_value=10**9), max_size=100), min_size=1, max_size=6), quantiles)
def test_histograms_merged_are_the_histogram_of_all_their_samples(parts, q):
    # The faults course adds a leg's intervals into one distribution: its percentiles must be the whole run's.
    whole = from_values([v for part in parts for v in part], FINER_SCALES)
    one = merged(from_values(part, FINER_SCALES) for part in parts)
    assert one == whole
    assert percentile(one, q) == percentile(whole, q) and percentile_bounds(one, q) == percentile_bounds(whole, q)


def test_merging_sums_equal_buckets_and_keeps_the_others_in_order():
    a = Log2Histogram((Bucket(4, 7, 2), Bucket(64, 127, 1)))
    b = Log2Histogram((Bucket(0, 0, 5), Bucket(4, 7, 3), Bucket(16, 31, 0), Bucket(2048, 4095, 4)))
    assert merged([a, b]).buckets == (
        Bucket(0, 0, 5),
        Bucket(4, 7, 5),
        Bucket(16, 31, 0),
        Bucket(64, 127, 1),
        Bucket(2048, 4095, 4),
    )
    assert merged([b, a]) == merged([a, b]) and merged([a]) == a


def test_merging_nothing_or_empty_histograms_gives_an_empty_one():
    assert merged([]) == Log2Histogram(())
    nothing = merged([from_values([]), Log2Histogram(())])
    assert nothing.total == 0 and nothing.max_bound is None and percentile(nothing, 99) is None


def test_a_finer_scale_only_some_hold_is_kept_but_bounds_nothing_unless_the_others_were_empty():
    fine, coarse = from_values([25_000] * 99 + [25_300], FINER_SCALES), from_values([25_000] * 100)
    mixed = merged([fine, coarse])
    assert mixed.total == 200 and [h.total for _scale, h in mixed.finer] == [100, 100, 100]
    # Half the samples lack the finer counts: the bounds are the log2 bucket's, not a guess from half.
    assert percentile_bounds(mixed, 99) == (16384.0, 32768.0)
    with_empty = merged([fine, from_values([])])
    assert with_empty == fine and percentile_bounds(with_empty, 99) == percentile_bounds(fine, 99)
    assert percentile_bounds(fine, 99)[1] - percentile_bounds(fine, 99)[0] < 5000


def test_a_recordings_intervals_merged_are_its_whole_runs_gain():
    # raidtop's own bpftrace run (cumulative prints): each interval differenced, then merged back.
    prints = [h for h in map(parse_hist_message, (DATA / "raidtop-loop-members.jsonl").read_text().splitlines()) if h]
    assert len(prints) == 4
    for key in prints[-1]:
        intervals = [delta(newer[key], older.get(key)) for older, newer in zip(prints, prints[1:])]
        whole = delta(prints[-1][key], prints[0][key])
        assert merged(intervals).total == whole.total == prints[-1][key].total - prints[0][key].total > 0
        assert merged(intervals).buckets == whole.buckets
