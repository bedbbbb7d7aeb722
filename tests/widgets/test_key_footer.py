"""The footer draws its keys itself: what it shows, the mouse on it, and that no widget is made per key."""

from __future__ import annotations

from rich.style import Style

from raidtop.app.raidtop_app import RaidtopApp
from raidtop.config import Config
from raidtop.screens.help import HelpScreen
from raidtop.widgets.key_footer import KeyFooter, layered
from raidtop.widgets.part_styles import KEY_FOOTER_PARTS
from tests.conftest import DATA


def line_styles(footer: KeyFooter) -> list[tuple[str, Style | None]]:
    return [(segment.text, segment.style) for segment in footer.render_line(0)]


def style_at(footer: KeyFooter, x: int) -> Style:
    for text, style in line_styles(footer):
        if x < len(text):
            assert style is not None
            return style
        x -= len(text)
    raise AssertionError("past the line")


async def test_keys_are_drawn_in_one_widget_and_a_click_runs_the_key() -> None:
    app = RaidtopApp(Config(root=DATA / "root1", autostart_sampler=False))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        footer = app.dashboard.query_one(KeyFooter)
        assert not footer.children and len(footer.items) > 5
        help_key = footer.items[0]
        assert (help_key.description, help_key.start) == ("Help", 0)
        text = "".join(text for text, _ in line_styles(footer))
        assert text.startswith(" ? Help  tab Next panel ") and text.rstrip().endswith("▏^p palette")
        for item in footer.items:  # each key where the footer says it is
            drawn = text[item.start : item.end]
            assert item.description in drawn and item.display in drawn
        await pilot.click(KeyFooter, offset=(help_key.start + 1, 0))
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)


async def test_the_key_under_the_mouse_is_highlighted_and_says_its_tooltip() -> None:
    app = RaidtopApp(Config(root=DATA / "root1", autostart_sampler=False))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        footer = app.dashboard.query_one(KeyFooter)
        palette = footer.items[-1]
        assert palette.palette and palette.tooltip
        plain = style_at(footer, palette.start + 2)
        await pilot.hover(KeyFooter, offset=(palette.start + 2, 0))
        await pilot.pause()
        assert footer.hovered == len(footer.items) - 1
        assert footer.tooltip == palette.tooltip
        hovered = style_at(footer, palette.start + 2)
        assert hovered.bgcolor != plain.bgcolor
        # The hover part's background, laid over the footer as Textual lays a node over its ancestors.
        footer_layers = [node.styles for node in reversed(footer.ancestors_with_self)]
        assert hovered.bgcolor == layered([*footer_layers, KEY_FOOTER_PARTS.styles(app, "hover")]).bgcolor
        await pilot.hover(KeyFooter, offset=(footer.items[1].start, 0))
        await pilot.pause()
        assert footer.hovered == 1 and footer.tooltip == (footer.items[1].tooltip or None)
        assert style_at(footer, palette.start + 2) == plain
        await pilot.hover("StatusBar")  # off the footer
        await pilot.pause()
        assert footer.hovered is None and footer.tooltip is None
