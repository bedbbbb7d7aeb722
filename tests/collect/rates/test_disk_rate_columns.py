"""Rates for every device at once (the columns) equal disk_io's, device by device, float for float.

The references are disk_io's rows, which test_sysstat_equivalence holds to
iostat's own output; here the columns must give exactly the same numbers on
the same real diskstats files, and on the edges disk_io handles one device
at a time: a 32-bit wrap of a millisecond field, a reset, a device that
appeared, an older kernel without discard or flush fields.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from raidtop.collect.diskstats import parse_diskstats
from raidtop.collect.rates import disk_io, disk_rate_columns
from raidtop.model.disk_columns import DiskCounterColumns, DiskRows
from raidtop.model.snapshot import DISK_RATE_FIELDS

# Both ways of reading disks: the compiled parse and rates, and their Python twin alone.
pytestmark = pytest.mark.usefixtures("disk_code")

DATA = Path(__file__).resolve().parents[2] / "data"
SYSSTAT_ROOTS = [DATA / "sysstat" / f"root{n}" / "proc" / "diskstats" for n in range(1, 8)]


def _columns(text: str) -> DiskCounterColumns:
    disks, notes = parse_diskstats(text)
    assert not notes
    return disks


def _expected(prev: DiskCounterColumns | None, cur: DiskCounterColumns, interval: float) -> list[tuple]:
    """disk_io's rows; a device absent from ``prev`` has no rate yet (what the Sampler shows for it)."""
    before = {d.name: d for d in prev} if prev is not None else {}
    unknown = (None,) * len(DISK_RATE_FIELDS)
    rows = []
    for d in cur:
        if prev is not None and d.name not in before:
            rows.append(unknown)
        else:
            rows.append(tuple(getattr(disk_io(before.get(d.name), d, interval), f) for f in DISK_RATE_FIELDS))
    return rows


def _got(prev: DiskCounterColumns | None, cur: DiskCounterColumns, interval: float) -> tuple[list[tuple], list[int]]:
    where = None
    if prev is not None and prev.names != cur.names:
        index = {name: i for i, name in enumerate(prev.names)}
        where = [index.get(name) for name in cur.names]
    columns, unknown = disk_rate_columns(prev, cur, interval, where)
    rows = DiskRows(cur, columns, {})
    return [tuple(getattr(row, f) for f in DISK_RATE_FIELDS) for row in rows], unknown


def _lines_of_width(path: Path, width: int) -> str:
    """The lines of a recorded diskstats with ``width`` fields: a file as one kernel prints it.

    The sysstat fixtures mix lines from kernels of different ages (line by
    line, test_sysstat_equivalence covers those through the Sampler).
    """
    return "".join(line + "\n" for line in path.read_text().splitlines() if len(line.split()) == width)


PAIRS = [(1, 2, 18), (2, 3, 18), (3, 4, 18), (4, 5, 18), (5, 6, 18), (6, 7, 14), (6, 7, 18)]


@pytest.mark.parametrize(("first", "second", "width"), PAIRS)
def test_columns_equal_disk_io_on_recorded_diskstats(first: int, second: int, width: int) -> None:
    prev = _columns(_lines_of_width(SYSSTAT_ROOTS[first - 1], width))
    cur = _columns(_lines_of_width(SYSSTAT_ROOTS[second - 1], width))
    assert len(cur) >= 3
    got, _ = _got(prev, cur, 31.17)
    assert got == _expected(prev, cur, 31.17)


def test_since_boot_is_every_counter_over_the_uptime() -> None:
    cur = _columns(_lines_of_width(SYSSTAT_ROOTS[0], 18))
    got, unknown = _got(None, cur, 12345.67)
    assert got == _expected(None, cur, 12345.67)
    assert unknown == []


LINE = "   8       0 {name} {rd} 10 {sec} {rdt} 50 5 400 70 0 {tot} {rq} 3 1 24 2 4 {flt}"


def _text(*devices: dict) -> str:
    return "\n".join(LINE.format(**d) for d in devices) + "\n"


