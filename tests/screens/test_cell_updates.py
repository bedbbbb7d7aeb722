"""Partial updates start at the first changed cell: a changed clock digit sends that digit, not the line before it."""

from __future__ import annotations

from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from raidtop.screens.cell_updates import CellChopsUpdate, crop_span

CONSOLE = Console(force_terminal=True, color_system="truecolor", width=120)
LINE = Strip(
    [
        Segment(" raidtop ", Style(bold=True)),
        Segment("vm ", Style(color="red")),
        Segment("  every 1s", Style(color="blue")),
        Segment("  00:59:14", Style(color="blue")),
        Segment(" " * 96),
    ]
)


def test_a_span_inside_a_chop_sends_only_its_cells() -> None:
    sent = CellChopsUpdate([{0: LINE}], [(0, 31, 32)], [[120]]).render_segments(CONSOLE)
    # Line 1, column 32: the seconds' last digit, in its own colour, and nothing else.
    assert sent == "\x1b[1;32H\x1b[34m4\x1b[0m"


def test_a_whole_chop_and_two_chops_on_a_line() -> None:
    left, right = LINE.crop(0, 60), LINE.crop(60, 120)
    whole = CellChopsUpdate([{0: LINE}], [(0, 0, 120)], [[120]]).render_segments(CONSOLE)
    assert whole.startswith("\x1b[1;1H") and "raidtop" in whole
    both = CellChopsUpdate([{0: left, 60: right}], [(0, 25, 70)], [[60, 120]]).render_segments(CONSOLE)
    assert both.startswith("\x1b[1;26H") and "\x1b[1;61H" in both
    assert "raidtop" not in both


def test_crop_span() -> None:
    assert crop_span(0, 120, 31, 32) == (31, 32)
    assert crop_span(60, 120, 25, 70) == (60, 70)
    assert crop_span(0, 60, 60, 70) is None


def test_an_update_shaped_otherwise_falls_back_to_textuals_own_rendering():
    # A later 8.x may change the private ChopsUpdate: the screen must still be drawn, never crash.
    from rich.console import Console
    from rich.segment import Segment
    from textual.strip import Strip

    from raidtop.screens import cell_updates

    shape = ([{0: Strip([Segment("abc")])}], [(0, 1, 3)], [[3]])
    update = cell_updates.CellChopsUpdate(*shape)

    def broken(console):
        raise AttributeError("chop_ends")

    update._cell_segments = broken  # type: ignore[method-assign]
    textuals_own = cell_updates.ChopsUpdate(*shape).render_segments(Console())
    assert update.render_segments(Console()) == textuals_own and "abc" in textuals_own
