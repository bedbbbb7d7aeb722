"""The widgets' parts, held once by the app: the same styles each widget resolved for itself, in every theme."""

from __future__ import annotations

import pytest
from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import Static

from raidtop.app.terminal_app import TerminalApp
from raidtop.themes import BUILTIN_DIR, load_themes
from raidtop.widgets.heat_grid import HeatGrid
from raidtop.widgets.key_footer import KeyFooter
from raidtop.widgets.key_list import KeyList, KeyWidths
from raidtop.widgets.latency_heat_map import LatencyHeatMap
from raidtop.widgets.notes_bar import NotesBar
from raidtop.widgets.part_styles import (
    ALL_PARTS,
    HEAT_GRID_PARTS,
    KEY_FOOTER_PARTS,
    KEY_LIST_PARTS,
    LATENCY_HEAT_MAP_PARTS,
    NOTES_BAR_PARTS,
    STAGE_BAR_PARTS,
    STATUS_BAR_PARTS,
    TABLE_PARTS,
    TIME_BAR_PARTS,
    WidgetParts,
)
from raidtop.widgets.stage_bar import StageBar
from raidtop.widgets.status_bar import StatusBar
from raidtop.widgets.text_table import Column, Row, TextTable
from raidtop.widgets.time_bar import TimeBar


def own_parts(name: str, classes: frozenset[str], css: str) -> type[Widget]:
    """A widget resolving its parts for itself, as each of raidtop's did (CSS copied from them)."""
    return type(name, (Widget,), {"COMPONENT_CLASSES": set(classes), "DEFAULT_CSS": css})


