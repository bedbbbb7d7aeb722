"""TextTable: rows that come and go within the table's height relay out nothing (issue 30, item 1).

A new virtual size relays out the whole screen (14 ms at 120×40); the Processes
panel's list changes length every few seconds, so each change cost a relayout.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.screen import Screen

from raidtop.app.terminal_app import TerminalApp
from raidtop.widgets.text_table import Column, Row, TextTable

COLUMNS = [Column("name", "Name", 10, "left"), Column("value", "Value", 8)]


def rows(count: int, value: str = "1") -> list[Row]:
    return [Row(f"r{i}", (f"row{i}", value)) for i in range(count)]


class TableApp(TerminalApp[None]):
    def __init__(self, css: str = "") -> None:
        super().__init__()
        self.table_css = css

    def compose(self) -> ComposeResult:
        table = TextTable(COLUMNS, id="table")
        if self.table_css:
            table.styles.height = self.table_css
        yield table


def text(table: TextTable, y: int) -> str:
    return "".join(segment.text for segment in table.render_line(y))


class LayoutCount:
    """Counts the screen's layouts (Textual's ``_refresh_layout``)."""

    def __init__(self, monkeypatch) -> None:
        self.count = 0
        original = Screen._refresh_layout

        def counted(screen, *args, **kwargs):
            self.count += 1
            return original(screen, *args, **kwargs)

        monkeypatch.setattr(Screen, "_refresh_layout", counted)


async def test_rows_coming_and_going_within_the_height_relay_out_nothing(monkeypatch):
    app = TableApp()
    async with app.run_test(size=(40, 12)) as pilot:
        table = app.query_one(TextTable)
        table.set_rows(rows(1))
        await pilot.pause()
        layouts = LayoutCount(monkeypatch)
        for count in (2, 1, 3, 0, 2, 1):
            table.set_rows(rows(count, value=str(count)))
            await pilot.pause()
            shown = [text(table, y).split() for y in range(1, table.size.height)]
            assert shown[:count] == [[f"row{i}", str(count)] for i in range(count)]
            assert all(line == [] for line in shown[max(count, 1) :]), shown  # rows gone are blank lines
        assert layouts.count == 0
        assert not table.show_vertical_scrollbar


async def test_rows_beyond_the_height_scroll_and_the_scrollbar_goes_when_they_fit_again():
    app = TableApp()
    async with app.run_test(size=(40, 8)) as pilot:
        table = app.query_one(TextTable)
        table.set_rows(rows(20))
        await pilot.pause()
        await pilot.pause()
        assert table.show_vertical_scrollbar and table.virtual_size.height == 21
        table.cursor_row = 19
        await pilot.pause()
        assert table.scroll_offset.y > 0  # the last row can be reached
        table.set_rows(rows(3))
        await pilot.pause()
        await pilot.pause()
        assert not table.show_vertical_scrollbar
        assert [text(table, y).split()[0] for y in range(1, 4)] == ["row0", "row1", "row2"]


async def test_a_table_sized_by_its_rows_still_grows_and_shrinks_with_them():
    app = TableApp(css="auto")
    async with app.run_test(size=(40, 20)) as pilot:
        table = app.query_one(TextTable)
        table.set_rows(rows(2))
        await pilot.pause()
        assert table.size.height == 3
        table.set_rows(rows(5))
        await pilot.pause()
        assert table.size.height == 6
        table.set_rows(rows(1))
        await pilot.pause()
        assert table.size.height == 2
