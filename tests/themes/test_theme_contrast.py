"""Every table text style is readable (WCAG AA, 4.5:1) on the normal and the highlighted row, in every theme.

The styles are read from what a TextTable really renders (``render_line``),
so a CSS change in the table or a theme variable is measured as the user sees
it. ANSI colours are measured with the Linux console's VGA palette (the
TERM=linux case, and the darkest common 16-colour palette); the terminal's
default colours are its white-on-black.
"""

from __future__ import annotations

import pytest
from rich.color import Color as RichColor
from rich.color import ColorType
from textual.app import ComposeResult

from raidtop.app.terminal_app import TerminalApp
from raidtop.themes import BUILTIN_DIR, load_themes, theme_for_terminal
from raidtop.widgets.text_table import Column, Row, TextTable

_VGA = [
    "000000",
    "aa0000",
    "00aa00",
    "aa5500",
    "0000aa",
    "aa00aa",
    "00aaaa",
    "aaaaaa",
    "555555",
    "ff5555",
    "55ff55",
    "ffff55",
    "5555ff",
    "ff55ff",
    "55ffff",
    "ffffff",
]
DEFAULT_FOREGROUND = (0xAA, 0xAA, 0xAA)
DEFAULT_BACKGROUND = (0, 0, 0)
TONES = ("dim", "good", "warn", "crit", "accent", "spark")
MINIMUM = 4.5
THEMES = load_themes([BUILTIN_DIR]).themes


def rgb(color: RichColor | None, default: tuple[int, int, int]) -> tuple[int, int, int]:
    """A rendered colour as RGB: ANSI numbers through the VGA palette, default as the console's."""
    if color is None or color.type == ColorType.DEFAULT:
        return default
    if color.type in (ColorType.STANDARD, ColorType.WINDOWS) or (
        color.type == ColorType.EIGHT_BIT and color.number < 16
    ):
        value = _VGA[color.number]
        return int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16)
    triplet = color.get_truecolor()
    return triplet.red, triplet.green, triplet.blue


def luminance(colour: tuple[int, int, int]) -> float:
    """WCAG 2 relative luminance."""

    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(v) for v in colour)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    """WCAG 2 contrast ratio, 1 to 21."""
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_the_palette_arithmetic_matches_wcag():
    assert contrast((0, 0, 0), (255, 255, 255)) == pytest.approx(21.0)
    # The two pairs the issue saw: light grey on a white highlight, grey on grey.
    assert contrast((0xC0, 0xC0, 0xC0), (0xFF, 0xFF, 0xFF)) < 2
    # The old 16-colour theme: faint text (bright black) on its white highlight, through the VGA palette.
    faint, highlight = (
        rgb(RichColor.parse("color(8)"), DEFAULT_FOREGROUND),
        rgb(RichColor.parse("color(7)"), DEFAULT_BACKGROUND),
    )
    assert (faint, highlight) == ((0x55, 0x55, 0x55), (0xAA, 0xAA, 0xAA)) and contrast(faint, highlight) < 4.5


class _TableApp(TerminalApp[None]):
    def __init__(self, theme) -> None:
        super().__init__()
        self.register_theme(theme)
        self.theme = theme.name

    def compose(self) -> ComposeResult:
        table = TextTable([Column("a", "Name", 8, "left"), Column("b", "Value", 8)], id="t")
        table.set_rows(
            [Row("normal", ("normal", "0.00"), (None, None))] + [Row(tone, (tone, "—"), (tone, tone)) for tone in TONES]
        )
        yield table


@pytest.mark.parametrize("theme", THEMES, ids=[t.name for t in THEMES])
async def test_every_table_style_is_readable_on_plain_and_highlighted_rows(theme):
    app = _TableApp(theme)
    failures = []
    async with app.run_test(size=(40, 12)) as pilot:
        table = app.query_one(TextTable)
        for focused in (True, False):
            if focused:
                table.focus()
            else:
                app.set_focus(None)
            await pilot.pause()
            header = table.render_line(0)
            rows = len(TONES) + 1
            for cursor in range(rows):
                table.cursor_row = cursor
                await pilot.pause()
                lines = [("header", header)] + [(f"row {i}", table.render_line(i + 1)) for i in range(rows)]
                for where, strip in lines:
                    for segment in strip:
                        if not segment.text.strip() or segment.style is None:
                            continue
                        fg = rgb(segment.style.color, DEFAULT_FOREGROUND)
                        bg = rgb(segment.style.bgcolor, DEFAULT_BACKGROUND)
                        ratio = contrast(fg, bg)
                        if ratio < MINIMUM:
                            kind = "cursor" if where == f"row {cursor}" else "plain"
                            failures.append(
                                f"{segment.text.strip()!r} on {kind} {where} "
                                f"(focused={focused}): {ratio:.2f}:1 ({fg} on {bg})"
                            )
    assert not sorted(set(failures)), "\n".join(sorted(set(failures)))


@pytest.mark.parametrize(
    "environ, expected",
    [
        ({"TERM": "linux"}, "raidtop-16color"),
        ({"TERM": "screen"}, "raidtop-16color"),
        ({"TERM": "xterm-256color"}, None),
        ({"TERM": "linux", "COLORTERM": "truecolor"}, None),
    ],
)
def test_a_16_colour_terminal_gets_the_16_colour_theme(environ, expected):
    assert theme_for_terminal(environ) == expected


def test_states_differ_in_ascii_text_when_colour_is_lost():
    from raidtop.presentation.md import state_badge
    from raidtop.model.md import MdArray, MdSync

    clean = MdArray(name="md0", level="raid5", state="clean", health="ok")
    degraded = MdArray(name="md0", level="raid5", state="clean", health="degraded")
    failed = MdArray(name="md0", level="raid5", state="broken", health="failed")
    recovering = MdArray(
        name="md0", level="raid5", state="active", health="degraded", sync=MdSync(action="recover", percent=34.0)
    )
    words = [state_badge(a)[0] for a in (clean, degraded, failed, recovering)]
    assert words == ["clean", "! degraded", "! broken", "~ recovering"]
    assert all(word.isascii() for word in words)
