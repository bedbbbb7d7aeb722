"""A DataTable of fleet rows: every cell plain Text (never markup), the state coloured by tone."""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual.widgets import DataTable

from raidtop.fleet.rows import Row

_TONE_VARIABLE = {"crit": "error", "warn": "warning", "accent": "accent"}


class FleetTable(DataTable):
    """Rows of hosts and arrays; ``row_key`` of each row is its host (what Enter opens)."""

    DEFAULT_CSS = """
    FleetTable { height: 1fr; }
    """

    def __init__(self, columns: tuple[str, ...], **kwargs) -> None:
        super().__init__(cursor_type="row", zebra_stripes=True, **kwargs)
        self._columns = columns
        self.keys: list[str] = []
        """The host of each row, in order."""
        self._widths: list[int] = []

    def on_mount(self) -> None:
        if not self.columns:
            self.add_columns(*self._columns)

    def show(self, rows: list[Row]) -> None:
        """Replace the rows, keeping the cursor on the same line number."""
        cursor = self.cursor_row
        variables = self.app.theme_variables
        widths = [
            max([cell_len(label)] + [cell_len(r.cells[i]) for r in rows if i < len(r.cells)])
            for i, label in enumerate(self._columns)
        ]
        if widths != self._widths:
            # Columns sized up front: DataTable widens auto-sized columns only when
            # idle and keeps cells it painted at the old width, so "store7:10719"
            # read "stor" and "111.5M/s" read "111.5".
            self._widths = widths
            self.clear(columns=True)
            for label, width in zip(self._columns, widths):
                self.add_column(label, width=width)
        else:
            self.clear()
        self.keys = []
        for row in rows:
            colour = variables.get(_TONE_VARIABLE.get(row.tone or "", ""), "") if row.tone else ""
            cells = [Text(c, style=colour if colour and i <= 3 else "") for i, c in enumerate(row.cells)]
            self.add_row(*cells)
            self.keys.append(row.key)
        if rows:
            self.move_cursor(row=min(cursor, len(rows) - 1))

    @property
    def current_key(self) -> str | None:
        """The host of the highlighted row."""
        if 0 <= self.cursor_row < len(self.keys):
            return self.keys[self.cursor_row]
        return None
