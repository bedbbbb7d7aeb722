"""Partial screen updates that start where the change starts, not at the left edge of the widget.

Textual 8's compositor cuts each screen line at widget edges ("chops") and,
for a dirty span inside a chop, writes from the chop's first cell to the
span's end: one changed number at the right of a table row sends the whole
row before it. raidtop's tables and status line mark only the cells that
changed (``TextTable``, ``StatusBar``), so writing from the span's start is
what keeps the terminal traffic of an idle dashboard to the digits that
moved (issue 30: ≤ 4 KB/s at 120×40 with 500 devices).

This leans on two names Textual keeps private (``Compositor`` and
``ChopsUpdate`` in ``textual._compositor``, pinned by tests/constraints.txt);
:func:`install` leaves a screen as it is when they are not what it expects.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.control import Control
from textual.screen import Screen

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
        """A compositor whose partial updates are :class:`CellChopsUpdate`."""

        def render_partial_update(self) -> Any:
            update = super().render_partial_update()
            if isinstance(update, ChopsUpdate):
                try:
                    return CellChopsUpdate(update.chops, update.spans, update.chop_ends)
                except (AttributeError, TypeError):  # a private class shaped otherwise: Textual's own update
                    return update
            return update


def install(screen: Screen[Any]) -> bool:
    """Give ``screen`` the cell-precise compositor (before it is mounted); False if this Textual has none."""
    if Compositor is None or not isinstance(getattr(screen, "_compositor", None), Compositor):
        return False
    screen._compositor = CellCompositor()
    return True
