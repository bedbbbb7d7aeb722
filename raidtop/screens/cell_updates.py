"""Partial screen updates that start where the change starts, not at the left edge of the widget.

Textual 8's compositor cuts each screen line at widget edges ("chops") and,
for a dirty span inside a chop, writes from the chop's first cell to the
span's end: one changed number at the right of a table row sends the whole
row before it. raidtop's tables and status line mark only the cells that
changed (``TextTable``, ``StatusBar``), so writing from the span's start is
what keeps the terminal traffic of an idle dashboard to the digits that
moved (issue 30: ≤ 4 KB/s at 120×40 with 500 devices). And only the widgets
under a change are asked for their lines, not every widget under the
bounding box of all changes (issue 30, item 1: the CPU of a tick).

This leans on two names Textual keeps private (``Compositor`` and
``ChopsUpdate`` in ``textual._compositor``, pinned by tests/constraints.txt);
:func:`install` leaves a screen as it is when they are not what it expects.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.console import Console
from rich.control import Control
from rich.segment import Segment
from textual.geometry import Region
from textual.screen import Screen
from textual.strip import Strip

try:
    from textual._compositor import ChopsUpdate, Compositor
except ImportError:  # another Textual: keep its own updates
    ChopsUpdate = Compositor = None  # type: ignore[assignment,misc]


def crop_span(chop_x: int, chop_end: int, x1: int, x2: int) -> tuple[int, int] | None:
    """The cells of a chop (``chop_x`` to ``chop_end``) that the dirty span ``x1``..``x2`` covers, or None."""
    start, end = max(chop_x, x1), min(chop_end, x2)
    return (start, end) if start < end else None


if ChopsUpdate is not None and Compositor is not None:

    class CellChopsUpdate(ChopsUpdate):
        """:class:`ChopsUpdate` that writes each dirty span from its first cell."""

        def render_segments(self, console: Console) -> str:
            """The update as terminal sequences: for each dirty span, only the cells it covers.

            Another 8.x release may shape the private update differently: then Textual's own
            rendering of it, which costs bytes but never a wrong screen or a crash.
            """
            try:
                return self._cell_segments(console)
            except (AttributeError, TypeError, KeyError, IndexError):
                return super().render_segments(console)

        def _cell_segments(self, console: Console) -> str:
            sequences: list[str] = []
            append = sequences.append
            last_y = self.spans[-1][0]
            for y, x1, x2 in self.spans:
                for end, (x, strip) in zip(self.chop_ends[y], self.chops[y].items()):
                    cells = None if strip is None else crop_span(x, end, x1, x2)
                    if strip is None or cells is None:
                        continue
                    start, stop = cells
                    append(Control.move_to(start, y).segment.text)
                    append(strip.crop(start - x, stop - x).render(console))
                if y != last_y:
                    append("\n")
            return "".join(sequences)

    class CellCompositor(Compositor):
        """A compositor whose partial updates are :class:`CellChopsUpdate` of the widgets under a change.

        Textual asks every widget under the bounding box of all changes for its
        lines: the clock in the top line and a number in the bottom table make
        that the whole screen, footer keys and idle panels included, every tick.
        Here only the front-most widget at each changed cell is asked. That is
        exact: the update writes only changed cells, each is painted by the
        front-most widget there, and a widget front-most at none has nothing
        to write (its chops stay empty and are skipped).
        """

        _dirty_spans: dict[int, list[tuple[int, int]]] | None = None

        def render_partial_update(self) -> Any:
            # The dirty regions are cleared only once the update is made: if this Textual's
            # private compositor is shaped otherwise, its own update still finds them.
            try:
                regions = self._dirty_regions.copy()
                if not regions:
                    return None
                crop = Region.from_union(regions).intersection(self.size.region)
                spans = list(self._regions_to_spans(regions))
                dirty: dict[int, list[tuple[int, int]]] = {}
                for y, x1, x2 in spans:
                    dirty.setdefault(y, []).append((x1, x2))
                self._dirty_spans = dirty
                try:
                    chops = self._render_chops(crop, dirty.__contains__)
                finally:
                    self._dirty_spans = None
                update = CellChopsUpdate(chops, spans, [cut_set[1:] for cut_set in self.cuts])
            except (AttributeError, TypeError):  # a private class shaped otherwise: Textual's own update
                return super().render_partial_update()
            self._dirty_regions.difference_update(regions)  # any a render added stay for the next update
            return update

        def _render_chops(self, crop: Region, is_rendered_line: Callable[[int], bool]) -> Any:
            """Textual's chops of the lines to update, the pieces kept by nobody once they are written.

            Textual's ``Strip.divide`` keeps the pieces of a line in the line's own
            cache, and the line stays in its widget's cache while it is on screen:
            on the dashboard that held about 580 strips (seven caches each, 0.7 MB)
            that a partial update of a changed line never asks for again.
            """
            cuts = self.cuts
            chops: list[dict[int, Strip | None]] = [dict.fromkeys(cut_set[:-1]) for cut_set in cuts]
            for region, clip, strips in self._get_renders(crop):
                render_region = region.intersection(clip)
                render_x = render_region.x
                first_cut, last_cut = render_region.column_span
                for y, strip in zip(render_region.line_range, strips):
                    if not is_rendered_line(y):
                        continue
                    chops_line = chops[y]
                    final_cuts = [cut for cut in cuts[y] if last_cut >= cut >= first_cut]
                    # Painted front to back: the first piece for a cut wins.
                    for cut, piece in zip(final_cuts, pieces(strip, [cut - render_x for cut in final_cuts[1:]])):
                        if chops_line.get(cut) is None:
                            chops_line[cut] = piece
            return chops

        def _get_renders(self, crop: Region | None = None) -> Any:
            dirty = self._dirty_spans
            if dirty is None:  # a full update, a screenshot: every widget, as Textual does
                yield from super()._get_renders(crop)
                return
            # Textual's own walk, front to back: a widget is asked for its lines only if it is
            # the front-most widget at some changed cell (a panel behind its table is not).
            uncovered = {y: list(spans) for y, spans in dirty.items()}
            for widget, (region, clip) in self.visible_widgets.items():
                shown = region.intersection(clip)
                if not take_cells(shown, uncovered):
                    continue
                x, y, width, height = shown
                yield region, clip, widget.render_lines(Region(x - region.x, y - region.y, width, height))
                if not uncovered:
                    return

    def pieces(line: Strip, cuts: list[int]) -> list[Strip]:
        """``line`` cut at ``cuts`` (cells from its start), as ``Strip.divide`` cuts it, but kept in no cache."""
        length = line.cell_length
        cuts = [cut for cut in cuts if cut <= length]
        if cuts == [length]:
            return [line]
        out, start = [], 0
        for segments, cut in zip(Segment.divide(line, cuts), cuts):
            out.append(Strip(segments, cut - start))
            start = cut
        return out

    def take_cells(area: Region, uncovered: dict[int, list[tuple[int, int]]]) -> bool:
        """Remove the cells of ``area`` from ``uncovered`` (per line: ``(x1, x2)`` spans); whether it held any.

        A widget paints every cell of its area, so the cells it takes are
        settled for every widget behind it.
        """
        x, y, width, height = area
        if not (width and height):
            return False
        end = x + width
        took = False
        for line in range(y, y + height):
            spans = uncovered.get(line)
            if not spans:
                continue
            left = []
            for x1, x2 in spans:
                if x1 < end and x2 > x:
                    took = True
                    if x1 < x:
                        left.append((x1, x))
                    if x2 > end:
                        left.append((end, x2))
                else:
                    left.append((x1, x2))
            if left:
                uncovered[line] = left
            else:
                del uncovered[line]
        return took


def install(screen: Screen[Any]) -> bool:
    """Give ``screen`` the cell-precise compositor (before it is mounted); False if this Textual has none."""
    if Compositor is None or not isinstance(getattr(screen, "_compositor", None), Compositor):
        return False
    screen._compositor = CellCompositor()
    return True
