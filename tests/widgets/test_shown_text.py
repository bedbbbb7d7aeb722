"""The line filter under every widget: control characters never leave, widths never change."""

from __future__ import annotations

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual.color import Color

from raidtop.widgets.shown_text import ControlFilter, PlainStatic, content, text

PAYLOADS = ["\x1b]0;PWNED\x07", "\x1b[2J", "\x9b31m", "\u202eevil", "\x1bc", "a\tb\nc"]


def test_filter_deletes_control_characters_and_keeps_the_measured_width():
    for payload in PAYLOADS:
        segments = [Segment("ok "), Segment(payload, Style(bold=True)), Segment(" end")]
        out = ControlFilter().apply(segments, Color(0, 0, 0))
        joined = "".join(s.text for s in out)
        assert not any(c in joined for c in "\x1b\x07\x9b\u202e\n\t")
        assert cell_len(joined) == sum(cell_len(s.text) for s in segments)
        assert out[1].style == Style(bold=True)


def test_filter_returns_clean_lines_untouched():
    segments = [Segment("sda  12.0 MB/s"), Segment(" [/] literal")]
    assert ControlFilter().apply(segments, Color(0, 0, 0)) is segments


def test_text_and_content_are_literal_with_controls_replaced():
    assert text("[bold red]X[/]\x1b[2J").plain == "[bold red]X[/]\ufffd[2J"
    assert content("[/]\x9b31m").plain == "[/]\ufffd31m"
    assert content("two\nlines\x07", multiline=True).plain == "two\nlines\ufffd"


def test_plain_static_keeps_strings_and_never_parses_markup():
    static = PlainStatic("[/] \x1b]0;PWNED\x07")
    assert static.content == "[/] \ufffd]0;PWNED\ufffd"
    static.update("[bold]x[/bold]\x1b[2J")
    assert static.content == "[bold]x[/bold]\ufffd[2J"