def test_a_wrapped_millisecond_field_is_a_rate_and_a_reset_is_unknown() -> None:
    base = {"rd": 100, "sec": 800, "rdt": 2**32 - 10, "tot": 500, "rq": 900, "flt": 7}
    before = _text({**base, "name": "sda"}, {**base, "name": "sdb"}, {**base, "name": "sdc"})
    after = _text(
        {**base, "name": "sda", "rd": 160, "sec": 1280, "rdt": 30},  # rd_ticks wrapped: 40 ms
        {**base, "name": "sdb", "rd": 5, "sec": 40, "rdt": 3},  # reset: no honest rate
        {**base, "name": "sdc", "rd": 100},  # idle
    )
    prev, cur = _columns(before), _columns(after)
    got, unknown = _got(prev, cur, 2.0)
    assert got == _expected(prev, cur, 2.0)
    assert got[0][DISK_RATE_FIELDS.index("r_await_ms")] == 40 / 60
    assert unknown == [1]
    assert set(got[1]) == {None}
    assert got[2][DISK_RATE_FIELDS.index("r_s")] == 0.0
    assert got[2][DISK_RATE_FIELDS.index("r_await_ms")] is None  # an average over no request


def test_devices_that_moved_appeared_or_went_are_matched_by_name() -> None:
    base = {"rd": 100, "sec": 800, "rdt": 40, "tot": 500, "rq": 900, "flt": 7}
    prev = _columns(_text({**base, "name": "sda"}, {**base, "name": "sdb"}, {**base, "name": "gone"}))
    cur = _columns(
        _text({**base, "name": "sdb", "rd": 150}, {**base, "name": "new"}, {**base, "name": "sda", "rd": 101})
    )
    got, unknown = _got(prev, cur, 1.0)
    assert got[0][DISK_RATE_FIELDS.index("r_s")] == 50.0
    assert got[2][DISK_RATE_FIELDS.index("r_s")] == 1.0
    assert unknown == [1] and set(got[1]) == {None}  # no previous sample: no rate yet


def test_a_kernel_without_discard_or_flush_fields_has_none_of_those_rates() -> None:
    text = "   8       0 sda 100 10 800 40 50 5 400 70 0 500 900\n"
    later = "   8       0 sda 180 10 1440 80 50 5 400 70 0 700 1100\n"
    prev, cur = _columns(text), _columns(later)
    got, _ = _got(prev, cur, 1.0)
    assert got == _expected(prev, cur, 1.0)
    row = dict(zip(DISK_RATE_FIELDS, got[0]))
    assert row["r_s"] == 80.0 and row["d_s"] is None and row["f_s"] is None


def test_rows_are_made_only_when_asked_for_and_columns_need_none() -> None:
    text = _text(
        *({"name": f"sd{n}", "rd": n, "sec": 8 * n, "rdt": n, "tot": n, "rq": n, "flt": 0} for n in range(300))
    )
    later = _text(
        *({"name": f"sd{n}", "rd": 2 * n, "sec": 16 * n, "rdt": n, "tot": n, "rq": n, "flt": 0} for n in range(300))
    )
    prev, cur = _columns(text), _columns(later)
    columns, _ = disk_rate_columns(prev, cur, 1.0)
    rows = DiskRows(cur, columns, {})
    assert rows.column("r_s")[299] == 299.0
    assert rows.column("throughput_kib_s")[2] == 8.0
    assert rows.made_count == 0
    assert rows[7].r_s == 7.0 and rows[7] is rows[7]  # made once, then kept
    assert rows.made_count == 1


@pytest.mark.parametrize("busy_share", [0.0, 0.1, 0.5, 0.8, 1.0])
def test_columns_equal_disk_io_whether_few_or_most_devices_moved(busy_share: float) -> None:
    # A field few devices moved is averaged only where they did; one most moved, for all at
    # once: both must give disk_io's floats, and None exactly where a device had no request.
    import random

    rng = random.Random(int(busy_share * 10))
    before, after = [], []
    for n in range(64):
        counters = [rng.randrange(0, 10**9) for _ in range(17)]
        counters[8] = rng.randrange(0, 4)  # in flight: a gauge
        moved = list(counters)
        if rng.random() < busy_share:
            for field in (0, 1, 2, 3, 4, 5, 6, 7, 9, 10):
                moved[field] += rng.randrange(0, 300)
            if rng.random() < 0.3:
                for field in (11, 12, 13, 14, 15, 16):
                    moved[field] += rng.randrange(1, 50)
        before.append(f"   8 {n * 16:7d} sd{n} {' '.join(map(str, counters))}\n")
        after.append(f"   8 {n * 16:7d} sd{n} {' '.join(map(str, moved))}\n")
    prev, cur = _columns("".join(before)), _columns("".join(after))
    got, unknown = _got(prev, cur, 1.5)
    assert got == _expected(prev, cur, 1.5) and unknown == []
