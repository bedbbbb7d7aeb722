"""The compiled disk parse and rates give exactly what their Python twin gives, and decline the rest.

``raidtop/collect/_disk_native.c`` is a fast path: for every input it either
returns what the Python code (``diskstats._regular``, ``rates.disk_rate_columns``)
returns for it, value for value and float for float, or ``None`` so that the
Python path reads it and words its notes. These tests hold it to that on the
corpus's real files, on files damaged at random, on counters chosen at random
(wraps, resets, fields an older kernel lacks) and on the inputs a hostile or
broken /proc could give.
"""

from __future__ import annotations

import math
from array import array
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from raidtop.collect import native
from raidtop.collect.diskstats import DiskstatsParser, _regular
from raidtop.collect.rates import disk_rate_columns
from raidtop.model.disk_columns import COUNTER_FIELDS, DiskCounterColumns
from raidtop.model.snapshot import DISK_RATE_FIELDS
from tests.collect.corpus_files import CORPUS, SYSSTAT, SYSSTAT_TREES
from tests.collect.test_damaged_input_random import REAL_DISKSTATS, damaged

DISKSTATS_FILES = sorted((CORPUS / "proc-diskstats").iterdir()) + [
    SYSSTAT / t / "proc" / "diskstats" for t in SYSSTAT_TREES
]
LINE = "   8       0 sda 49601 2822 3195498 623970 12180 9784 821088 117109 0 32862 714408 0 0 0 0 10 20\n"


@pytest.fixture(scope="module")
def compiled():
    """The C module (the project's install builds it: a run without it fails, not skips)."""
    if native.compiled is None:
        pytest.fail("raidtop.collect._disk_native is not built: reinstall (make) with a C compiler")
    return native.compiled


def _as_lists(disks: DiskCounterColumns) -> tuple:
    return (
        list(disks.names),
        list(disks.majors),
        list(disks.minors),
        {f: None if c is None else list(c) for f, c in disks.counters.items()},
    )


def _compiled_columns(compiled, text: str) -> DiskCounterColumns | None:
    parser = DiskstatsParser()
    return parser.devices if parser._compiled_read(text, compiled) else None


def test_the_built_module_counts_the_fields_in_the_order_the_model_does(compiled) -> None:
    assert compiled.COUNTER_FIELDS == COUNTER_FIELDS
    assert compiled.RATE_FIELDS == DISK_RATE_FIELDS


@pytest.mark.parametrize("path", DISKSTATS_FILES, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_every_real_file_the_python_parse_takes_whole_the_compiled_one_takes_alike(compiled, path: Path) -> None:
    text = path.read_text()
    expected = _regular(text.splitlines(), text)
    got = _compiled_columns(compiled, text)
    if expected is None:
        assert got is None  # mixed kernels' lines in one file: read line by line, in Python
    else:
        assert got is not None, "a file the kernel printed must take the fast path"
        assert _as_lists(got) == _as_lists(expected)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_a_damaged_file_is_read_alike_or_left_to_python(compiled, data) -> None:
    text = data.draw(damaged(REAL_DISKSTATS))
    got = _compiled_columns(compiled, text)
    if got is not None:
        expected = _regular(text.splitlines(), text)
        assert expected is not None
        assert _as_lists(got) == _as_lists(expected)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        (LINE.replace("49601", "18446744073709551616"), "2**64 does not fit a counter"),
        (LINE.replace("49601", "99999999999999999999"), "nor does a 20-digit number past it"),
        (LINE.replace("49601", "+49601"), "int() takes a sign; the kernel never prints one"),
        (LINE.replace("49601", "49_601"), "nor a digit separator"),
        (LINE.replace("49601", "٤٩٦٠١"), "nor another script's digits"),
        (LINE.replace("\n", "\r\n"), "a carriage return: splitlines() decides the lines"),
        (LINE.replace(" sda ", " s\x00a "), "a NUL in a name"),
        (LINE.replace(" sda ", " s\x7fa "), "a DEL in a name"),
        (LINE.replace(" sda ", " sdä "), "not ASCII"),
        (LINE.replace("\n", " 7\n"), "21 fields"),
        (LINE + LINE.replace(" 10 20\n", "\n").replace("sda", "sdb"), "18 fields after 20"),
        (LINE + "\n" + LINE.replace("sda", "sdb"), "an empty line"),
        ("", "nothing"),
        ("\n", "an empty line alone"),
        (" ".join(["1"] * 17) + "\n", "17 fields"),
    ],
)
def test_what_the_kernel_never_prints_is_declined(compiled, text: str, why: str) -> None:
    assert compiled.parse(text) is None, why


