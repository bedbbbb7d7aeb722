"""A light, fixed-header table that repaints only the cells whose text changed.

Textual's DataTable re-renders whole rows; updating a 20×12 one every second costs more CPU than glances.
This widget keeps one rendered line per row and marks dirty only the cells that changed, so only those
reach the terminal; with a row source it makes rows only for the lines on screen.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from raidtop.untrusted import plain
from raidtop.widgets.table_cells import Column, Row, column_at, fit_widths, text_only_style, whole_cells
from raidtop.widgets.table_cells import changed_spans, header_strip, row_segments
from raidtop.widgets.part_styles import TABLE_BACKGROUND, TABLE_PARTS, TONES

__all__ = ["Column", "Row", "TextTable"]


class TextTable(ScrollView, can_focus=True):
    """A scrollable table with a fixed header, a cursor row and partial repaints.

    Its header, cursor and tones are the app's (see :mod:`raidtop.widgets.part_styles`).
    """

    DEFAULT_CSS = f"""
    TextTable {{
        background: {TABLE_BACKGROUND};
        color: $foreground;
        scrollbar-size: 1 1;
        height: 1fr;
    }}
    """

    BINDINGS = [
        Binding("up", "cursor(-1)", "Up", show=False, id="table-cursor-up"),
        Binding("down", "cursor(1)", "Down", show=False, id="table-cursor-down"),
        Binding("pageup", "cursor_page(-1)", "Page up", show=False, id="table-page-up"),
        Binding("pagedown", "cursor_page(1)", "Page down", show=False, id="table-page-down"),
        Binding("home", "cursor_to(0)", "First row", show=False, id="table-first-row"),
        Binding("end", "cursor_to(-1)", "Last row", show=False, id="table-last-row"),
    ]

    cursor_row: reactive[int] = reactive(0, repaint=False)
    """Index of the highlighted row."""

    class HeaderClicked(Message):
        """The user clicked a column header: the owner may sort by it."""

        def __init__(self, table: TextTable, column: str) -> None:
            super().__init__()
            self.table = table
            self.column = column

        @property
        def control(self) -> TextTable:
            return self.table

    class RowSelected(Message):
        """Enter (or a click) on a row."""

        def __init__(self, table: TextTable, key: str) -> None:
            super().__init__()
            self.table = table
            self.key = key

        @property
        def control(self) -> TextTable:
            return self.table

    def __init__(
        self,
        columns: list[Column],
        *,
        show_header: bool = True,
        show_cursor: bool = True,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._columns = list(columns)
        # Keys in display order, and a function that makes the row at an index,
        # called only for lines on screen.
        self._keys: Sequence[str] = ()
        self._row_at: Callable[[int], Row] | None = None
        self._fetched: dict[int, Row] = {}
        self._sorted_key: str | None = None
        self._sort_reverse = False
        self._strips: dict[int, tuple[object, Strip]] = {}
        self._header: Strip | None = None
        self._line_style_cache: tuple | None = None
        self.column_widths = [c.width for c in self._columns]
        """Each column's width as drawn now (narrower than declared where the window is and the column may shrink)."""
        self._total_width = sum(self.column_widths)
        self._visible = 0
        self.show_header = show_header
        self.show_cursor = show_cursor
        self.placeholder = ""
        """Text shown when there are no rows (a reason, not silence)."""

    # -------------------------------------------------------------- data in

    @property
    def rows(self) -> list[Row]:
        """The rows as last set (every row made now: for inspection, not per tick)."""
        return [self._row(index) for index in range(self._count)]

    @property
    def row_count(self) -> int:
        """How many rows the table holds."""
        return len(self._keys)

    _count = row_count

    def _row(self, index: int) -> Row:
        """The row at ``index``, made once per update and only when asked."""
        row = self._fetched.get(index)
        if row is None:
            assert self._row_at is not None  # keys are only ever set with their rows
            row = self._fetched[index] = self._row_at(index)
        return row

    @property
    def columns(self) -> list[Column]:
        """The columns in display order."""
        return self._columns

    def set_columns(self, columns: list[Column]) -> None:
        """Replace the columns (and repaint everything)."""
        self._columns = list(columns)
        self._fit_columns()
        self._invalidate_all()

    def _fit_columns(self) -> None:
        """Narrow the columns that may shrink so the table fits its window (:func:`fit_widths`)."""
        window = self._visible = self.scrollable_content_region.width if self.is_mounted else 0
        self.column_widths = fit_widths(self._columns, window) if window > 0 else [c.width for c in self._columns]
        self._total_width = sum(self.column_widths)
        self.virtual_size = Size(self._total_width, self.virtual_size.height)

    def set_sort_marker(self, key: str | None, reverse: bool) -> None:
        """Underline the header of the column rows are sorted by."""
        if (key, reverse) != (self._sorted_key, self._sort_reverse):
            self._sorted_key, self._sort_reverse = key, reverse
            self._header = None
            self.refresh_lines(self.scroll_offset.y, 1)

    def set_rows(self, rows: list[Row], placeholder: str = "") -> None:
        """Show ``rows``, repainting only lines whose content changed; the cursor stays on its line."""
        self.set_row_source([row.key for row in rows], rows.__getitem__, placeholder, follow_cursor=False)

    def set_row_source(
        self, keys: Sequence[str], row_at: Callable[[int], Row], placeholder: str = "", *, follow_cursor: bool = True
    ) -> None:
        """Show ``len(keys)`` rows made by ``row_at(index)``, only for the lines on screen.

        Rows off screen are never made, styled or measured; lines on screen
        repaint only when their row changed. The cursor stays on its key
        (with ``follow_cursor``) or on its line.
        """
        cursor_key = self.cursor_key if follow_cursor else None
        old_count, old_fetched = self._count, self._fetched
        first_rows = self._row_at is None
        self._keys, self._row_at, self._fetched = keys, row_at, {}
        placeholder_changed = placeholder != self.placeholder
        self.placeholder = placeholder
        self._fit_virtual_size(len(keys))
        if cursor_key is not None and (self.cursor_row >= len(keys) or keys[self.cursor_row] != cursor_key):
            try:
                self.cursor_row = keys.index(cursor_key)
            except ValueError:
                pass
        self._clamp_cursor()
        # A count that changes repaints all only where the placeholder comes or goes or the height follows it.
        recount = old_count != len(keys) and (not keys or not old_count or self._sized_by_rows())
        if first_rows or placeholder_changed or recount:
            self._invalidate_all()
            return
        first, last = self._visible_rows()
        # Cached lines off screen are stale by now; the compositor asks for them again on scroll.
        self._strips = {index: strip for index, strip in self._strips.items() if first <= index < last}
        for index in range(first, min(last, len(keys))):
            before, after = old_fetched.get(index) if index < old_count else None, self._row(index)
            if before != after:
                self._repaint_cells(index, before, after)
        for index in range(max(first, len(keys)), min(last, old_count)):  # rows gone: blank lines now
            self._strips.pop(index, None)
            self.refresh_lines(index + self._top, 1)

    def _fit_virtual_size(self, count: int) -> None:
        """Size the scrollable area for ``count`` rows, at least the table's own height.

        A new virtual size relays out the whole screen (14 ms at 120×40), and the list of
        processes doing I/O changes length every few seconds: rows that come and go
        within the table's height change no layout (unless its height follows its rows;
        while a scrollbar shows, the rows alone, so that it goes when they fit again).
        """
        height = max(1, count) + self._top
        if not self._sized_by_rows() and not self.show_vertical_scrollbar:
            height = max(height, self.scrollable_content_region.height)
        if self.virtual_size.height != height or self.virtual_size.width != self._total_width:
            self.virtual_size = Size(self._total_width, height)

    def _sized_by_rows(self) -> bool:
        """Whether the table's height follows its rows (``height: auto``)."""
        return self.styles.height is None or self.styles.height.is_auto

    def _repaint_cells(self, index: int, before: Row | None, after: Row) -> None:
        """Repaint the cells of row ``index`` whose text or tone changed (Textual writes dirty regions)."""
        self._strips.pop(index, None)
        line = index + self._top  # the header occupies line 0; off-screen regions are clipped
        if before is None or before.key != after.key:
            self.refresh_lines(line, 1)
            return
        scroll_x, scroll_y = self.scroll_offset
        for start, width in changed_spans(before, after, self.column_widths):
            self.refresh(Region(start - scroll_x, line - scroll_y, width, 1))

    def _visible_rows(self) -> tuple[int, int]:
        """Indices of the first row on screen and one past the last."""
        first = self.scroll_offset.y
        return first, first + max(0, self.size.height - self._top)

    @property
    def cursor_key(self) -> str | None:
        """The key of the highlighted row, if any."""
        if 0 <= self.cursor_row < self._count:
            return self._keys[self.cursor_row]
        return None

    def move_cursor_to_key(self, key: str) -> None:
        """Highlight the row with ``key`` if present."""
        if key in self._keys:
            self.cursor_row = list(self._keys).index(key)

    # -------------------------------------------------------------- rendering

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.size.width
        top = self._top
        window = (self._visible or width, width)  # cells fit beside the scrollbar
        if top and y == 0:
            return whole_cells(self._header_strip(), self.column_widths, scroll_x, window)
        index = scroll_y + y - top
        count = self._count
        if not count and index == 0 and self.placeholder:
            style = TABLE_PARTS.style(self.app, "dim")
            return Strip([Segment(plain(self.placeholder)[:width].ljust(width), style)])
        if index >= count:
            return Strip.blank(width, self._line_styles()[0][0])
        return whole_cells(self._row_strip(index), self.column_widths, scroll_x, window)

    def _header_strip(self) -> Strip:
        if self._header is None:
            styles = (TABLE_PARTS.style(self.app, "header"), TABLE_PARTS.style(self.app, "sorted"))
            sort = (self._sorted_key, self._sort_reverse)
            self._header = header_strip(self._columns, self.column_widths, sort, styles, self.size.width)
        return self._header

    def _row_strip(self, index: int) -> Strip:
        row = self._row(index)
        # One cursor on screen: only the focused table draws its highlighted row.
        is_cursor = self.show_cursor and index == self.cursor_row and self.has_focus
        cache_key = (row, is_cursor, self.has_focus, self.size.width)
        cached = self._strips.get(index)
        if cached is not None and cached[0] == cache_key:
            return cached[1]
        base, toned = self._line_styles()[is_cursor]
        segments = row_segments(row, self._columns, self.column_widths, base, toned)
        pad = max(0, self.size.width - self._total_width)
        if pad:
            segments.append(Segment(" " * pad, base))
        strip = Strip(segments).simplify()
        self._strips[index] = (cache_key, strip)
        return strip

    def _line_styles(self) -> tuple[tuple[Style, dict[str, Style]], tuple[Style, dict[str, Style]]]:
        """(normal, cursor) line styles, each with its tones, computed once per style change.

        Resolving ``rich_style`` walks the ancestors and each component style
        is a CSS lookup: doing that per repainted line was most of the cost.
        """
        if self._line_style_cache is None:
            normal = self.rich_style
            cursor = normal + TABLE_PARTS.style(self.app, "cursor")
            tones = {tone: text_only_style(TABLE_PARTS.style(self.app, tone)) for tone in TONES}
            self._line_style_cache = tuple(
                (base, {tone: base + style for tone, style in tones.items()}) for base in (normal, cursor)
            )
        return self._line_style_cache

    # -------------------------------------------------------------- behaviour

    def watch_cursor_row(self, old: int, new: int) -> None:
        for index in (old, new):
            self._strips.pop(index, None)
            self.refresh_lines(index + self._top, 1)
        self._scroll_cursor_into_view()

    def _scroll_cursor_into_view(self) -> None:
        line = self.cursor_row + self._top
        top = self.scroll_offset.y
        visible = max(1, self.size.height - self._top)
        if line - 1 < top:
            self.scroll_to(y=line - 1, animate=False)
        elif line > top + visible:
            self.scroll_to(y=line - visible, animate=False)

    def _clamp_cursor(self) -> None:
        if self._count and self.cursor_row >= self._count:
            self.cursor_row = self._count - 1

    def action_cursor(self, step: int) -> None:
        """Move the cursor ``step`` rows."""
        if self._count:
            self.cursor_row = max(0, min(self._count - 1, self.cursor_row + step))

    def action_cursor_page(self, direction: int) -> None:
        """Move the cursor a page up or down."""
        self.action_cursor(direction * max(1, self.size.height - 2))

    def action_cursor_to(self, index: int) -> None:
        """Jump to the first (0) or last (-1) row."""
        if self._count:
            self.cursor_row = index if index >= 0 else self._count - 1

    def key_enter(self) -> None:
        key = self.cursor_key
        if key is not None:
            self.post_message(self.RowSelected(self, key))

    @property
    def _top(self) -> int:
        """Lines above the first row: 1 with a header, else 0."""
        return 1 if self.show_header else 0

    def on_click(self, event: events.Click) -> None:
        if self._top and event.y == 0:
            column = column_at(self._columns, self.column_widths, event.x + self.scroll_offset.x)
            if column is not None:
                self.post_message(self.HeaderClicked(self, column.key))
            return
        index = self.scroll_offset.y + event.y - self._top
        if 0 <= index < self._count:
            if index == self.cursor_row:
                self.post_message(self.RowSelected(self, self._row(index).key))
            self.cursor_row = index

    def on_focus(self) -> None:
        self._invalidate_all()

    on_blur = on_focus

    def on_resize(self) -> None:
        self._fit_columns()
        self._fit_virtual_size(self._count)
        self._invalidate_all()

    watch_show_vertical_scrollbar = on_resize  # rows that outgrow the table take a column for the scrollbar

    def notify_style_update(self) -> None:
        # A theme change alters every component style: drop every cached line.
        super().notify_style_update()
        self._invalidate_all()

    def _invalidate_all(self) -> None:
        self._line_style_cache = None
        self._strips.clear()
        self._header = None
        self.refresh()
