"""The compiled_parse diskstats parse reads exactly what its Python twin reads, and declines the rest.

``raidtop/collect/_diskstats_native.c`` is a fast path: for every text it
either returns the columns ``diskstats._regular`` returns for it, value for
value, or ``None`` so that the Python path reads it and words its notes. These
tests hold it to that on the corpus's real files, on files damaged at random
and on the inputs a hostile or broken /proc could give.
"""

from __future__ import annotations

from array import array
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from raidtop.collect.diskstats import DiskstatsParser, _regular
from raidtop.model.disk_columns import DiskCounterColumns
from tests.collect.corpus_files import CORPUS, SYSSTAT, SYSSTAT_TREES
from tests.collect.test_damaged_input_random import REAL_DISKSTATS, damaged

DISKSTATS_FILES = sorted((CORPUS / "proc-diskstats").iterdir()) + [
    SYSSTAT / t / "proc" / "diskstats" for t in SYSSTAT_TREES
]
LINE = "   8       0 sda 49601 2822 3195498 623970 12180 9784 821088 117109 0 32862 714408 0 0 0 0 10 20\n"


def _as_lists(disks: DiskCounterColumns) -> tuple:
    return (
        list(disks.names),
        list(disks.majors),
        list(disks.minors),
        {f: None if c is None else list(c) for f, c in disks.counters.items()},
    )


def _compiled_columns(compiled_parse, text: str) -> DiskCounterColumns | None:
    parser = DiskstatsParser()
    return parser.devices if parser._compiled_read(text, compiled_parse) else None


@pytest.mark.parametrize("path", DISKSTATS_FILES, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_every_real_file_the_python_parse_takes_whole_the_compiled_one_takes_alike(compiled_parse, path: Path) -> None:
    text = path.read_text()
    expected = _regular(text.splitlines(), text)
    got = _compiled_columns(compiled_parse, text)
    if expected is None:
        assert got is None  # mixed kernels' lines in one file: read line by line, in Python
    else:
        assert got is not None, "a file the kernel printed must take the fast path"
        assert _as_lists(got) == _as_lists(expected)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_a_damaged_file_is_read_alike_or_left_to_python(compiled_parse, data) -> None:
    text = data.draw(damaged(REAL_DISKSTATS))
    got = _compiled_columns(compiled_parse, text)
    if got is not None:
        expected = _regular(text.splitlines(), text)
        assert expected is not None
        assert _as_lists(got) == _as_lists(expected)


_PIECES = st.one_of(
    st.sampled_from(["0", "7", "18446744073709551615", "18446744073709551616", " ", "\t", "\n", "sda", "\r", "\x00"]),
    st.text(max_size=4),
)


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_PIECES, max_size=120), st.sampled_from([14, 18, 20]))
def test_any_text_is_read_alike_or_left_to_python(compiled_parse, pieces: list[str], width: int) -> None:
    # A regular line first, so that the pieces after it reach the per-line checks.
    text = " ".join(["8", "0", "sda", *["1"] * (width - 3)]) + "\n" + "".join(pieces)
    got = _compiled_columns(compiled_parse, text)
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
def test_what_the_kernel_never_prints_is_declined(compiled_parse, text: str, why: str) -> None:
    assert compiled_parse.parse(text) is None, why


@pytest.mark.parametrize(
    ("text", "counter"),
    [
        (LINE.replace("49601", "18446744073709551615"), 2**64 - 1),
        (LINE.replace("49601", "00000000000000000000049601"), 49601),
        (LINE.replace("\n", ""), 49601),  # no newline at the end
        (LINE.replace(" ", "\t"), 49601),
    ],
)
def test_what_the_kernel_may_print_is_read(compiled_parse, text: str, counter: int) -> None:
    got = _compiled_columns(compiled_parse, text)
    assert got is not None and got.counters["rd_ios"] == array("Q", [counter])
    assert _as_lists(got) == _as_lists(_regular(text.splitlines(), text))


def test_a_declined_read_is_still_read_by_the_parser_with_its_note() -> None:
    parser = DiskstatsParser()
    disks, notes = parser.parse(LINE + LINE.replace("sda", "sdb").replace("49601", "+5"))
    assert list(disks.names) == ["sda"]
    assert notes and "non-numeric" in notes[0]


def test_changed_rows_are_the_rows_whose_counters_moved(compiled_parse) -> None:
    lines = [LINE.replace("sda", name) for name in ("sda", "sdb", "sdc", "sdd")]
    width, _, before = compiled_parse.parse("".join(lines))
    lines[0] = lines[0].replace("49601", "49602")  # the first counter
    lines[2] = lines[2].replace(" 10 20\n", " 10 21\n")  # the last one
    _, _, now = compiled_parse.parse("".join(lines))
    assert width == 20
    assert compiled_parse.changed_rows(now, before, 4) == [0, 2]
    assert compiled_parse.changed_rows(before, before, 4) == []
    assert compiled_parse.changed_rows(now, before[:-8], 4) is None  # not the same shape
    assert compiled_parse.changed_rows(now, before, 3) is None
    assert compiled_parse.changed_rows(now, before, 0) is None


def test_the_parser_reports_exactly_the_lines_that_changed(compiled_parse) -> None:
    lines = [LINE.replace("sda", f"sd{chr(97 + i)}") for i in range(6)]
    parser = DiskstatsParser()
    parser.parse("".join(lines))
    lines[1] = lines[1].replace("823", "824")  # nothing there: not a change of any counter
    lines[4] = lines[4].replace("821088", "821096")
    parser.parse("".join(lines))
    assert parser.same_devices and parser.changed == [4]
