"""Issue 23: how a table cell is fitted — gaps, shorter numbers, … for text, columns that give way, whole cells only."""

from __future__ import annotations

import pytest
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from raidtop.widgets.table_cells import Column, fit_cell, fit_widths, shorter_number, whole_cells


@pytest.mark.parametrize(
    ("text", "room", "shown"),
    [
        ("21304", 4, "21k"),
        ("213045", 5, "213k"),
        ("60000.00", 7, "60000.0"),
        ("60000.00", 5, "60000"),
        ("60000.00", 4, "60k"),
        ("1279K/s", 6, "1.2M/s"),
        ("12.0G", 3, "12G"),
        ("4294967295", 7, "4.3G"),
        ("2576980992 B", 11, "2.4 GiB"),
        ("12,345", 5, "12.3k"),
        ("1.23e+07", 6, "12.3M"),
        ("999999", 4, "1.0M"),
        ("99.5%", 4, "100%"),
        ("123.5°C", 3, "…"),
        ("123456", 2, "…"),
    ],
)
def test_a_number_too_long_becomes_shorter_never_cut(text: str, room: int, shown: str):
    assert shorter_number(text, room) == shown
    assert fit_cell(text, room + 1, "right") == " " + shown.rjust(room)


def test_text_is_not_a_number():
    assert shorter_number("mq-deadline", 5) is None
    assert shorter_number("[11/10]", 5) is None


def test_every_cell_after_the_first_keeps_a_gap():
    assert fit_cell("100", 6, "right") == "   100"
    assert fit_cell("8", 6, "left") == " 8    "
    assert fit_cell("loop20", 6, "left", gap=False) == "loop20"
    # The SMART row that read "100 200 08": Thresh 0 and Raw 8 each keep their blank.
    line = fit_cell("0", 7, "right") + fit_cell("8", 22, "left")
    assert line.split() == ["0", "8"]
    # A left-aligned cell that brings its own leading space uses it as its gap.
    assert fit_cell(" missing", 9, "left") == " missing "


def test_text_is_cut_with_an_ellipsis():
    assert fit_cell("mq-deadline", 8, "left") == " mq-dea…"
    assert fit_cell("mq-deadline", 8, "left", gap=False) == "mq-dead…"


def test_columns_with_a_minimum_give_way_by_their_slack():
    columns = [Column("a", "A", 10, min_width=5), Column("b", "B", 20, min_width=10), Column("c", "C", 5)]
    assert fit_widths(columns, 35) == [10, 20, 5]
    widths = fit_widths(columns, 28)
    assert sum(widths) == 28 and widths[2] == 5 and widths[0] >= 5 and widths[1] >= 10
    assert fit_widths(columns, 10) == [5, 10, 5]  # minimums kept: the table scrolls sideways


def test_a_text_column_at_the_end_shrinks_by_itself():
    columns = [Column("t", "Time", 9, "left"), Column("cmd", "Command", 140, "left")]
    assert fit_widths(columns, 100) == [9, 91]
    numbers = [Column("t", "Time", 9, "left"), Column("n", "f/s", 140)]
    assert fit_widths(numbers, 100) == [9, 140]  # a right-aligned (number) column does not


def test_a_cell_cut_by_the_window_is_left_blank():
    style = Style()
    line = Strip([Segment("aaaa", style), Segment("  0.00", style), Segment(" 60000.00", style)])
    shown = whole_cells(line, [4, 6, 9], 0, (14, 16))
    assert shown.text == "aaaa  0.00      "
    scrolled = whole_cells(line, [4, 6, 9], 2, (14, 14))
    assert scrolled.text == "    0.00      "  # "aaaa" half out on the left, "60000.00" half out on the right