@pytest.mark.parametrize(
    ("text", "counter"),
    [
        (LINE.replace("49601", "18446744073709551615"), 2**64 - 1),
        (LINE.replace("49601", "00000000000000000000049601"), 49601),
        (LINE.replace("\n", ""), 49601),  # no newline at the end
        (LINE.replace(" ", "\t"), 49601),
    ],
)
def test_what_the_kernel_may_print_is_read(compiled, text: str, counter: int) -> None:
    got = _compiled_columns(compiled, text)
    assert got is not None and got.counters["rd_ios"] == array("Q", [counter])
    assert _as_lists(got) == _as_lists(_regular(text.splitlines(), text))


def test_a_declined_read_is_still_read_by_the_parser_with_its_note() -> None:
    parser = DiskstatsParser()
    disks, notes = parser.parse(LINE + LINE.replace("sda", "sdb").replace("49601", "+5"))
    assert list(disks.names) == ["sda"]
    assert notes and "non-numeric" in notes[0]


def test_changed_rows_are_the_rows_whose_counters_moved(compiled) -> None:
    lines = [LINE.replace("sda", name) for name in ("sda", "sdb", "sdc", "sdd")]
    width, _, before = compiled.parse("".join(lines))
    lines[0] = lines[0].replace("49601", "49602")  # the first counter
    lines[2] = lines[2].replace(" 10 20\n", " 10 21\n")  # the last one
    _, _, now = compiled.parse("".join(lines))
    assert width == 20
    assert compiled.changed_rows(now, before, 4) == [0, 2]
    assert compiled.changed_rows(before, before, 4) == []
    assert compiled.changed_rows(now, before[:-8], 4) is None  # not the same shape
    assert compiled.changed_rows(now, before, 3) is None
    assert compiled.changed_rows(now, before, 0) is None


def test_the_parser_reports_exactly_the_lines_that_changed(compiled) -> None:
    lines = [LINE.replace("sda", f"sd{chr(97 + i)}") for i in range(6)]
    parser = DiskstatsParser()
    parser.parse("".join(lines))
    lines[1] = lines[1].replace("823", "824")  # nothing there: not a change of any counter
    lines[4] = lines[4].replace("821088", "821096")
    parser.parse("".join(lines))
    assert parser.same_devices and parser.changed == [4]


# ---------------------------------------------------------------- rates

_MS = {"rd_ticks", "wr_ticks", "dc_ticks", "fl_ticks", "tot_ticks", "rq_ticks"}


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
def test_rates_are_the_python_rates_float_for_float(compiled, reads, since_boot: bool) -> None:
    old, new, interval, huge = reads
    prev = None if since_boot else old
    if not huge:  # the C code's own case: it must take it, or this test compares Python with itself
        assert compiled.rate_columns(
            tuple(new.counters.values()), None if prev is None else tuple(old.counters.values()), interval
        )
    got = disk_rate_columns(prev, new, interval)
    native.compiled = None
    try:
        expected = disk_rate_columns(prev, new, interval)
    finally:
        native.compiled = compiled
    assert got[1] == expected[1]
    assert _same(got[0], expected[0])
    assert all(v is None or (math.isfinite(v) and v >= 0) for c in got[0].values() if c for v in c)


def test_rates_decline_what_is_not_their_regular_case(compiled) -> None:
    a = array("Q", [1, 2])
    now = tuple(a if i < 17 else None for i in range(17))
    assert compiled.rate_columns(now, now, 1.0) is not None
    assert compiled.rate_columns(now, now, 0.0) is None  # no interval
    assert compiled.rate_columns(now, now, math.nan) is None
    assert compiled.rate_columns(now, now, math.inf) is None
    assert compiled.rate_columns(tuple((1, 2) for _ in range(17)), now, 1.0) is None  # not a buffer
    short = tuple(array("Q", [1]) for _ in range(17))
    assert compiled.rate_columns(short, now, 1.0) is None  # another length
    signed = tuple(array("q", [1, 2]) for _ in range(17))
    assert compiled.rate_columns(signed, now, 1.0) is None  # signed: not counters
    half = now[:11] + (None,) * 6
    assert compiled.rate_columns(half, now, 1.0) is None  # a field in one read only
    assert compiled.rate_columns(now[:16], now, 1.0) is None
