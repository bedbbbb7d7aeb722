"""Issue 29: help fits — no description cut at 120×40 and wider, every word painted, and it scrolls at 80×24."""

from __future__ import annotations

import re

import pytest
from textual.containers import VerticalScroll

from raidtop.app.keys import APP_BINDINGS
from raidtop.app.raidtop_app import RaidtopApp
from raidtop.screens.bench.screen import BenchScreen
from raidtop.screens.dashboard.keys import DASHBOARD_BINDINGS
from raidtop.screens.fleet import FleetScreen, HostScreen
from raidtop.screens.help import HelpScreen, context_sections
from raidtop.screens.lab.screen import LabScreen
from raidtop.screens.tuning.screen import TuningScreen
from raidtop.widgets.arrays_panel import ArraysPanel
from raidtop.widgets.key_list import GAP, KeyList, KeyRow
from raidtop.widgets.text_table import TextTable

from tests.hostile import terminal_bytes

CONTEXTS = {
    "global": APP_BINDINGS,
    "dashboard": DASHBOARD_BINDINGS,
    "member grid": ArraysPanel.BINDINGS,
    "tables": TextTable.BINDINGS,
    "Benchmarks": BenchScreen.BINDINGS,
    "Lab": LabScreen.BINDINGS,
    "Tuning": TuningScreen.BINDINGS,
    "fleet": [*FleetScreen.BINDINGS, *HostScreen.BINDINGS],
}


def painted_lines(app) -> list[str]:
    """The screen as a reader sees it, one string per terminal line."""
    return re.sub(r"\x1b\[[0-9;:]*[A-Za-z]", "", terminal_bytes(app).decode()).splitlines()


def painted_rows(lines: list[str], table: KeyList) -> dict[str, tuple[str, str, str]]:
    """Each row's three columns as painted, wrapped lines joined again with a space."""
    region = table.region
    area = [line[region.x : region.right] for line in lines[region.y : region.bottom]]
    widths = table.widths
    spans = [
        (0, widths.key),
        (widths.key + GAP, widths.key + GAP + widths.action),
        (widths.key + widths.action + 2 * GAP, widths.total),
    ]
    rows: dict[str, tuple[str, str, str]] = {}
    y = 0
    for row in table.rows:
        height = row.height(widths)
        block = area[y : y + height]
        y += height
        cells = [" ".join(part for line in block if (part := line[a:b].strip())) for a, b in spans]
        rows[row.key_id] = (cells[0], cells[1], cells[2])
    return rows


def whole(row: KeyRow) -> tuple[str, str, str]:
    return (row.keys, " ".join(row.action.split()), " ".join(row.details.split()))


async def every_painted_row(app, pilot) -> dict[str, tuple[str, str, str]]:
    """Scroll each section into view and read its rows off the painted screen."""
    scroll = app.screen.query_one("#help-scroll", VerticalScroll)
    seen: dict[str, tuple[str, str, str]] = {}
    for table in app.screen.query(KeyList):
        scroll.scroll_to_widget(table, animate=False, top=True)
        await pilot.pause()
        visible = table.region.intersection(scroll.region)
        assert visible == table.region, f"{table.id} is taller than the screen"
        assert table.region.right <= scroll.region.right, f"{table.id} runs past the frame"
        seen.update(painted_rows(painted_lines(app), table))
    return seen


@pytest.mark.parametrize("size", [(120, 40), (200, 60)])
async def test_help_cuts_no_description_and_lists_every_context(static_config, size):
    app = RaidtopApp(static_config)
    async with app.run_test(size=size) as pilot:
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        shown = {row.key_id: row for row in app.screen.rows}
        painted = await every_painted_row(app, pilot)
        assert painted.keys() == shown.keys()
        for key_id, row in shown.items():
            keys, action, details = painted[key_id]
            assert "…" not in action + details, key_id
            # Every word of what the key does and why, in order, on screen.
            assert (keys, action, details) == whole(row), key_id
        listed = {part for key_id in shown for part in key_id.split("+")}
        for context, bindings in CONTEXTS.items():
            for binding in bindings:
                if binding.action in {"back", "app.pop_screen", "dismiss"}:
                    continue  # one Back row stands for every screen's Esc/q
                assert binding.id in listed, f"{context}: {binding.id}"


async def test_help_at_200x60_fits_one_page_in_two_columns(static_config):
    app = RaidtopApp(static_config)
    async with app.run_test(size=(200, 60)) as pilot:
        await pilot.press("question_mark")
        await pilot.pause()
        assert len({table.region.x for table in app.screen.query(KeyList)}) == 2
        assert app.screen.query_one("#help-scroll", VerticalScroll).max_scroll_y == 0
        text = "\n".join(painted_lines(app))
        assert "Sample less often (longer interval)" in text
        assert "Slower rebuild /" in text and "Faster rebuild" in text


async def test_help_at_80x24_scrolls_to_its_last_line(static_config):
    app = RaidtopApp(static_config)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("question_mark")
        await pilot.pause()
        scroll = app.screen.query_one("#help-scroll", VerticalScroll)
        assert scroll.max_scroll_y > 0
        await pilot.press("end")
        await pilot.pause()
        assert scroll.scroll_y == scroll.max_scroll_y
        last = list(app.screen.query(KeyList))[-1]
        assert last.region.bottom <= scroll.region.bottom  # the last row is on screen
        last_row = last.rows[-1]
        final_words = last_row.details.split()[-1]
        assert any(final_words in line for line in painted_lines(app)[-4:])
        await pilot.press("home", "down")
        await pilot.pause()
        assert scroll.scroll_y == 1


def test_every_context_has_its_section():
    titles = [title for title, _ in context_sections(APP_BINDINGS)]
    for word in ("Global", "Dashboard", "Member grid", "Replay", "Benchmarks", "Lab", "Tuning", "Fleet"):
        assert any(title.startswith(word) for title in titles), word


async def test_help_names_its_scroll_keys_only_when_the_page_scrolls(static_config):
    for size, scrolls in (((200, 60), False), ((80, 24), True)):
        app = RaidtopApp(static_config)
        async with app.run_test(size=size) as pilot:
            await pilot.press("question_mark")
            await pilot.pause()
            await pilot.pause()
            text = "\n".join(painted_lines(app))
            assert ("PgDn End scroll" in text) is scrolls, size
            assert "Esc closes" in text
