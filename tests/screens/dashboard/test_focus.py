"""Issue 15: one cursor and one meaning — focus, keys on the focused row, q/Esc, narrow terminals, toasts, help."""

from __future__ import annotations

import asyncio
import re
import shutil
from pathlib import Path

from raidtop.app.raidtop_app import RaidtopApp
from raidtop.collect.sampler import Sampler
from raidtop.config import Config
from raidtop.screens.array_detail import ArrayDetailScreen
from raidtop.screens.dialogs import ConfirmDialog
from raidtop.screens.help import HelpScreen
from raidtop.widgets.array_rows import array_columns
from raidtop.widgets.key_footer import KeyFooter
from raidtop.widgets.key_list import KeyList
from raidtop.app.notices import MAX_VISIBLE, Notice, grouped
from raidtop.widgets.status_bar import StatusBar
from raidtop.widgets.text_table import TextTable
from raidtop.widgets.part_styles import TABLE_PARTS

from tests.hostile import terminal_bytes
from tests.screens.bench.bench_pilot import Bench, bench, make_app, open_screen, wait_for_screen, wait_until  # noqa: F401

MDSTAT = Path(__file__).resolve().parents[2] / "data" / "md" / "mdstat"
REBUILDING = "nicolargo-pymdstat__mdstat.05"
"""md127 raid6 recovering: 12.6 %, speed=33440K/sec, finish=127.5min."""


def screen_text(app) -> str:
    """What a reader sees: the painted screen without styling."""
    return re.sub(r"\x1b\[[0-9;:]*[A-Za-z]", "", terminal_bytes(app).decode())


def mdstat_root(tmp_path: Path, corpus_name: str) -> Path:
    root = tmp_path / corpus_name
    (root / "proc").mkdir(parents=True)
    shutil.copy(MDSTAT / corpus_name, root / "proc" / "mdstat")
    return root


def cursor_tables(app) -> list[str]:
    """Ids of the tables that paint a highlighted row right now."""
    drawn = []
    for table in app.screen.query(TextTable):
        if not table.display or table.region.height == 0 or not table.rows:
            continue
        cursor_bg = TABLE_PARTS.style(app, "cursor").bgcolor
        for y in range(table.size.height):
            if any(seg.style is not None and seg.style.bgcolor == cursor_bg for seg in table.render_line(y)):
                drawn.append(table.id or "?")
                break
    return drawn


