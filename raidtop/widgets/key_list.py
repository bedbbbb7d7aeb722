"""A list of keys, what each does and why: three columns whose longer texts wrap instead of being cut.

The help screen deals these into as many columns as the terminal holds. A
description that does not fit its column goes on below, word by word, so every
word of it stays on screen (a cell cut with "…" hid half of them).
"""

from __future__ import annotations

import textwrap

from rich.cells import cell_len
from rich.text import Text
from textual.widget import Widget

from raidtop.model.frozen import frozen_dataclass
from raidtop.untrusted import plain
from raidtop.widgets.part_styles import KEY_LIST_PARTS


@frozen_dataclass(slots=False)
class KeyWidths:
    """The three columns' widths, in cells; two cells of gap between neighbours."""

    key: int
    action: int
    details: int

    @property
    def total(self) -> int:
        """The whole row's width, gaps included."""
        return self.key + self.action + self.details + 2 * GAP


GAP = 2


@frozen_dataclass(slots=False)
class KeyRow:
    """One key: its id (ids of several keys joined with ``+``), the keys as shown, what it does, more on it."""

    key_id: str
    keys: str
    action: str
    details: str

    @property
    def cells(self) -> tuple[str, str, str]:
        """The three texts, in column order."""
        return (self.keys, self.action, self.details)

    def lines(self, widths: KeyWidths) -> list[tuple[str, str, str]]:
        """The row as screen lines: each column's text wrapped to its width, shorter columns padded with ``""``."""
        columns = [_wrap(text, width) for text, width in zip(self.cells, (widths.key, widths.action, widths.details))]
        height = max(len(column) for column in columns)
        padded = [column + [""] * (height - len(column)) for column in columns]
        return list(zip(*padded))

    def height(self, widths: KeyWidths) -> int:
        """How many screen lines the row takes at ``widths``."""
        return len(self.lines(widths))


def _wrap(text: str, width: int) -> list[str]:
    """``text`` broken at spaces into lines of at most ``width`` cells; a longer word is split, never cut."""
    if cell_len(text) <= width:
        return [text]
    return textwrap.wrap(text, max(1, width), break_long_words=True, break_on_hyphens=False) or [""]


class KeyList(Widget):
    """Rows of key, action and details; as tall as its wrapped rows, as wide as its columns."""

    # Its parts' look is the app's (raidtop.widgets.part_styles).
    DEFAULT_CSS = f"""
    KeyList {{ height: auto; width: auto; background: {KEY_LIST_PARTS.background}; }}
    """

    def __init__(self, rows: list[KeyRow], widths: KeyWidths, **kwargs) -> None:
        super().__init__(**kwargs)
        self.rows = [KeyRow(row.key_id, plain(row.keys), plain(row.action), plain(row.details)) for row in rows]
        """The rows shown, control characters replaced."""
        self.widths = widths
        """The columns' widths the rows are wrapped to."""
        self.styles.width = widths.total
        self.styles.height = sum(row.height(widths) for row in self.rows)

    def screen_lines(self) -> list[str]:
        """Every line as it is painted, without colours (tests read it)."""
        return [line.plain for line in self.render().split("\n")]

    def render(self) -> Text:
        styles = [KEY_LIST_PARTS.style(self.app, name) for name in ("key", "action", "details")]
        widths = (self.widths.key, self.widths.action, self.widths.details)
        out = Text(no_wrap=True, overflow="crop", end="")
        first = True
        for row in self.rows:
            for cells in row.lines(self.widths):
                if not first:
                    out.append("\n")
                first = False
                for index, (cell, width, style) in enumerate(zip(cells, widths, styles)):
                    out.append(cell, style)
                    if index < 2:
                        out.append(" " * (width - cell_len(cell) + GAP))
        return out
