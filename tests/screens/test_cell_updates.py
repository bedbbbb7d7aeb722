"""Partial updates start at the first changed cell: a changed clock digit sends that digit, not the line before it."""

from __future__ import annotations

from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.geometry import Region
from textual.screen import Screen
from textual.strip import Strip
from textual.widgets import Static

from raidtop.screens import cell_updates
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


# A screen whose top line and bottom line change (a clock and a table row, as on the dashboard)
# above and below widgets that do not: Textual asked all of them for their lines every tick.
class _Counted:
    """Counts, per class, how often a widget is asked for its lines."""

    asked = 0

    def render_lines(self, crop):
        type(self).asked += 1
        return super().render_lines(crop)  # type: ignore[misc]


class _Idle(_Counted, Static):
    asked = 0


class _Box(_Counted, Horizontal):
    """A container behind a changing widget: its lines there are the widget's."""

    asked = 0


class _Probe(Screen):
    def __init__(self) -> None:
        super().__init__()
        assert cell_updates.install(self)

    def compose(self) -> ComposeResult:
        yield Static("clock 00:00:00", id="top")
        with Horizontal(id="middle"):
            yield _Idle("idle left panel\nsecond line", id="left")
            yield _Idle("idle right panel", id="right")
        with _Box(id="box"):
            yield Static("row 1 r/s 10.00", id="bottom")


class _ProbeApp(App):
    CSS = "#top, #bottom, #box { height: 1; } #middle { height: 6; } #left, #right { width: 1fr; }"

    def on_mount(self) -> None:
        self.push_screen(_Probe())


def _apply(screen: list[list[str]], update) -> None:
    """Write a partial update's cells into a character grid, as the terminal would."""
    for y, x1, x2 in update.spans:
        for end, (x, strip) in zip(update.chop_ends[y], update.chops[y].items()):
            cells = None if strip is None else cell_updates.crop_span(x, end, x1, x2)
            if cells is not None:
                text = strip.crop(cells[0] - x, cells[1] - x).text
                screen[y][cells[0] : cells[0] + len(text)] = list(text)


async def test_a_partial_update_asks_only_the_widgets_under_a_change_and_paints_what_a_full_one_would():
    app = _ProbeApp()
    async with app.run_test(size=(60, 10)) as pilot:
        await pilot.pause()
        compositor = app.screen._compositor
        assert isinstance(compositor, cell_updates.CellCompositor)
        painted = [list(strip.text.ljust(60)) for strip in compositor.render_strips()]
        for tick in range(1, 4):
            _Idle.asked = _Box.asked = 0
            app.screen.query_one("#top", Static).update(f"clock 00:00:0{tick}")
            app.screen.query_one("#bottom", Static).update(f"row 1 r/s {10 + tick}.00")
            compositor.update_widgets({app.screen.query_one("#top"), app.screen.query_one("#bottom")})
            update = compositor.render_partial_update()
            assert update is not None
            assert _Idle.asked == 0, "an idle panel between two changes was asked for its lines"
            assert _Box.asked == 0, "a container wholly behind its changed widget was asked for its lines"
            _apply(painted, update)
            full = [strip.text.ljust(60) for strip in compositor.render_strips()]
            assert ["".join(line) for line in painted] == full
        assert f"clock 00:00:0{tick}" in full[0] and "row 1 r/s 13.00" in "".join(full)


def test_take_cells_settles_what_a_widget_paints_and_leaves_the_rest():
    uncovered = {0: [(0, 10)], 1: [(5, 8)], 3: [(0, 2)]}
    assert cell_updates.take_cells(Region(2, 0, 4, 2), uncovered)  # x 2..6 on lines 0 and 1
    assert uncovered == {0: [(0, 2), (6, 10)], 1: [(6, 8)], 3: [(0, 2)]}
    assert not cell_updates.take_cells(Region(2, 0, 4, 3), uncovered)  # nothing left there
    assert not cell_updates.take_cells(Region(0, 3, 0, 1), uncovered)  # an empty area takes nothing
    assert cell_updates.take_cells(Region(0, 0, 120, 4), uncovered) and uncovered == {}


async def test_a_compositor_shaped_otherwise_still_gets_the_changes_drawn_by_textual(monkeypatch):
    """If the private compositor's insides change, Textual's own update must still see the dirty cells."""
    app = _ProbeApp()
    async with app.run_test(size=(60, 10)) as pilot:
        await pilot.pause()
        compositor = app.screen._compositor
        compositor.render_partial_update()  # start from nothing pending
        top = app.screen.query_one("#top", Static)
        top.update("clock 00:00:42")
        compositor.update_widgets({top})

        def reshaped(*_args):
            raise AttributeError("a private attribute this Textual does not have")

        monkeypatch.setattr(cell_updates, "take_cells", reshaped)  # only raidtop's own walk uses it
        update = compositor.render_partial_update()
        assert update is not None, "the changed cells were dropped before Textual's own update could draw them"
        assert [y for y, _, _ in update.spans] == [0]


async def test_the_chops_are_textuals_and_nobody_keeps_their_pieces():
    import sys

    from textual._compositor import Compositor

    app = _ProbeApp()
    async with app.run_test(size=(60, 10)) as pilot:
        await pilot.pause()
        compositor = app.screen._compositor
        everything = compositor.size.region
        textuals = Compositor._render_chops(compositor, everything, lambda y: True)
        ours = compositor._render_chops(everything, lambda y: True)
        assert [list(line) for line in ours] == [list(line) for line in textuals]
        for mine, theirs in zip(ours, textuals):
            for x, piece in mine.items():
                assert piece is not None and theirs[x] is not None
                assert list(piece) == list(theirs[x]) and piece.cell_length == theirs[x].cell_length
        # A line cut into pieces: Textual's pieces are also in the line's cache, ours are not
        # (one reference fewer: no line on screen keeps them once the update is written).
        cut = [(mine[x], theirs[x]) for mine, theirs in zip(ours, textuals) for x in mine if mine[x] is not theirs[x]]
        assert cut
        assert all(sys.getrefcount(mine) == sys.getrefcount(theirs) - 1 for mine, theirs in cut)


def test_pieces_cut_a_line_as_textual_does():
    line = Strip([Segment("ab", Style(bold=True)), Segment("cdef"), Segment("ghij", Style(color="red"))])
    for cuts in ([10], [3, 10], [2, 6, 10], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], [4, 12]):
        ours = cell_updates.pieces(line, cuts)
        theirs = Strip(line._segments).divide(cuts)
        assert [list(piece) for piece in ours] == [list(piece) for piece in theirs], cuts
        assert [piece.cell_length for piece in ours] == [piece.cell_length for piece in theirs], cuts
