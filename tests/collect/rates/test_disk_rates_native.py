"""The compiled_rates iostat rates are the Python rates float for float, and decline the rest.

``raidtop/collect/rates/_disk_rates_native.c`` is a fast path: for two reads
it either returns the columns ``disk_rate_columns`` works out in Python, float
for float, or ``None`` so that the Python path works them out. These tests
hold it to that on counters chosen at random (growth, 32-bit wraps of the
millisecond fields, resets, fields an older kernel lacks) and on inputs that
are not its case.
"""

from __future__ import annotations

import math
from array import array

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from raidtop.collect import native
from raidtop.collect.rates import disk_rate_columns
from raidtop.collect.rates.disk import _WRAPPING_MS_FIELDS
from raidtop.model.disk_columns import COUNTER_FIELDS, DiskCounterColumns
from raidtop.model.snapshot import DISK_RATE_FIELDS


def test_the_built_module_counts_the_fields_in_the_order_the_model_does(compiled_rates) -> None:
    assert compiled_rates.COUNTER_FIELDS == COUNTER_FIELDS
    assert compiled_rates.RATE_FIELDS == DISK_RATE_FIELDS


_MS = _WRAPPING_MS_FIELDS  # the fields the kernel prints with %u


@st.composite
def two_reads(draw) -> tuple[DiskCounterColumns, DiskCounterColumns, float, bool]:
    """Two reads of the same devices: counters that grow, wrap a 32-bit millisecond field, or go back."""
    count = draw(st.integers(1, 12))
    huge = draw(st.integers(0, 9)) == 0  # in a tenth of the examples, changes the C code declines
    width = draw(st.sampled_from([14, 18, 20]))
    present = COUNTER_FIELDS[: width - 3]
    old: dict[str, array | None] = {}
    new: dict[str, array | None] = {}
    for field in COUNTER_FIELDS:
        if field not in present:
            old[field] = new[field] = None
            continue
        before, after = [], []
        for _ in range(count):
            kind = draw(st.sampled_from(["idle", "grow", "grow", "wrap", "back", *(["huge"] if huge else [])]))
            start = draw(st.integers(0, 2**32 - 1 if field in _MS else 2**40))
            if kind == "wrap" and field not in _MS:
                kind = "grow"  # only the millisecond fields wrap at 2**32
            if kind == "idle":
                end = start
            elif kind == "grow":
                end = start + draw(st.integers(0, 10**6))
            elif kind == "wrap":
                start = 2**32 - draw(st.integers(1, 2**20))
                end = draw(st.integers(0, 2**20))
            elif kind == "back":
                end = draw(st.integers(0, start))
            else:  # a change of 2**52 or more: left to Python, which holds any size exactly
                end = start + 2**52 + draw(st.integers(0, 2**40))
            before.append(start)
            after.append(end)
        old[field], new[field] = array("Q", before), array("Q", after)
    names = [f"d{i}" for i in range(count)]
    majors = array("Q", [8] * count)
    minors = array("Q", range(count))
    interval = draw(st.sampled_from([0.5, 1.0, 1.01, 3.0, 0.013]))
    reads = DiskCounterColumns(majors, minors, names, old), DiskCounterColumns(majors, minors, names, new)
    return *reads, interval, huge


def _same(a: dict, b: dict) -> bool:
    for field in DISK_RATE_FIELDS:
        x, y = a[field], b[field]
        if (x is None) != (y is None):
            return False
        if x is not None and [None if v is None else v.hex() for v in x] != [None if v is None else v.hex() for v in y]:
            return False
    return True


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(two_reads(), st.booleans())
def test_rates_are_the_python_rates_float_for_float(compiled_rates, reads, since_boot: bool) -> None:
    old, new, interval, huge = reads
    prev = None if since_boot else old
    if not huge:  # the C code's own case: it must take it, or this test compares Python with itself
        assert compiled_rates.rate_columns(
            tuple(new.counters.values()), None if prev is None else tuple(old.counters.values()), interval
        )
    got = disk_rate_columns(prev, new, interval)
    native.disk_rates = None
    try:
        expected = disk_rate_columns(prev, new, interval)
    finally:
        native.disk_rates = compiled_rates
    assert got[1] == expected[1]
    assert _same(got[0], expected[0])
    assert all(v is None or (math.isfinite(v) and v >= 0) for c in got[0].values() if c for v in c)


def test_rates_decline_what_is_not_their_regular_case(compiled_rates) -> None:
    a = array("Q", [1, 2])
    now = tuple(a if i < 17 else None for i in range(17))
    assert compiled_rates.rate_columns(now, now, 1.0) is not None
    assert compiled_rates.rate_columns(now, now, 0.0) is None  # no interval
    assert compiled_rates.rate_columns(now, now, math.nan) is None
    assert compiled_rates.rate_columns(now, now, math.inf) is None
    assert compiled_rates.rate_columns(tuple((1, 2) for _ in range(17)), now, 1.0) is None  # not a buffer
    short = tuple(array("Q", [1]) for _ in range(17))
    assert compiled_rates.rate_columns(short, now, 1.0) is None  # another length
    signed = tuple(array("q", [1, 2]) for _ in range(17))
    assert compiled_rates.rate_columns(signed, now, 1.0) is None  # signed: not counters
    half = now[:11] + (None,) * 6
    assert compiled_rates.rate_columns(half, now, 1.0) is None  # a field in one read only
    assert compiled_rates.rate_columns(now[:16], now, 1.0) is None
