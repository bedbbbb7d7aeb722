"""A bare Textual app that rewrites every cell of a 20×12 DataTable once a second.

The reference row of ``tui_cost.py``: what the simplest Textual monitor costs,
with nothing but Textual's own DataTable between the numbers and the terminal.
"""

from __future__ import annotations

import random

from textual.app import App, ComposeResult
from textual.widgets import DataTable

ROWS, COLUMNS = 20, 12


class DataTableReference(App[None]):
    """One DataTable, every cell replaced with a new number each second."""

    def compose(self) -> ComposeResult:
        yield DataTable()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        self._columns = table.add_columns(*(f"col{i}" for i in range(COLUMNS)))
        for row in range(ROWS):
            table.add_row(*self._values(), key=str(row))
        self.set_interval(1.0, self._update)

    def _update(self) -> None:
        table = self.query_one(DataTable)
        for row in range(ROWS):
            for column, value in zip(self._columns, self._values()):
                table.update_cell(str(row), column, value)

    @staticmethod
    def _values() -> list[str]:
        return [f"{random.uniform(0, 1000):.2f}" for _ in range(COLUMNS)]


if __name__ == "__main__":
    DataTableReference().run()
