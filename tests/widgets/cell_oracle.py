"""The cell read-back oracle: does a painted cell read back as the text it was given?

Also reads each table on screen (TextTable and DataTable) cell by cell along its
column boundaries. The oracle parses numbers itself and never calls the table's fitting code.
"""

from __future__ import annotations

import re

from textual.widgets import DataTable

from raidtop.untrusted import plain
from raidtop.widgets.table_cells import fit_widths
from raidtop.widgets.text_table import Row, TextTable

_NUMBER = re.compile(r"(?P<num>[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?)(?P<space>\s?)(?P<unit>\S*)")


_BINARY = "KMGTPE"


_SI = {"k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18}


def _number(text: str) -> tuple[float, float, str] | None:
    """(value, half a unit of the last digit shown, unit) of ``text``, or None if it is no number."""
    match = _NUMBER.fullmatch(text)
    if match is None:
        return None
    digits = match["num"].replace(",", "")
    mantissa = digits.lower().split("e")[0]
    places = len(mantissa.split(".")[1]) if "." in mantissa else 0
    exponent = int(digits.lower().split("e")[1]) if "e" in digits.lower() else 0
    return float(digits), 0.5 * 10.0 ** (exponent - places), match["space"] + match["unit"]


def _scale(unit: str, was_binary: bool) -> tuple[float, str]:
    """The multiplier a unit's prefix stands for, and the unit without it."""
    bare = unit.lstrip()
    if len(bare) >= 3 and bare[0] in _BINARY and bare[1:].startswith("iB"):
        return 1024.0 ** (_BINARY.index(bare[0]) + 1), bare[2:]
    if bare and bare[0] in _BINARY and was_binary:
        return 1024.0 ** (_BINARY.index(bare[0]) + 1), bare[1:]
    if bare and bare[0] in _SI and not was_binary and bare[1:] == "":
        return _SI[bare[0]], ""
    return 1.0, bare


def reads_back(given: str, shown: str, width: int = 0) -> bool:
    """Whether a painted cell ``shown`` is ``given``, cut with …, or the same number shorter."""
    given = plain(given).strip()
    if shown == given:
        return True
    if shown == "…" and _number(given) is not None:
        return width < 8  # a number hidden whole, where a short form (21.3k, 2.4 GiB) had room, is a fault
    if shown.endswith("…"):
        return given.startswith(shown[:-1]) and len(shown) <= len(given)
    original, written = _number(given), _number(shown)
    if original is None or written is None or len(shown) > len(given) or re.match(r"[-+]?0\d", shown):
        return False  # a shorter form is never longer, and never has a leading zero (a glued "0" + "8")
    binary = original[2].lstrip()[:1] in tuple(_BINARY)
    scale_given, unit_given = _scale(original[2], binary)
    scale_shown, unit_shown = _scale(written[2], binary)
    if unit_given != unit_shown:
        return False
    value, shown_value = original[0] * scale_given, written[0] * scale_shown
    # The shorter form is the number rounded to the digits it shows.
    return abs(value - shown_value) <= written[1] * scale_shown * 1.0001 + original[1] * scale_given


def _line_text(strip) -> str:
    return "".join(segment.text for segment in strip)


def check_text_table(table: TextTable) -> list[str]:
    """Every visible cell of ``table``, split on its column boundaries and read back; returns the faults."""
    faults, checked = [], 0
    widths = getattr(table, "column_widths", [c.width for c in table.columns])
    scroll_x, scroll_y = table.scroll_offset
    window = table.scrollable_content_region.width
    scrolls = table.show_horizontal_scrollbar and table.styles.scrollbar_size_horizontal > 0
    top = 1 if table.show_header else 0
    lines = []
    if top:
        lines.append(("header", [c.label for c in table.columns]))
    for y in range(top, table.scrollable_content_region.height):
        index = scroll_y + y - top
        if index < table.row_count:
            row: Row = table._row(index)
            lines.append((y, list(row.cells)))
    for y, cells in lines:
        text = _line_text(table.render_line(0 if y == "header" else y))
        start = 0
        for i, width in enumerate(widths):
            given = cells[i] if i < len(cells) else ""
            left, right = start - scroll_x, start + width - scroll_x
            start += width
            if left < 0 or right > window:
                # Cut by the window's edge (the table scrolls sideways to it): not drawn at all,
                # so no part of a number ("0.0" of "0.00") is ever on screen.
                part = text[max(0, left) : min(window, right)]
                if part.strip():
                    faults.append(f"{table.id} line {y} col {i}: {given!r} half drawn at the window's edge as {part!r}")
                elif given.strip() and not scrolls and widths != fit_widths(table.columns, window):
                    # A table that hides its scrollbar shows the columns that fit: all of them it can.
                    faults.append(
                        f"{table.id} line {y} col {i}: {given!r} out of view, yet the columns could narrow to fit"
                    )
                continue
            cell = text[left:right]
            checked += 1
            if i > 0 and left > 0 and text[left - 1] != " " and not cell.startswith(" "):
                faults.append(
                    f"{table.id} line {y} col {i}: glued to its left neighbour: {text[max(0, left - 8) : right]!r}"
                )
            shown = cell.strip()
            if y == "header":
                shown = shown.rstrip("▲▼")
            if not reads_back(given, shown, width):
                faults.append(f"{table.id} line {y} col {i}: {given!r} painted as {shown!r}")
    assert checked or not lines, f"{table.id}: no cell fully on screen"
    return faults


def check_data_table(table: DataTable) -> list[str]:
    """A DataTable sizes columns to their content: each cell must read back whole."""
    faults = []
    widths = [column.get_render_width(table) for column in table.ordered_columns]
    for y in range(min(table.row_count, table.scrollable_content_region.height - 1)):
        row_key = table.ordered_rows[y].key
        values = table.get_row(row_key)
        text = _line_text(table.render_line(y + 1))
        start = -table.scroll_offset.x
        for i, width in enumerate(widths):
            left, right = start, start + width
            start += width
            if left < 0 or right > table.scrollable_content_region.width:
                continue
            given = str(getattr(values[i], "plain", values[i]))
            if not reads_back(given, text[left:right].strip(), width):
                faults.append(f"{table.id} row {y} col {i}: {given!r} painted as {text[left:right]!r}")
    return faults


def check_screen(app) -> tuple[int, list[str]]:
    """(tables checked, faults) for every table shown on the current screen."""
    faults, tables = [], 0
    for table in app.screen.query(TextTable):
        if table.display and table.region.width > 0 and table.region.height > 0 and table.visible:
            tables += 1
            faults += check_text_table(table)
    for table in app.screen.query(DataTable):
        if table.region.width > 0 and table.region.height > 1:
            tables += 1
            faults += check_data_table(table)
    return tables, faults
