"""What a TextTable holds: columns, rows of formatted cells, and how a cell is fitted to its width."""

from __future__ import annotations

from dataclasses import dataclass

from rich.style import Style

from raidtop.untrusted import plain


@dataclass(frozen=True, slots=True)
class Column:
    """One column: its key, header label, width and alignment."""

    key: str
    label: str
    width: int
    align: str = "right"
    """``left`` or ``right``."""


@dataclass(frozen=True, slots=True)
class Row:
    """One row: a stable key and its cells as already-formatted text.

    ``styles`` names a tone per cell (``dim``, ``good``, ``warn``, ``crit``,
    ``accent``, ``spark``) that maps to a theme-driven component class;
    ``None`` means the table's normal text colour.
    """

    key: str
    cells: tuple[str, ...]
    styles: tuple[str | None, ...] = ()


def fit_cell(text: str, width: int, align: str) -> str:
    """``text`` as plain text exactly ``width`` columns wide, aligned."""
    # Cells hold device names, labels and paths: each goes out as a Segment,
    # which Rich writes verbatim, so control characters are replaced here.
    text = plain(text)
    if len(text) > width - 1 and align == "right":
        text = text[: width - 1]
    elif len(text) > width:
        text = text[: width - 1] + "…"
    # Right-aligned cells keep a space on their left so numbers never touch.
    return " " + text.rjust(width - 1) if align == "right" else text.ljust(width)


def text_only_style(style: Style) -> Style:
    """``style`` without its background."""
    # Tones colour the text only, so the cursor row's background shows through.
    return Style(color=style.color, bold=style.bold, underline=style.underline, italic=style.italic)
