"""The Benchmarks screen's comparisons: a baseline, repeated passes, and an SVG snapshot of a finished comparison.

Runs are in test_bench_runs.py, the checks before a run in test_bench_setup.py;
the fake-fio set-up in bench_pilot.py. Every XDG directory points into a temporary directory.
"""

from __future__ import annotations

from pathlib import Path

from raidtop.actions.fio.prefs import BenchPrefs, save_prefs
from raidtop.actions.fio.store import RunStore
from raidtop.screens.bench.screen import BenchScreen
from raidtop.screens.dialogs import AskDialog, ConfirmDialog
from raidtop.widgets.text_table import TextTable
from tests.screens.bench.bench_pilot import (
    Bench,
    make_app,
    open_screen,
    store_comparison,
    table_rows,
    wait_for_screen,
    wait_until,
)


async def test_marking_a_baseline_shows_the_comparison(bench: Bench):
    base, faster, similar = store_comparison(bench.history)
    bench.remember("/srv/bench")
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_screen(app, pilot, bench.screen())
        table = screen.query_one("#bench-table", TextTable)
        table.focus()
        table.move_cursor_to_key(str(base.id))
        await pilot.press("m")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert screen.view == "compare" and bench.history.baseline("rand-rw").id == base.id
        rows = table_rows(screen, "bench-table")
        assert list(rows) == [str(base.id), str(faster.id), str(similar.id)]  # the seq-read run is another preset
        assert rows[str(base.id)][:4] == ("★", str(base.id), "scheduler=none", "10.0k")
        assert rows[str(faster.id)][3:] == (
            "12.0k +20.0%",
            "9,000 -10.0%",
            "46.9 +20.0%",
            "35.2 -10.0%",
            "900µs -10.0%",
            "2.60ms +30.0%",
        )
        tones = {r.key: r.styles for r in table.rows}
        assert tones[str(faster.id)][3:] == ("good", "crit", "good", "crit", "good", "crit")
        assert tones[str(similar.id)][3] == "dim"  # +0.5%: noise
        await pilot.press("down")
        detail = str(screen.query_one("#bench-detail").render())
        assert "loop3.scheduler: none → mq-deadline" in detail
        await pilot.press("h")
        assert screen.view == "results" and len(table.rows) == 4


async def test_repeat_asks_for_passes_and_shows_each_pass_with_mean_and_stddev(bench: Bench):
    bench.remember(bench.target, runtime_s=2)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_screen(app, pilot, bench.screen())
        await pilot.press("r")
        await wait_for_screen(pilot, AskDialog)
        app.screen.query_one("#bench-count-input").value = "3"
        await pilot.press("enter")
        await wait_for_screen(pilot, ConfirmDialog)
        assert "Repeat: 3 passes" in str(app.screen.query_one("#confirm-details").render())
        await pilot.press("y")
        await wait_until(pilot, lambda: screen.job is None and len(screen.runs) == 3 and screen.view == "group")
        await pilot.pause()
        rows = table_rows(screen, "bench-table")
        assert [cells[2] for cells in rows.values()] == ["pass 1/3", "pass 2/3", "pass 3/3", "mean ± sd (n=3)"]
        assert rows["mean"][3] == "1,500±0"


def test_a_finished_comparison_snapshot(snap_compare, tmp_path: Path, monkeypatch):
    for kind in ("DATA", "CONFIG", "STATE"):
        monkeypatch.setenv(f"XDG_{kind}_HOME", str(tmp_path / kind.lower()))
    history = RunStore(tmp_path / "data" / "raidtop" / "bench.sqlite")
    base, _faster, _similar = store_comparison(history)
    history.set_baseline(base.id)
    save_prefs(BenchPrefs("/srv/bench", 15))
    presets = tmp_path / "presets.toml"
    presets.write_text("")

    async def open_comparison(pilot) -> None:
        # A fixed fio path: the screen never runs it here, and the title must not depend on the host.
        pilot.app.push_screen(BenchScreen(history=history, presets_file=presets, fio_path="/usr/bin/fio"))
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        table = pilot.app.screen.query_one("#bench-table", TextTable)
        table.focus()
        await pilot.press("c")
        await pilot.press("down")
        await pilot.pause()

    assert snap_compare(make_app(), terminal_size=(120, 40), run_before=open_comparison)
