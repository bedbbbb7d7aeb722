"""Which devices have ever done I/O, from the counter columns at once (the Disks panel hides idle loops by it)."""

from __future__ import annotations

import random
from array import array

import pytest

from raidtop.model.disk_columns import COUNTER_FIELDS, DiskCounterColumns, DiskRows

_USE = ("rd_ios", "wr_ios", "dc_ios", "fl_ios")
# Values whose bytes test the fold: zero, low byte only, high byte only, byte edges, the 64-bit top.
_VALUES = [0, 0, 0, 1, 255, 256, 7 << 8, 1 << 31, 1 << 32, 1 << 40, 1 << 56, 1 << 63, 2**64 - 1]


def _rows(columns: dict[str, array | list | None]) -> DiskRows:
    n = len(next(c for c in columns.values() if c is not None))
    counters = DiskCounterColumns(array("Q", [8] * n), array("Q", range(n)), [f"d{i}" for i in range(n)], columns)
    return DiskRows(counters, {}, {})


def _expected(columns) -> list[bool]:
    present = [columns[f] for f in _USE if columns.get(f) is not None]
    return [any(c[i] for c in present) for i in range(len(present[0]))]


@pytest.mark.parametrize("seed", range(20))
def test_ever_used_is_any_completed_io_counter(seed: int) -> None:
    rng = random.Random(seed)
    n = rng.choice([1, 2, 7, 500])
    columns: dict = {f: array("Q", (rng.choice(_VALUES) for _ in range(n))) for f in COUNTER_FIELDS}
    if seed % 3 == 0:
        columns["dc_ios"] = columns["fl_ios"] = None  # a kernel before 4.18 prints neither
    expected = _expected(columns)
    rows = _rows(columns)
    assert rows.ever_used() == expected
    assert rows.used_mask() == bytes(expected)
    # An irregular read (lists, as read line by line) gives the same answer.
    as_lists = {f: None if c is None else list(c) for f, c in columns.items()}
    assert _rows(as_lists).ever_used() == expected and _rows(as_lists).used_mask() == bytes(expected)


def test_a_counter_crossing_a_byte_keeps_the_mask() -> None:
    # The panel compares masks every tick: a busy device's counters moving must not change it.
    columns: dict = {f: array("Q", [0, 0]) for f in COUNTER_FIELDS}
    columns["rd_ios"] = array("Q", [255, 0])
    before = _rows(columns).used_mask()
    columns["rd_ios"] = array("Q", [256, 0])
    assert _rows(columns).used_mask() == before == b"\x01\x00"
    columns["wr_ios"] = array("Q", [0, 1 << 60])
    assert _rows(columns).used_mask() == b"\x01\x01"


def test_no_io_counter_means_never_used() -> None:
    columns: dict = dict.fromkeys(COUNTER_FIELDS)
    columns["rd_sectors"] = array("Q", [5, 0])
    assert _rows(columns).ever_used() == [False, False] and _rows(columns).used_mask() == b"\x00\x00"
