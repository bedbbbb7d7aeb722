"""A member's latency over time as a heat map, in the manner of ``zpool iostat -w`` laid along a time axis.

No I/O, no Textual: :func:`heat_map` lays out the kept intervals of one device
(:class:`~raidtop.live.latency_history.Interval`) as rows of log2 latency
buckets (slowest on top) by columns of intervals (newest on the right), each
cell a shade level for the share of that interval's requests that took that
long. Shades are characters first (``░▒▓█``), so the map reads without colour
(TERM=linux, a monochrome log); the widget colours the levels through theme
variables on top.
"""

from __future__ import annotations

from collections.abc import Sequence

from raidtop.model.frozen import frozen_dataclass
from raidtop.latency.histogram import Log2Histogram
from raidtop.latency.summary import Interval
from raidtop.model.units import micros

SHADES = " ░▒▓█"
"""The character of each level: 0 none of the interval's requests, 4 most of them."""
LEVEL_FLOORS = (0.0, 0.10, 0.30, 0.60)
"""The share of an interval's requests at which levels 1 to 4 begin (above 0: any request shows)."""
LEGEND = "░ <10%  ▒ <30%  ▓ <60%  █ ≥60% of the interval's requests"


@frozen_dataclass
class HeatMap:
    """Rows of buckets, slowest first, each a level per column, oldest column first.

    Attributes:
        labels: each row's lower bound (its requests took at least that); a folded bottom row: ``<`` its top.
        levels: per row, per column, 0 to 4.
        columns: how many columns (intervals) the map spans.
        filled: how many columns hold an interval with requests.
    """

    labels: tuple[str, ...]
    levels: tuple[tuple[int, ...], ...]
    columns: int
    filled: int


def bucket_index(low: int) -> int:
    """The row of a log2 bucket by its lower bound in µs: 0 for [0,0], 1 for [1,1], k+1 for [2^k, 2^(k+1)-1]."""
    return low.bit_length()


def level(count: int, total: int) -> int:
    """The shade level for ``count`` of ``total`` requests."""
    if count <= 0 or total <= 0:
        return 0
    share = count / total
    return sum(1 for floor in LEVEL_FLOORS if share >= floor)


def place(series: Sequence[Interval], now: float, interval_s: float, columns: int) -> list[Log2Histogram | None]:
    """The interval shown in each column (``None``: not traced then), the newest ending at ``now``."""
    placed: list[Log2Histogram | None] = [None] * columns
    step = max(interval_s, 1e-3)
    for interval in series:
        back = round((now - interval.time) / step)
        if 0 <= back < columns:
            placed[columns - 1 - back] = interval.hist
    return placed


def heat_map(series: Sequence[Interval], now: float, interval_s: float, columns: int, rows: int) -> HeatMap | None:
    """The map of ``series`` in ``columns`` × at most ``rows``; ``None`` when no column holds a request."""
    columns, rows = max(1, columns), max(1, rows)
    placed = place(series, now, interval_s, columns)
    counts: list[dict[int, int]] = []
    for hist in placed:
        per_row: dict[int, int] = {}
        for b in hist.buckets if hist is not None else ():
            if b.count:
                row = bucket_index(b.low)
                per_row[row] = per_row.get(row, 0) + b.count
        counts.append(per_row)
    used = {row for per_row in counts for row in per_row}
    if not used:
        return None
    top, bottom = max(used), min(used)
    # More buckets than lines: the tail matters, so the fastest fold into the bottom row.
    bottom = max(bottom, top - rows + 1)
    levels = []
    for row in range(top, bottom - 1, -1):
        cells = []
        for per_row in counts:
            total = sum(per_row.values())
            count = sum(n for r, n in per_row.items() if r <= row) if row == bottom else per_row.get(row, 0)
            cells.append(level(count, total))
        levels.append(tuple(cells))
    labels = tuple(_label(row, folded=row == bottom and min(used) < bottom) for row in range(top, bottom - 1, -1))
    return HeatMap(labels, tuple(levels), columns, sum(1 for per_row in counts if per_row))


def _label(row: int, folded: bool) -> str:
    # A folded bottom row holds everything below its bucket's top: "<" that; other rows "≥" their floor.
    if folded:
        return "<" + micros(1 << row)
    return micros(0 if row == 0 else 1 << (row - 1))


def shade_line(levels: Sequence[int]) -> str:
    """One row as characters."""
    return "".join(SHADES[max(0, min(4, n))] for n in levels)