async def wait(pilot, condition, timeout: float = 20.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        assert loop.time() < deadline, "condition not reached"
        await pilot.pause(0.05)


def md9(app):
    snap = app.live.latest
    return next((a for a in snap.arrays if a.name == "md9"), None) if snap else None


async def test_one_highlighted_row_whatever_has_focus(tmp_path):
    app = RaidtopApp(Config(demo=True, interval=0.5))
    async with app.run_test(size=(160, 50)) as pilot:
        await wait(pilot, lambda: md9(app) is not None and app.focused is not None and app.focused.id == "member-table")
        await pilot.pause()  # the Blur of the table that had focus is a message of its own
        assert cursor_tables(app) == ["member-table"]
        for key, expected in (("1", "array-table"), ("3", "disk-table"), ("4", "cpu-table"), ("2", "member-table")):
            await pilot.press(key)
            await pilot.pause()
            assert app.focused.id == expected
            assert cursor_tables(app) == [expected], key


async def test_d_opens_the_array_of_the_focused_member_grid():
    app = RaidtopApp(Config(demo=True, interval=0.5))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait(pilot, lambda: md9(app) is not None and app.focused is not None and app.focused.id == "member-table")
        arrays = app.screen.query_one("#array-table", TextTable)
        arrays.move_cursor_to_key("md6")  # the arrays table points elsewhere: it must not win
        await pilot.press("d")
        await wait(pilot, lambda: isinstance(app.screen, ArrayDetailScreen))
        assert app.screen.array_name == "md9"
        await pilot.press("q")  # back, not quit
        await pilot.pause()
        assert app.screen is app.dashboard and app.is_running
        await pilot.press("1", "d")  # from the arrays table: its highlighted row
        await wait(pilot, lambda: isinstance(app.screen, ArrayDetailScreen))
        assert app.screen.array_name == "md6"


async def test_the_cursor_stays_on_a_failed_member_by_name():
    app = RaidtopApp(Config(demo=True, interval=0.5))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait(pilot, lambda: md9(app) is not None)
        sim = app.demo.sim
        sim.advance(sim.component_kib)
        await wait(pilot, lambda: md9(app).health == "ok" and md9(app).sync is None)
        table = app.screen.query_one("#member-table", TextTable)
        first = sim.members[0].name
        table.move_cursor_to_key(f"md9/{first}")
        await pilot.press("f")
        await wait(pilot, lambda: any(m.name == first and m.is_faulty for m in md9(app).members))
        await pilot.pause()
        # The faulty member lost its slot and moved to the bottom; the cursor went with it.
        assert [r.key for r in table.rows][-1] == f"md9/{first}"
        assert table.cursor_key == f"md9/{first}"


async def test_esc_leaves_the_member_grid_and_the_footer_says_so():
    app = RaidtopApp(Config(demo=True, interval=0.5))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait(pilot, lambda: md9(app) is not None and app.focused is not None and app.focused.id == "member-table")
        await pilot.pause()
        footer_keys = lambda: [item.key for item in app.screen.query_one(KeyFooter).items]  # noqa: E731
        await wait(pilot, lambda: "escape" in footer_keys())
        await pilot.press("escape")
        await pilot.pause()
        assert app.focused.id == "array-table"
        await wait(pilot, lambda: "escape" not in footer_keys())


async def test_q_on_benchmarks_goes_back_and_asks_while_fio_runs(bench: Bench, monkeypatch):  # noqa: F811
    monkeypatch.setenv("FAKE_FIO_TICK", "0.1")
    bench.remember(bench.target, runtime_s=120)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_screen(app, pilot, bench.screen())
        await pilot.press("q")
        await pilot.pause()
        assert app.screen is app.dashboard and app.is_running  # back, not quit
        screen = await open_screen(app, pilot, bench.screen())
        await pilot.press("5")
        await wait_for_screen(pilot, ConfirmDialog)
        await pilot.press("y")
        await wait_until(pilot, lambda: len(screen.live_points) >= 2)
        await pilot.press("ctrl+q")  # quitting from anywhere asks while fio runs
        await wait_for_screen(pilot, ConfirmDialog)
        assert "fio" in screen_text(app)
        await pilot.press("n")
        await pilot.pause()
        assert app.is_running and screen.job is not None
        await pilot.press("q")  # back asks too; yes stops fio, keeps its partial result and leaves
        await wait_for_screen(pilot, ConfirmDialog)
        await pilot.press("y")
        await wait_until(pilot, lambda: app.screen is app.dashboard)
        (run,) = bench.history.runs()
        assert run.partial  # the result is stored, marked partial
        assert not any((bench.target / "raidtop-bench.d").glob("*.dat"))
        await pilot.press("q")
    assert app.return_code == 0


async def test_q_on_the_dashboard_quits_at_once_when_nothing_runs(static_config):
    app = RaidtopApp(static_config)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 0 and not app.is_running


async def _screen_of_rebuild(tmp_path: Path, size: tuple[int, int]) -> str:
    root = mdstat_root(tmp_path, REBUILDING)
    app = RaidtopApp(Config(root=root, autostart_sampler=False))
    async with app.run_test(size=size) as pilot:
        app.apply_snapshot(Sampler(root, clock=lambda: 1_600_000_000.0).sample())
        await pilot.pause()
        await pilot.pause()
        return screen_text(app)


async def test_80x24_keeps_state_members_percent_speed_eta_and_the_clock(tmp_path):
    text = await _screen_of_rebuild(tmp_path, (80, 24))
    lines = text.splitlines()
    assert "12:26:40" in lines[0]  # the sample's clock (UTC) in the header
    row = next(line for line in lines if "md127" in line)
    for wanted in ("recovering", "[UUUUU_]", "12.7%", "32.7MiB/s", "2h0"):
        assert wanted in row, (wanted, row)
    footer = lines[-1]
    assert "? Help" in footer or "? Help" in footer.replace("  ", " ")


async def test_100x30_keeps_them_too(tmp_path):
    text = await _screen_of_rebuild(tmp_path, (100, 30))
    lines = text.splitlines()
    assert "12:26:40" in lines[0]
    row = next(line for line in lines if "md127" in line)
    for wanted in ("recovering", "[UUUUU_]", "12.7%", "32.7MiB/s", "2h0"):
        assert wanted in row, (wanted, row)


def test_columns_give_way_size_first_then_the_clock_and_notes_take_the_rest():
    keys = lambda width: [c.key for c in array_columns(width)[0]]  # noqa: E731
    assert keys(200) == [
        "name",
        "level",
        "state",
        "counts",
        "status",
        "size",
        "progress",
        "speed",
        "eta",
        "finish_at",
        "marks",
    ]
    assert "size" not in keys(120) and "finish_at" in keys(120)
    narrow = keys(78)
    # The row's notes (a stall, a failing member, slots by design) stay at 80 columns.
    assert {"state", "status", "progress", "speed", "eta", "marks"} <= set(narrow)
    assert "size" not in narrow and "finish_at" not in narrow
    assert sum(c.width for c in array_columns(78)[0]) <= 78


async def test_the_header_keeps_clock_paused_and_badge_at_any_width(static_config):
    app = RaidtopApp(static_config)
    async with app.run_test(size=(60, 24)) as pilot:
        status = app.dashboard.query_one(StatusBar)
        status.host = "a-very-long-host-name.example.org running linux 6.8"
        status.badge = "DEMO — SIMULATED"
        status.sample_time = "12:34:56"
        status.load = "1.00 2.00 3.00"
        status.paused = True
        await pilot.pause()
        line = screen_text(app).splitlines()[0]
        assert "DEMO — SIMULATED" in line and "12:34:56" in line and "PAUSED" in line
        assert "a-very-long-host" not in line


async def test_a_header_wider_than_the_screen_ends_in_an_ellipsis_and_takes_a_new_theme(static_config):
    app = RaidtopApp(static_config)
    async with app.run_test(size=(30, 24)) as pilot:
        status = app.dashboard.query_one(StatusBar)
        status.badge = "DEMO — SIMULATED"
        status.sample_time = "12:34:56"
        status.paused = True
        await pilot.pause()
        line = screen_text(app).splitlines()[0]
        assert line.startswith(" DEMO — SIMULATED") and line.rstrip().endswith("…") and len(line) <= 30
        dark = status.render_line(0)
        app.theme = "raidtop-light"
        await pilot.pause()
        assert status.render_line(0).text == dark.text and status.render_line(0) != dark  # same words, new colours


async def test_footer_shows_whole_words_and_always_help(static_config):
    app = RaidtopApp(static_config)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        footer = app.dashboard.query_one(KeyFooter)
        keys = footer.items
        assert keys[0].description == "Help" and keys[-1].description == "palette"
        for key in keys:
            assert key.end <= 80, key.description  # nothing cut at the edge
        last = screen_text(app).splitlines()[-1]
        assert "? Help" in last


async def test_the_page_does_not_scroll_with_the_grid_open_and_a_pressed(tmp_path):
    root = mdstat_root(tmp_path, REBUILDING)
    app = RaidtopApp(Config(root=root, autostart_sampler=False))
    async with app.run_test(size=(80, 24)) as pilot:
        app.apply_snapshot(Sampler(root).sample())
        await pilot.pause()
        await pilot.press("enter", "a")  # the member grid, then every device
        await pilot.pause()
        assert app.focused.id == "member-table"
        status = app.dashboard.query_one(StatusBar)
        assert status.region.y == 0 and status.region.height == 1
        assert app.dashboard.scroll_offset.y == 0 and app.dashboard.max_scroll_y == 0
        assert "raidtop" in screen_text(app).splitlines()[0]


async def test_help_at_120x40_shows_key_glyphs(static_config):
    app = RaidtopApp(static_config)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        text = screen_text(app)
        assert "full_stop" not in text and " comma " not in text and "greater_than" not in text
        keys = {row.key_id: row.keys for row in app.screen.rows}
        assert keys["replay-step+replay-back"] == ". / ,"
        assert keys["replay-faster+replay-slower"] == "> / <"
        assert keys["interval-up+interval-down"] == "+ / -"
        assert "member-fail" in keys and "members-back" in keys and "tuning-back" not in keys
        # One column wide enough that descriptions are not cut: it scrolls (tests/screens/test_help.py).
        assert len({table.region.x for table in app.screen.query(KeyList)}) == 1
        titles = [str(title.content) for title in app.screen.query(".help-section")]
        for title in ("Member grid", "Replay", "Lab", "Fleet", "Benchmarks", "Tuning"):
            assert any(shown.startswith(title) for shown in titles)


async def test_help_widens_with_the_terminal(static_config):
    app = RaidtopApp(static_config)
    async with app.run_test(size=(200, 30)) as pilot:
        await pilot.press("question_mark")
        await pilot.pause()
        assert len({table.region.x for table in app.screen.query(KeyList)}) == 2
        scroll = app.screen.query_one("#help-scroll")
        assert scroll.region.width > 190
    # Scrolling at 80×24: tests/screens/test_help.py.


def test_several_events_of_one_array_are_one_toast():
    notices = [
        Notice("member sdb failed", "md0: Fail", "error", 10),
        Notice("array is degraded", "md0: DegradedArray", "warning", 5),
        Notice("rebuild started", "md0: RebuildStarted"),
        Notice("new array", "md1: NewArray"),
    ]
    out = grouped(notices, lambda n: n.title.partition(":")[0])
    assert [n.title for n in out] == ["3 events on md0", "md1: NewArray"]
    assert out[0].severity == "error" and out[0].timeout == 10
    assert "Fail: member sdb failed" in out[0].message


async def test_toasts_two_at_most_held_under_a_dialog_and_muted_by_M(static_config):
    app = RaidtopApp(static_config)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        for n in range(4):
            app.notify(f"notice {n}")
        await pilot.pause()
        assert [n.message for n in app._notifications] == ["notice 2", "notice 3"][-MAX_VISIBLE:]
        app.clear_notifications()
        app.push_screen(ConfirmDialog("Fail loop2 of md101?", "mdadm /dev/md101 --fail /dev/loop2"))
        await pilot.pause()
        app.notices.offer_events([Notice("member loop3 failed", "md7: Fail", "error")], lambda n: "md7")
        await pilot.pause()
        assert len(app._notifications) == 0  # nothing over the dialog
        await pilot.press("n")
        await pilot.pause()
        assert [n.title for n in app._notifications] == ["md7: Fail"]
        app.clear_notifications()
        await pilot.press("M")
        await pilot.pause()
        app.clear_notifications()
        app.notices.offer_events([Notice("member loop4 failed", "md7: Fail", "error")], lambda n: "md7")
        await pilot.pause()
        assert len(app._notifications) == 0
        assert app.notices.offered[-1].message == "member loop4 failed"


def _rebuild_svg(snap_compare, tmp_path: Path, size: tuple[int, int]) -> bool:
    root = mdstat_root(tmp_path, REBUILDING)

    async def feed(pilot) -> None:
        pilot.app.apply_snapshot(Sampler(root, clock=lambda: 1_600_000_000.0).sample())
        await pilot.pause()

    return snap_compare(RaidtopApp(Config(root=root, autostart_sampler=False)), terminal_size=size, run_before=feed)


def test_rebuild_snapshot_80x24(snap_compare, tmp_path):
    assert _rebuild_svg(snap_compare, tmp_path, (80, 24))


def test_rebuild_snapshot_100x30(snap_compare, tmp_path):
    assert _rebuild_svg(snap_compare, tmp_path, (100, 30))
