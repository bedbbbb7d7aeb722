"""The tables' look, held once by the app: the same styles each table resolved for itself, in every theme."""

from __future__ import annotations

import pytest
from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import Static

from raidtop.app.terminal_app import TerminalApp
from raidtop.themes import BUILTIN_DIR, load_themes
from raidtop.widgets.table_styles import TABLE_COMPONENT_CLASSES, TONES, table_style
from raidtop.widgets.text_table import Column, Row, TextTable

NAMES = ("header", "sorted", "cursor", *TONES)


class PerTableStyles(Widget):
    """The reference: each table with its own component nodes and rules, as TextTable had them."""

    COMPONENT_CLASSES = set(TABLE_COMPONENT_CLASSES)
    DEFAULT_CSS = """
    PerTableStyles { background: $surface; color: $foreground; height: 3; }
    PerTableStyles > .text-table--header { color: $text-primary; text-style: bold; background: $panel; }
    PerTableStyles > .text-table--sorted { color: $text-accent; text-style: bold underline; background: $panel; }
    PerTableStyles > .text-table--cursor { background: $block-cursor-background; color: $block-cursor-foreground; }
    PerTableStyles > .text-table--dim { color: $text-muted; }
    PerTableStyles > .text-table--good { color: $text-success; }
    PerTableStyles > .text-table--warn { color: $text-warning; }
    PerTableStyles > .text-table--crit { color: $text-error; text-style: bold; }
    PerTableStyles > .text-table--accent { color: $text-accent; }
    PerTableStyles > .text-table--spark { color: $secondary; }
    """


class StylesApp(TerminalApp[None]):
    def __init__(self) -> None:
        super().__init__()
        for theme in load_themes([BUILTIN_DIR]).themes:
            self.register_theme(theme)

    def compose(self) -> ComposeResult:
        yield Static("above")
        yield PerTableStyles()
        yield TextTable([Column("a", "Name", 8, "left"), Column("b", "Value", 8)], id="t")


async def test_the_app_holds_the_styles_each_table_resolved_for_itself_in_every_theme() -> None:
    app = StylesApp()
    async with app.run_test(size=(40, 12)) as pilot:
        reference = app.query_one(PerTableStyles)
        themes = sorted(app.available_themes)
        assert "raidtop-16color" in themes and "textual-light" in themes
        for theme in themes:
            app.theme = theme
            await pilot.pause()
            for name in NAMES:
                want = reference.get_component_rich_style(f"text-table--{name}")
                assert table_style(app, name) == want, (theme, name)
        # No table keeps nodes of its own for them.
        assert not app.query_one(TextTable)._component_styles


@pytest.mark.parametrize("theme", ["raidtop-dark", "textual-light"])
async def test_a_table_paints_with_the_apps_styles_and_follows_a_theme_change(theme: str) -> None:
    app = StylesApp()
    async with app.run_test(size=(40, 12)) as pilot:
        table = app.query_one(TextTable)
        table.set_rows([Row("r", ("crit", "x"), ("crit", None))])
        table.focus()
        await pilot.pause()
        app.theme = theme
        await pilot.pause()
        crit = table_style(app, "crit")
        cursor = table_style(app, "cursor")
        segments = [s for s in table.render_line(1) if s.text.strip() == "crit"]
        assert segments and segments[0].style is not None
        assert segments[0].style.color == crit.color and segments[0].style.bgcolor == cursor.bgcolor
        header = [s for s in table.render_line(0) if "Name" in s.text]
        assert header and header[0].style is not None and header[0].style.bgcolor == table_style(app, "header").bgcolor
