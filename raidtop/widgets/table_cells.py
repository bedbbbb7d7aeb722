"""What a TextTable holds: columns, rows of formatted cells, and how a cell is fitted to its width.

The fitting rule, for every table (README, "Reading the tables"):

* every cell but a row's first starts with one blank column, its gap, so no
  two cells ever touch (a left-aligned cell whose text already starts with a
  space uses that space as its gap);
* a number too long for its cell is shown shorter, never with digits cut:
  first with fewer decimals, then scaled — ``21304`` → ``21.3k`` (SI, ×1000)
  for a bare number, ``1279KiB/s`` → ``1.2MiB/s`` for a number carrying a binary
  unit prefix (K, M, G, T, P: ×1024, as raidtop's sizes and md's speeds are),
  ``2576980992 B`` → ``2.4 GiB`` for bytes;
  a number that fits in no form reads ``…``;
* any other text too long for its cell is cut and ends with ``…``.
"""

from __future__ import annotations

import re
from itertools import accumulate

from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from raidtop.model.frozen import frozen_dataclass
from raidtop.untrusted import plain

ELLIPSIS = "…"
_NUMBER = re.compile(
    r"(?P<sign>[-+]?)(?P<int>\d{1,3}(?:,\d{3})+|\d+)(?:\.(?P<frac>\d+))?(?:[eE](?P<exp>[-+]?\d+))?(?P<unit>\s?[^\d\s.,]{0,8})"
)
TEXT_FLOOR = 8
"""How narrow a text column at a table's end may become by itself."""
_SI = ("", "k", "M", "G", "T", "P", "E")
_BINARY = ("K", "M", "G", "T", "P", "E")
_BYTES = ("", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei")


@frozen_dataclass
class Column:
    """One column: its key, header label, width and alignment.

    ``min_width``: how narrow the column may become when the table is wider
    than its window (None: never narrower than ``width``).
    """

    key: str
    label: str
    width: int
    align: str = "right"
    """``left`` or ``right``."""
    min_width: int | None = None


@frozen_dataclass
class Row:
    """One row: a stable key and its cells as already-formatted text.

    ``styles`` names a tone per cell (``dim``, ``good``, ``warn``, ``crit``,
    ``accent``, ``spark``) that maps to a theme-driven component class;
    ``None`` means the table's normal text colour.
    """

    key: str
    cells: tuple[str, ...]
    styles: tuple[str | None, ...] = ()


def fit_cell(text: str, width: int, align: str, gap: bool = True) -> str:
    """``text`` as plain text exactly ``width`` columns wide, aligned, after its gap (see the module rule)."""
    # Cells hold device names, labels and paths: each goes out as a Segment,
    # which Rich writes verbatim, so control characters are replaced here.
    text = plain(text)
    if gap and text[:1] == " " and align != "right":
        text = text[1:]
    room = width - 1 if gap else width
    if len(text) > room:
        if room <= 0:
            return " " * max(0, width)
        text = text.rstrip()
        if len(text) > room:
            text = shorter_number(text.strip(), room) or cut_text(text, room)
    body = text.rjust(room) if align == "right" else text.ljust(room)
    return " " + body if gap else body


def line_segments(cells: list[tuple[str, Style]], columns: list[Column], widths: list[int]) -> list[Segment]:
    """One table line: each (text, style) fitted to its column; every cell but the first after its gap."""
    return [
        Segment(fit_cell(text, width, column.align, gap=i > 0), style)
        for i, ((text, style), column, width) in enumerate(zip(cells, columns, widths))
    ]


def row_segments(
    row: Row, columns: list[Column], widths: list[int], base: Style, toned: dict[str, Style]
) -> list[Segment]:
    """One row's line: each cell in its tone's style (``base`` without one), fitted to its column."""
    cells, styles = row.cells, row.styles
    return line_segments(
        [
            (cells[i] if i < len(cells) else "", toned[tone] if i < len(styles) and (tone := styles[i]) else base)
            for i in range(len(columns))
        ],
        columns,
        widths,
    )


def whole_cells(line: Strip, widths: list[int], start: int, window: tuple[int, int]) -> Strip:
    """``window[1]`` columns of ``line`` from ``start``; any cell not wholly in the first ``window[0]`` is left blank.

    A table wider than its window scrolls sideways; a cell half in view would
    show "0.0" for "0.00" or "000.00" for "60000.00", so it is not drawn until
    it fits.
    """
    visible, width = window
    if start == 0 and sum(widths) <= visible:
        return line.crop(0, width)  # the common case: the whole table in view
    # Blanks take the line's background only (a cursor row stays highlighted, no underline runs on).
    first = next(iter(line), None)
    style = Style(bgcolor=first.style.bgcolor) if first is not None and first.style is not None else Style()
    edges = list(accumulate(widths, initial=0))
    end = start + visible
    left = next((e for e in edges if e >= start), edges[-1])
    right = end if end >= edges[-1] else max(e for e in edges if e <= end)
    shown = line.crop(left, max(left, right))
    if left > start:
        shown = Strip([Segment(" " * (left - start), style), *shown])
    return shown.extend_cell_length(width, style)


def column_at(columns: list[Column], widths: list[int], x: int) -> Column | None:
    """The column drawn at offset ``x`` of a line."""
    for column, width in zip(columns, widths):
        if x < width:
            return column
        x -= width
    return None


def cut_text(text: str, room: int) -> str:
    """``text`` cut to ``room`` columns, ending with ``…``."""
    return text[: room - 1] + ELLIPSIS if room > 0 else ""


def shorter_number(text: str, room: int) -> str | None:
    """``text`` (a number, maybe with a unit) in at most ``room`` columns.

    ``…`` if no form fits; None if ``text`` is not a number.
    """
    match = _NUMBER.fullmatch(text)
    if match is None:
        return None
    sign, unit = match["sign"], match["unit"]
    value = float(
        match["int"].replace(",", "") + "." + (match["frac"] or "0") + ("e" + match["exp"] if match["exp"] else "")
    )
    decimals = len(match["frac"] or "")
    if not match["exp"]:
        for places in range(decimals - 1, -1, -1):
            candidate = f"{sign}{value:.{places}f}{unit}"
            if len(candidate) <= room:
                return candidate
    bare = unit.lstrip()
    ladder: tuple[str, ...]
    if bare[:1] in _BINARY:
        # A binary unit prefix: step it up (KiB/s → MiB/s), 1024 at a time.
        ladder, base, start, rest = _BINARY, 1024.0, _BINARY.index(bare[0]), bare[1:]
        space = unit[: len(unit) - len(bare)]
    elif not unit:
        ladder, base, start, rest, space = _SI, 1000.0, 0, "", ""
    elif bare.startswith("B"):
        # Bytes take the binary prefixes spelled out: 2576980992 B → 2.4 GiB.
        ladder, base, start, rest = _BYTES, 1024.0, 0, bare
        space = unit[: len(unit) - len(bare)]
    else:
        return ELLIPSIS  # a unit that takes no prefix (%, °C, ms): scaling would change its meaning
    for step in range(1, len(ladder) - start):
        scaled = value / base**step
        # Three significant digits at most (21.3k, 213k), never a leading 0.
        for places in (1, 0):
            shown = abs(round(scaled, places))
            if shown < 1 or shown >= (100 if places else 1000):
                continue
            candidate = f"{sign}{scaled:.{places}f}{space}{ladder[start + step]}{rest}"
            if len(candidate) <= room:
                return candidate
    return ELLIPSIS


def fit_widths(columns: list[Column], width: int) -> list[int]:
    """Column widths that fit ``width``: columns with a ``min_width`` give up their slack, evenly by slack.

    A left-aligned last column with no ``min_width`` may shrink to
    :data:`TEXT_FLOOR` (its text then ends in …) rather than run off the window.

    When even the minimums don't fit, every column keeps its minimum and the
    table scrolls sideways.
    """
    widths = [c.width for c in columns]
    over = sum(widths) - width
    if over <= 0:
        return widths
    floors = [c.min_width for c in columns]
    if columns and columns[-1].align == "left" and floors[-1] is None:
        # A text column at the end (a result, a path, a command) gives way by itself: cut with …
        floors[-1] = min(columns[-1].width, max(TEXT_FLOOR, len(columns[-1].label) + 2))
    slack = [c.width - f if f is not None and f < c.width else 0 for c, f in zip(columns, floors)]
    total = sum(slack)
    if total == 0:
        return widths
    if total <= over:
        return [w - s for w, s in zip(widths, slack)]
    # Each flexible column gives a share of ``over`` in proportion to its slack; the
    # remainder goes one by one to the columns with the largest leftover fraction.
    shares = [over * s / total for s in slack]
    given = [int(share) for share in shares]
    for index in sorted(range(len(columns)), key=lambda i: given[i] - shares[i])[: over - sum(given)]:
        given[index] += 1
    return [w - g for w, g in zip(widths, given)]


def text_only_style(style: Style) -> Style:
    """``style`` without its background."""
    # Tones colour the text only, so the cursor row's background shows through.
    return Style(color=style.color, bold=style.bold, underline=style.underline, italic=style.italic)


def changed_spans(before: Row, after: Row, widths: list[int]) -> list[tuple[int, int]]:
    """(x, width) of each run of adjacent cells whose text or tone differs between two versions of a row."""
    spans: list[tuple[int, int]] = []
    x = 0
    for i, width in enumerate(widths):
        if _at(before.cells, i) != _at(after.cells, i) or _at(before.styles, i) != _at(after.styles, i):
            if spans and sum(spans[-1]) == x:
                spans[-1] = (spans[-1][0], spans[-1][1] + width)  # next to the last: one region
            else:
                spans.append((x, width))
        x += width
    return spans


def _at(values: tuple, index: int) -> object:
    """``values[index]``, or ``None`` past its end (a row may carry fewer tones than cells)."""
    return values[index] if index < len(values) else None


def header_strip(
    columns: list[Column], widths: list[int], sort: tuple[str | None, bool], styles: tuple[Style, Style], width: int
) -> Strip:
    """The header line: labels in ``styles[0]``, the sorted column's in ``styles[1]`` with its direction marker."""
    normal, sorted_style = styles
    key, reverse = sort
    marker = "▲" if reverse else "▼"
    labels = [(c.label + marker, sorted_style) if c.key == key else (c.label, normal) for c in columns]
    segments = line_segments(labels, columns, widths)
    segments.append(Segment(" " * max(0, width - sum(widths)), normal))
    # One segment per run of equally styled cells: fewer escape codes to the terminal.
    return Strip(segments).simplify()