REFERENCES: dict[str, tuple[WidgetParts, type[Widget]]] = {
    "table": (
        TABLE_PARTS,
        own_parts(
            "OwnTableParts",
            TABLE_PARTS.classes,
            """
            OwnTableParts { background: $surface; color: $foreground; height: 3; }
            OwnTableParts > .text-table--header { color: $text-primary; text-style: bold; background: $panel; }
            OwnTableParts > .text-table--sorted { color: $text-accent; text-style: bold underline; background: $panel; }
            OwnTableParts > .text-table--cursor {
                background: $block-cursor-background; color: $block-cursor-foreground;
            }
            OwnTableParts > .text-table--dim { color: $text-muted; }
            OwnTableParts > .text-table--good { color: $text-success; }
            OwnTableParts > .text-table--warn { color: $text-warning; }
            OwnTableParts > .text-table--crit { color: $text-error; text-style: bold; }
            OwnTableParts > .text-table--accent { color: $text-accent; }
            OwnTableParts > .text-table--spark { color: $secondary; }
            """,
        ),
    ),
    "status bar": (
        STATUS_BAR_PARTS,
        own_parts(
            "OwnStatusBarParts",
            STATUS_BAR_PARTS.classes,
            """
            OwnStatusBarParts { height: 1; background: $panel; color: $foreground; }
            OwnStatusBarParts > .status-bar--title { color: $text-primary; text-style: bold; }
            OwnStatusBarParts > .status-bar--alert { color: $text-error; text-style: bold reverse; }
            OwnStatusBarParts > .status-bar--muted { color: $text-muted; }
            """,
        ),
    ),
    "notes bar": (
        NOTES_BAR_PARTS,
        own_parts(
            "OwnNotesBarParts",
            NOTES_BAR_PARTS.classes,
            """
            OwnNotesBarParts { height: 1; background: $surface; color: $text-warning; }
            OwnNotesBarParts > .notes-bar--count { color: $text-muted; }
            """,
        ),
    ),
    "heat grid": (
        HEAT_GRID_PARTS,
        own_parts(
            "OwnHeatGridParts",
            HEAT_GRID_PARTS.classes,
            """
            OwnHeatGridParts { height: 1; background: $surface; }
            OwnHeatGridParts > .heat-grid--label { color: $text-muted; }
            OwnHeatGridParts > .heat-grid--low { color: $text-success; }
            OwnHeatGridParts > .heat-grid--mid { color: $text-warning; }
            OwnHeatGridParts > .heat-grid--high { color: $text-error; }
            """,
        ),
    ),
    "time bar": (
        TIME_BAR_PARTS,
        own_parts(
            "OwnTimeBarParts",
            TIME_BAR_PARTS.classes,
            """
            OwnTimeBarParts { height: 1; background: $panel; }
            OwnTimeBarParts > .time-bar--done { color: $primary; }
            OwnTimeBarParts > .time-bar--todo { color: $text-muted; }
            OwnTimeBarParts > .time-bar--head { color: $text-accent; text-style: bold; }
            OwnTimeBarParts > .time-bar--bad { color: $text-error; text-style: bold; }
            OwnTimeBarParts > .time-bar--good { color: $text-success; }
            OwnTimeBarParts > .time-bar--label { color: $foreground; }
            """,
        ),
    ),
    "stage bar": (
        STAGE_BAR_PARTS,
        own_parts(
            "OwnStageBarParts",
            STAGE_BAR_PARTS.classes,
            """
            OwnStageBarParts { height: 1; }
            OwnStageBarParts > .stage-bar--narration { color: $foreground; text-style: bold; }
            OwnStageBarParts > .stage-bar--source { color: $text-muted; }
            OwnStageBarParts > .stage-bar--key { color: $text-accent; text-style: bold; }
            """,
        ),
    ),
    "key list": (
        KEY_LIST_PARTS,
        own_parts(
            "OwnKeyListParts",
            KEY_LIST_PARTS.classes,
            """
            OwnKeyListParts { height: 1; background: $surface; }
            OwnKeyListParts > .key-list--key { color: $text-success; }
            OwnKeyListParts > .key-list--action { color: $foreground; }
            OwnKeyListParts > .key-list--details { color: $text-muted; }
            """,
        ),
    ),
    "latency heat map": (
        LATENCY_HEAT_MAP_PARTS,
        own_parts(
            "OwnLatencyHeatMapParts",
            LATENCY_HEAT_MAP_PARTS.classes,
            """
            OwnLatencyHeatMapParts { height: 1; background: $surface; }
            OwnLatencyHeatMapParts > .latency-heat-map--label { color: $text-muted; }
            OwnLatencyHeatMapParts > .latency-heat-map--l1 { color: $text-muted; }
            OwnLatencyHeatMapParts > .latency-heat-map--l2 { color: $text-primary; }
            OwnLatencyHeatMapParts > .latency-heat-map--l3 { color: $text-accent; }
            OwnLatencyHeatMapParts > .latency-heat-map--l4 { color: $accent; text-style: bold; }
            """,
        ),
    ),
    "key footer": (
        KEY_FOOTER_PARTS,
        own_parts(
            "OwnKeyFooterParts",
            KEY_FOOTER_PARTS.classes,
            """
            OwnKeyFooterParts { height: 1; color: $footer-foreground; background: $footer-background; }
            OwnKeyFooterParts > .key-footer--item { background: $footer-item-background; }
            OwnKeyFooterParts > .key-footer--hover {
                color: $footer-key-foreground; background: $block-hover-background;
            }
            OwnKeyFooterParts > .key-footer--disabled { text-style: dim; }
            OwnKeyFooterParts > .key-footer--key {
                color: $footer-key-foreground; background: $footer-key-background; text-style: bold;
            }
            OwnKeyFooterParts > .key-footer--description {
                color: $footer-description-foreground; background: $footer-description-background;
            }
            OwnKeyFooterParts > .key-footer--line { color: $foreground 20%; }
            """,
        ),
    ),
}


class PartsApp(TerminalApp[None]):
    def __init__(self) -> None:
        super().__init__()
        for theme in load_themes([BUILTIN_DIR]).themes:
            self.register_theme(theme)

    def compose(self) -> ComposeResult:
        yield Static("above")
        for _parts, reference in REFERENCES.values():
            yield reference()
        yield TextTable([Column("a", "Name", 8, "left"), Column("b", "Value", 8)], id="t")
        yield StatusBar()
        yield NotesBar()
        yield HeatGrid()
        yield TimeBar()
        yield StageBar()
        yield KeyFooter()
        yield KeyList([], KeyWidths(4, 8, 8))
        yield LatencyHeatMap()


def test_every_widget_with_parts_is_declared_once() -> None:
    assert {parts.prefix for parts in ALL_PARTS} == {parts.prefix for parts, _ in REFERENCES.values()}
    assert len({parts.prefix for parts in ALL_PARTS}) == len(ALL_PARTS)


