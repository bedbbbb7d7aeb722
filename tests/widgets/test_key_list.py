"""The help's key rows wrap onto more lines instead of cutting a description."""

from __future__ import annotations

from raidtop.widgets.key_list import KeyRow, KeyWidths

WIDTHS = KeyWidths(key=5, action=10, details=20)


def test_a_long_description_wraps_and_keeps_every_word():
    row = KeyRow("sync-slower", "[", "Slower rebuild", "Demo: lower the simulated array's sync speed limit")
    lines = row.lines(WIDTHS)
    assert len(lines) == row.height(WIDTHS) == 3
    assert [line[1] for line in lines] == ["Slower", "rebuild", ""]
    assert " ".join(line[2] for line in lines) == row.details
    assert all(len(line[2]) <= WIDTHS.details and "…" not in line[2] for line in lines)


def test_a_word_longer_than_its_column_is_split_not_cut():
    row = KeyRow("x", "x", "Go", "ata-WDC_WD40EFRX-68N32N0_WD-WCC4E1234567")
    parts = [line[2] for line in row.lines(WIDTHS)]
    assert "".join(parts) == row.details and all(len(part) <= WIDTHS.details for part in parts)


def test_a_short_row_is_one_line():
    assert KeyRow("q", "q", "Quit", "Leave raidtop").lines(WIDTHS) == [("q", "Quit", "Leave raidtop")]
