"""Every painted line passes one filter: Textual's colour conversion, then control characters removed."""

from __future__ import annotations

from rich.color import ColorType
from rich.segment import Segment
from rich.style import Style
from textual.color import Color
from textual.strip import Strip

from raidtop.app.raidtop_app import RaidtopApp
from raidtop.config import Config
from tests.conftest import DATA

BLACK = Color(0, 0, 0)


async def test_one_filter_converts_ansi_colours_and_removes_controls() -> None:
    app = RaidtopApp(Config(root=DATA / "root1", autostart_sampler=False))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        filters = app.get_line_filters()
        assert len(filters) == 1
        # The same object every time: Textual caches each strip's filtered strip by the filter.
        assert app.get_line_filters()[0] is filters[0]
        (line_filter,) = filters
        out = line_filter.apply([Segment("ok\x1b]0;PWNED\x07 end", Style(color="red"))], BLACK)
        assert "".join(s.text for s in out) == "ok]0;PWNED end"
        assert out[0].style.color is not None and out[0].style.color.type == ColorType.TRUECOLOR

        strip = Strip([Segment("sda\x1b[2J", Style(color="red"))])
        filtered = strip.apply_filter(line_filter, BLACK)
        assert filtered.text == "sda[2J"
        assert strip.apply_filter(line_filter, BLACK) is filtered  # found in the strip's cache


async def test_the_filter_follows_textuals_own_when_ansi_colours_are_allowed() -> None:
    app = RaidtopApp(Config(root=DATA / "root1", autostart_sampler=False))
    async with app.run_test(size=(80, 24)) as pilot:
        converting = app.get_line_filters()[0]
        app.ansi_color = True
        await pilot.pause()
        (native,) = app.get_line_filters()
        assert native is not converting
        out = native.apply([Segment("x\x07", Style(color="red"))], BLACK)
        assert out[0].text == "x"
        assert out[0].style.color is not None and out[0].style.color.type == ColorType.STANDARD
        app.ansi_color = False
        await pilot.pause()
        assert app.get_line_filters()[0] is converting
