"""Pilot tests: the dashboard shows the right numbers and every key works."""

from __future__ import annotations

import pytest

from textual.widgets import Tabs

from raidtop.app.raidtop_app import RaidtopApp
from raidtop.config import Config
from raidtop.screens.dashboard.screen import DashboardScreen
from raidtop.screens.help import HelpScreen
from raidtop.widgets.text_table import TextTable

from tests.conftest import DATA


def cells(app: RaidtopApp, table_id: str) -> dict[str, tuple[str, ...]]:
    table = app.screen.query_one(f"#{table_id}", TextTable)
    return {row.key: row.cells for row in table.rows}


def column(table_id: str, app: RaidtopApp, label: str) -> int:
    table = app.screen.query_one(f"#{table_id}", TextTable)
    return [c.label for c in table.columns].index(label)


async def test_panels_show_sysstat_numbers(static_config, sample_snapshot):
    app = RaidtopApp(static_config)
    async with app.run_test(size=(120, 40)) as pilot:
        app.apply_snapshot(sample_snapshot)
        await pilot.pause()
        disks = cells(app, "disk-table")
        # sysstat's own golden `iostat -x 1 2` second report for root1 -> root2.
        assert disks["sdq"][column("disk-table", app, "r/s")] == "6.42"
        assert disks["sdr"][column("disk-table", app, "w_await")] == "40.00"
        assert disks["sdr"][column("disk-table", app, "%util")] == "6.42"
        assert "sda1" not in disks  # partitions hidden by default
        cpu = cells(app, "cpu-table")
        assert "all" in cpu and "0" in cpu
        vm = cells(app, "vm-table")
        assert any("free" in c for row in vm.values() for c in row)
        sensors = cells(app, "sensor-table")
        values = [row[2] for row in sensors.values()]
        assert "55.0°C" in values and "1098 RPM" in values


async def test_show_all_reveals_partitions(static_config, sample_snapshot):
    app = RaidtopApp(static_config)
    async with app.run_test(size=(120, 40)) as pilot:
        app.apply_snapshot(sample_snapshot)
        await pilot.press("a")
        assert "sda1" in cells(app, "disk-table")
        await pilot.press("a")
        assert "sda1" not in cells(app, "disk-table")


async def test_sort_cycles_columns_and_orders_rows(static_config, sample_snapshot):
    app = RaidtopApp(static_config)
    async with app.run_test(size=(120, 40)) as pilot:
        app.apply_snapshot(sample_snapshot)
        await pilot.press("s")  # Device -> r/s, descending
        table = app.screen.query_one("#disk-table", TextTable)
        at = column("disk-table", app, "r/s")
        r_s = [float(r.cells[at]) for r in table.rows if r.cells[at] != "—"]
        assert r_s == sorted(r_s, reverse=True) and r_s[0] == 6.42
        await pilot.press("S")
        r_s = [float(r.cells[at]) for r in table.rows if r.cells[at] != "—"]
        assert r_s == sorted(r_s)


async def test_filter_dialog_limits_rows(static_config, sample_snapshot):
    app = RaidtopApp(static_config)
    async with app.run_test(size=(120, 40)) as pilot:
        app.apply_snapshot(sample_snapshot)
        await pilot.press("f")
        await pilot.press(*"sdr", "enter")
        await pilot.pause()
        assert list(cells(app, "disk-table")) == ["sdr"]
        await pilot.press("f", "ctrl+u", "enter")
        await pilot.pause()
        assert len(cells(app, "disk-table")) > 1


async def test_pause_and_interval_keys(static_config):
    app = RaidtopApp(static_config)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("p")
        assert app.sampling.paused and app.screen.query_one("#status").paused
        await pilot.press("p")
        assert not app.sampling.paused
        await pilot.press("plus")
        assert app.sampling.interval == 2.0
        await pilot.press("minus", "minus")
        assert app.sampling.interval == 0.5


async def test_help_lists_every_binding(static_config):
    app = RaidtopApp(static_config)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        listed = {key for row in app.screen.rows for key in row.key_id.split("+")}  # pairs share a row
        for binding in [*app.BINDINGS, *app.dashboard.BINDINGS]:
            # System bindings only answer their key with a sentence (the demo's refusals of t, b, l).
            assert binding.id in listed or binding.system
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)


async def test_the_palette_offers_every_key_that_works_here_and_none_that_does_not(static_config):
    app = RaidtopApp(static_config)
    async with app.run_test(size=(120, 40)):
        titles = {c.title for c in app.get_system_commands(app.dashboard)}
        for binding in [*app.BINDINGS, *app.dashboard.BINDINGS]:
            if binding.system:  # the demo's refusals: they answer a key, they are not offered
                continue
            works = binding.id != "array-detail"  # greyed out: the fixture has no md array
            works = works and not (binding.id or "").startswith(("replay-", "demo-"))
            assert (binding.description in titles) == works, binding.id


