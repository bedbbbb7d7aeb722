"""/proc/diskstats read into columns: the same counters as line by line, and nothing int() would wrongly take.

The column reader splits the whole file at once and slices it by the field
count; these tests hold it to the line-by-line reader on recorded files, on
reads where only some lines changed, and on damage that a stride could hide.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from raidtop.collect.diskstats import DiskstatsParser, _line_by_line, parse_diskstats
from raidtop.model.disk_columns import DiskCounterColumns

# Both ways of reading disks: the compiled parse and rates, and their Python twin alone.
pytestmark = pytest.mark.usefixtures("disk_code")

DATA = Path(__file__).resolve().parents[1] / "data"
NODE_EXPORTER_14 = DATA / "corpus" / "proc-diskstats" / "prometheus-node_exporter__proc_diskstats_2016_14field"
SYSSTAT = [DATA / "sysstat" / f"root{n}" / "proc" / "diskstats" for n in range(1, 8)]


def _regular_texts() -> list[tuple[str, str]]:
    """Recorded files, each cut to the lines of one field count (as one kernel prints them)."""
    texts = [("node_exporter-14", NODE_EXPORTER_14.read_text())]
    for path in SYSSTAT:
        for width in (14, 18, 20):
            lines = [line for line in path.read_text().splitlines() if len(line.split()) == width]
            if len(lines) >= 2:
                texts.append((f"{path.parts[-3]}-{width}", "".join(line + "\n" for line in lines)))
    return texts


@pytest.mark.parametrize(("text"), [t for _, t in _regular_texts()], ids=[n for n, _ in _regular_texts()])
def test_columns_hold_the_counters_line_by_line_reading_gives(text: str) -> None:
    disks, notes = parse_diskstats(text)
    assert not notes
    assert isinstance(disks, DiskCounterColumns)
    assert list(disks) == _line_by_line(text.splitlines(), [])
    assert disks.counters["rd_ios"] is not None and not isinstance(disks.counters["rd_ios"], list)  # the column path


def test_a_read_where_few_lines_changed_equals_a_fresh_read() -> None:
    lines = [f"   8 {n * 16:7d} sd{n} {n} 1 {8 * n} 2 3 4 5 6 0 7 8 0 0 0 0 0 0" for n in range(40)]
    parser = DiskstatsParser()
    first, _ = parser.parse("\n".join(lines) + "\n")
    same, _ = parser.parse("\n".join(lines) + "\n")
    assert same is first and parser.same_devices  # nothing moved: the same object, no work
    lines[7] = "   8     112 sd7 99 1 792 2 3 4 5 6 1 7 8 0 0 0 0 0 0"
    lines[30] = "   8     480 sd30 30 1 240 2 3 4 5 6 0 7 8 5 0 40 1 2 3"
    patched, notes = parser.parse("\n".join(lines) + "\n")
    assert not notes and parser.same_devices
    assert list(patched) == list(parse_diskstats("\n".join(lines) + "\n")[0])
    assert patched[7].rd_ios == 99 and patched[30].dc_ios == 5 and patched[8] == first[8]
    assert first[7].rd_ios == 7  # the earlier read is not changed under whoever holds it


def test_lines_whose_field_counts_cancel_out_are_still_read_one_by_one() -> None:
    # 21 + 19 fields: the total is that of two good lines, but the stride would shift the second.
    text = "   8       0 sda 1 2 3 4 5 6 7 8 0 9 10 0 0 0 0 0 0 77\n   8      16 sdb 1 2 3 4 5 6 7 8 0 9 10 0 0 0 0 0\n"
    disks, notes = parse_diskstats(text)
    assert [d.name for d in disks] == ["sda", "sdb"]
    assert disks[1].rd_ios == 1 and disks[1].major == 8
    assert any("field count" in n for n in notes)


@pytest.mark.parametrize("token", ["+5", "1_000", "٣", "-0", "1e3"])
def test_numbers_int_would_accept_but_the_kernel_never_prints_skip_the_line(token: str) -> None:
    good = "   8       0 sda 1 2 3 4 5 6 7 8 0 9 10 0 0 0 0 0 0\n"
    disks, notes = parse_diskstats(good + f"   8      16 sdb {token} 2 3 4 5 6 7 8 0 9 10 0 0 0 0 0 0\n")
    assert [d.name for d in disks] == ["sda"]
    assert any("non-numeric" in n for n in notes), notes


def test_a_counter_beyond_64_bits_skips_its_line() -> None:
    good = "   8      16 sdb 1 2 3 4 5 6 7 8 0 9 10 0 0 0 0 0 0\n"
    text = f"   8       0 sda {2**64} 2 3 4 5 6 7 8 0 9 10 0 0 0 0 0 0\n" + good
    disks, notes = parse_diskstats(text)
    assert [d.name for d in disks] == ["sdb"]
    assert any("64 bits" in n for n in notes)


def test_a_numeric_device_name_is_not_taken_for_a_shifted_line() -> None:
    disks, _ = parse_diskstats("   8       0 123 1 2 3 4 5 6 7 8 0 9 10 0 0 0 0 0 0\n")
    assert [d.name for d in disks] == ["123"]  # read line by line: the name is a name


@pytest.mark.parametrize("separator", ["\x1c", "\x1f", "\x85", "\u3000"])
def test_a_separator_only_text_splits_on_never_joins_two_names(separator: str) -> None:
    # An ASCII file is split as bytes, which do not split at \x1c-\x1f as str does;
    # a name holding one must be refused either way, never read as two fields.
    good = "   8       0 sda 1 2 3 4 5 6 7 8 0 9 10 0 0 0 0 0 0\n"
    disks, notes = parse_diskstats(good + f"   8      16 sd{separator}b 1 2 3 4 5 6 7 8 0 9 10 0 0 0 0 0 0\n")
    assert [d.name for d in disks] == ["sda"]
    assert notes
    assert disks[0] == parse_diskstats(good)[0][0]


def test_a_device_listed_twice_is_read_once_and_said():
    # The kernel lists a device once; a damaged recording or --root tree may not (the demo once did).
    first = "   7      20 loop20 5 0 40 1 0 0 0 0 0 1 1 0 0 0 0 0 0\n"
    again = "   7      20 loop20 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
    other = "   8       0 sda 1 2 3 4 5 6 7 8 0 9 10 0 0 0 0 0 0\n"
    disks, notes = parse_diskstats(first + other + again)
    assert [d.name for d in disks] == ["loop20", "sda"] and disks[0].rd_ios == 5
    assert notes == ["/proc/diskstats: 1 device(s) listed more than once (loop20); the first line of each is read"]


def _line(name: str, minor: int, reads: int) -> str:
    return f"   8 {minor:7d} {name} {reads} 0 8 1 0 0 0 0 0 1 1 0 0 0 0 0 0\n"


def test_steady_names_are_kept_and_new_names_are_checked_again(disk_code: str) -> None:
    # The compiled read keeps the names it checked (the same tuple, no check per read),
    # but a read whose names differ is checked whole again: a damaged later read is still refused.
    parser = DiskstatsParser()
    first, _ = parser.parse(_line("sda", 0, 1) + _line("sdb", 16, 1))
    second, _ = parser.parse(_line("sda", 0, 2) + _line("sdb", 16, 3))
    assert second.names == first.names and parser.same_devices
    assert (second.names is first.names) == (disk_code == "compiled")
    assert [d.rd_ios for d in second] == [2, 3]
    damaged, notes = parser.parse(_line("sda", 0, 4) + _line("sda", 16, 5))
    assert [d.name for d in damaged] == ["sda"] and notes and not parser.same_devices
    renamed, notes = parser.parse(_line("sda", 0, 6) + _line("123", 16, 7))
    assert [d.name for d in renamed] == ["sda", "123"] and not notes  # read line by line, as a name
    assert renamed.names is not first.names
