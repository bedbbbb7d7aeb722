"""The fio figures' formatters in raidtop.presentation.format (moved out of the Benchmarks screen)."""

from __future__ import annotations

from raidtop.presentation.format import DASH, fmt_iops, fmt_lat, fmt_mib, fmt_pct


def test_iops_keep_three_or_four_digits():
    assert [fmt_iops(v) for v in (None, 912, 9_999, 31_200, 1_240_000)] == [DASH, "912", "9,999", "31.2k", "1.24M"]


def test_mb_keep_three_significant_digits():
    assert [fmt_mib(v) for v in (None, 4.096, 128.04, 3_276.8)] == [DASH, "4.10", "128.0", "3,277"]


def test_latency_takes_the_unit_that_keeps_it_short():
    assert [fmt_lat(v) for v in (None, 412, 1_930, 10_400, 2_010_000)] == [DASH, "412µs", "1.93ms", "10.4ms", "2.01s"]


def test_a_change_is_signed_and_empty_when_undefined():
    assert (fmt_pct(4.14), fmt_pct(-12.0), fmt_pct(None)) == ("+4.1%", "-12.0%", "")