async def test_the_demo_palette_offers_only_what_works_in_the_demo():
    # Palette→Tune did nothing and said nothing; "Jump", "Back" and "Faster" were the replay's.
    app = RaidtopApp(Config(demo=True, autostart_sampler=False))
    async with app.run_test(size=(120, 40)) as pilot:
        titles = {c.title for c in app.get_system_commands(app.dashboard)}
        assert not titles & {"Tune", "Benchmarks", "Lab", "Jump", "Back", "Faster", "Slower", "Step", "Record"}
        assert {"Reset demo", "Presenter", "Faster rebuild", "Make a disk go bad"} <= titles
        # The keys the demo does not offer are refused in a sentence, not in silence.
        for key, screen in (("t", "Tune"), ("b", "Benchmarks"), ("l", "Lab")):
            app.clear_notifications()
            await pilot.press(key)
            await pilot.pause()
            assert isinstance(app.screen, DashboardScreen), key
            said = [n.message for n in app._notifications]
            assert any(m.startswith(f"{screen} ({key}) acts on this real machine") for m in said), said


async def test_tab_moves_between_panels(static_config, sample_snapshot):
    app = RaidtopApp(static_config)
    async with app.run_test(size=(120, 40)) as pilot:
        app.apply_snapshot(sample_snapshot)
        assert app.focused.id == "array-table"
        await pilot.press("tab")
        assert app.focused.id == "disk-table"
        await pilot.press("tab")
        assert app.focused.id == "cpu-table"
        await pilot.press("tab", "tab")
        assert app.focused.id == "sensor-table"
        await pilot.press("tab")
        assert app.focused.id == "array-table"
        await pilot.press("shift+tab")
        assert app.focused.id == "sensor-table"


@pytest.mark.parametrize("size", [(80, 24), (40, 12), (200, 60)])
async def test_resizing_keeps_working(static_config, sample_snapshot, size):
    app = RaidtopApp(static_config)
    async with app.run_test(size=(120, 40)) as pilot:
        app.apply_snapshot(sample_snapshot)
        await pilot.resize_terminal(*size)
        await pilot.pause()
        narrow = size[0] < 100 or size[1] < 30
        assert app.dashboard.has_class("-narrow") == narrow
        if narrow:
            # Folded into tabs: only the active panel is displayed.
            visible = lambda pid: app.screen.query_one(pid).display  # noqa: E731
            assert visible("#arrays") and not visible("#disks")
            # The tabs are made when the terminal first gets narrow, and follow the panel shown.
            tabs = app.screen.query_one("#panel-tabs", Tabs)
            assert tabs.display and tabs.active == "tab-arrays"
            await pilot.press("tab")
            assert app.focused.id == "disk-table"
            assert visible("#disks") and not visible("#arrays")
            assert tabs.active == "tab-disks"
            await pilot.press("tab")
            assert app.focused.id == "cpu-table"
            assert visible("#cpu") and not visible("#disks")
        app.apply_snapshot(sample_snapshot)
        await pilot.pause()
        assert "sdq" in cells(app, "disk-table")


async def test_app_on_a_root_samples_by_itself():
    # A long interval: exactly one (since-boot) sample happens during the test.
    app = RaidtopApp(Config(root=DATA / "root1", interval=30.0))
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(400):  # up to ~20 s on a loaded machine; not a timing assertion
            await pilot.pause(0.05)
            if app.live.latest is not None:
                break
        snap = app.live.latest
        assert snap is not None and snap.since_boot
        # First sample of a root: iostat's since-boot report (golden: sda r/s 6.90).
        assert cells(app, "disk-table")["sda"][column("disk-table", app, "r/s")] == "6.90"


async def test_explain_key_opens_the_formulas_of_the_highlighted_row(static_config, sample_snapshot):
    from raidtop.screens.explain import ExplainScreen

    app = RaidtopApp(static_config)
    async with app.run_test(size=(120, 40)) as pilot:
        app.apply_snapshot(sample_snapshot)
        await pilot.press("tab")  # the Disks panel
        table = app.screen.query_one("#disk-table", TextTable)
        table.move_cursor_to_key("sdr")
        await pilot.press("x")
        assert isinstance(app.screen, ExplainScreen)
        assert app.screen.explanation.title.startswith("sdr")
        await pilot.press("escape")
        assert not isinstance(app.screen, ExplainScreen)
