"""Untrusted text turned into things Textual shows as text, and the last line of defence.

Names, labels, paths and messages come from the system, a file or a
recording (see :mod:`raidtop.untrusted`). On screen they must be text: no
control character may reach the terminal and no ``[`` may be read as markup.
Widgets and screens build what they show with :func:`text` (a Rich ``Text``)
or :func:`content` (a Textual ``Content``, for border titles and ``Static``),
both of which replace control characters with U+FFFD first.

:class:`ControlFilter` is the net under that: the app installs it as a line
filter (after Textual's own, see :class:`FiltersThenControls`), so every
painted line of every widget, Textual's own included (toasts, the command
palette, border titles), loses any control character that got past the
widgets before it is written to the terminal.
"""

from __future__ import annotations

from rich.segment import Segment
from rich.text import Text
from textual.color import Color
from textual.content import Content
from textual.filter import LineFilter
from textual.visual import VisualType
from textual.widgets import Static

from raidtop.untrusted import has_controls, plain


def text(value: object, style: str = "", *, multiline: bool = False) -> Text:
    """``value`` as a Rich ``Text``: control characters replaced, never parsed as markup."""
    return Text(plain(value, multiline=multiline), style=style)


def content(value: object, *, multiline: bool = False) -> Content:
    """``value`` as a Textual ``Content`` (border titles, ``Static``): literal, controls replaced."""
    return Content(plain(value, multiline=multiline))


class ControlFilter(LineFilter):
    """Delete control characters from painted lines (the widgets should have replaced them already).

    Deleted rather than replaced: the compositor has already measured each
    line, and a control character measures zero cells, so deleting keeps
    every line exactly as wide as it was laid out.
    """

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        # One search over the whole line: the common case (nothing to remove)
        # costs a join and a regex scan, and the result is cached per strip.
        if not has_controls("".join(segment.text for segment in segments)):
            return segments
        return [
            segment
            if segment.control or not has_controls(segment.text)
            else Segment(_without_controls(segment.text), segment.style)
            for segment in segments
        ]


class FiltersThenControls(LineFilter):
    """Textual's line filters, then :class:`ControlFilter`, applied as one filter.

    Textual makes a new strip, with seven caches of its own, for every filter
    each painted line passes through; as one filter, a line is filtered into
    one strip rather than one per filter (a thousand strips fewer at 120×40).
    Keep the instance while ``filters`` stay the same: Textual caches each
    strip's result by the filter.
    """

    def __init__(self, filters: tuple[LineFilter, ...]) -> None:
        super().__init__()
        self.filters = filters
        self._controls = ControlFilter()

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        for line_filter in self.filters:
            segments = line_filter.apply(segments, background)
        return self._controls.apply(segments, background)


def _without_controls(value: str) -> str:
    return "".join(char for char in value if not has_controls(char))


class PlainStatic(Static):
    """A ``Static`` for text from the system: never markup, control characters replaced.

    Strings stay strings (``.content`` is what was shown, for tests and
    callers), only with U+FFFD where a control character was.
    """

    def __init__(self, content: VisualType = "", **kwargs) -> None:
        kwargs["markup"] = False
        super().__init__(_plain_if_text(content), **kwargs)

    def update(self, content: VisualType = "", *, layout: bool = True) -> None:
        """Show ``content``; a string is shown literally, several lines allowed."""
        super().update(_plain_if_text(content), layout=layout)


def _plain_if_text(value: VisualType) -> VisualType:
    return plain(value, multiline=True) if isinstance(value, str) else value
