"""A DataTable of fleet rows: every cell plain Text (never markup), the state coloured by tone."""

from __future__ import annotations

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

    def on_mount(self) -> None:
        self.add_columns(*self._columns)

    def show(self, rows: list[Row]) -> None:
        """Replace the rows, keeping the cursor on the same line number."""
        cursor = self.cursor_row
        variables = self.app.theme_variables
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