async def test_the_app_holds_the_styles_each_widget_resolved_for_itself_in_every_theme() -> None:
    app = PartsApp()
    async with app.run_test(size=(60, 30)) as pilot:
        themes = sorted(app.available_themes)
        assert "raidtop-16color" in themes and "textual-light" in themes
        for theme in themes:
            app.theme = theme
            await pilot.pause()
            for label, (parts, reference_type) in REFERENCES.items():
                reference = app.query_one(reference_type)
                for part, _rules in parts.rules:
                    name = f"{parts.prefix}--{part}"
                    if parts.background is None:
                        # The footer folds its parts' rules itself: the rules are what must be equal.
                        got = parts.styles(app, part).get_rules()
                        assert got == reference.get_component_styles(name).get_rules(), (theme, label, part)
                    else:
                        want = reference.get_component_rich_style(name)
                        assert parts.style(app, part) == want, (theme, label, part)
        # No widget keeps nodes of its own for them.
        shown = (TextTable, StatusBar, NotesBar, HeatGrid, TimeBar, StageBar, KeyFooter, KeyList, LatencyHeatMap)
        for widget_type in shown:
            assert not app.query_one(widget_type)._component_styles, widget_type


def test_a_rule_without_a_background_takes_the_widgets_and_one_with_its_own_keeps_it() -> None:
    css = TABLE_PARTS.css("Host")
    assert "Host > .text-table--dim { color: $text-muted; background: $surface; }" in css
    assert "Host > .text-table--header { color: $text-primary; text-style: bold; background: $panel; }" in css
    assert "background: $footer-background" not in KEY_FOOTER_PARTS.css("Host")
    assert "Host > .key-footer--disabled { text-style: dim; }" in KEY_FOOTER_PARTS.css("Host")


@pytest.mark.parametrize("theme", ["raidtop-dark", "textual-light"])
async def test_a_table_paints_with_the_apps_styles_and_follows_a_theme_change(theme: str) -> None:
    app = PartsApp()
    async with app.run_test(size=(60, 30)) as pilot:
        table = app.query_one(TextTable)
        table.set_rows([Row("r", ("crit", "x"), ("crit", None))])
        table.focus()
        await pilot.pause()
        app.theme = theme
        await pilot.pause()
        crit = TABLE_PARTS.style(app, "crit")
        cursor = TABLE_PARTS.style(app, "cursor")
        segments = [s for s in table.render_line(1) if s.text.strip() == "crit"]
        assert segments and segments[0].style is not None
        assert segments[0].style.color == crit.color and segments[0].style.bgcolor == cursor.bgcolor
        header = [s for s in table.render_line(0) if "Name" in s.text]
        assert header and header[0].style is not None
        assert header[0].style.bgcolor == TABLE_PARTS.style(app, "header").bgcolor


@pytest.mark.parametrize("theme", ["raidtop-dark", "textual-light"])
async def test_the_status_bar_paints_its_title_with_the_apps_style_after_a_theme_change(theme: str) -> None:
    app = PartsApp()
    async with app.run_test(size=(60, 30)) as pilot:
        bar = app.query_one(StatusBar)
        bar.host = "server-1"
        await pilot.pause()
        app.theme = theme
        await pilot.pause()
        title = STATUS_BAR_PARTS.style(app, "title")
        segments = [s for s in bar.render_line(0) if "raidtop" in s.text]
        assert segments and segments[0].style is not None
        assert segments[0].style.color == title.color and segments[0].style.bold


def test_no_widget_of_raidtop_declares_parts_of_its_own() -> None:
    # A widget's own COMPONENT_CLASSES would bring back hidden style nodes per widget: declare them in part_styles.
    import importlib
    import pkgutil

    import raidtop

    own = []
    for info in pkgutil.walk_packages(raidtop.__path__, "raidtop."):
        if not info.name.startswith(("raidtop.widgets", "raidtop.screens", "raidtop.app")):
            continue
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            declares = isinstance(value, type) and value.__module__ == info.name and "COMPONENT_CLASSES" in vars(value)
            if declares and value is not TerminalApp:
                own.append(f"{info.name}.{value.__qualname__}")
    assert not own
