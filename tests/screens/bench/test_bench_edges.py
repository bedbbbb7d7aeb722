"""The Benchmarks screen says what it does: its keys, its target, its runtime, its chart, its dialogs.

Each test reproduces a rough edge a newcomer met (issue 29); fio is the fake (bench_pilot.py).
"""

from __future__ import annotations

import re

from raidtop.actions.fio.presets import BUILTIN_PRESETS, KEYED_PRESETS, preset_keys
from raidtop.actions.fio.process import ProgressPoint
from raidtop.screens.bench.bindings import BENCH_BINDINGS
from raidtop.screens.bench.run_flow import BenchRun
from raidtop.screens.dialogs import FormDialog
from raidtop.widgets.fio_plot import FioProgressPlot
from raidtop.widgets.panel import Panel
from textual.binding import Binding

from tests.hostile import terminal_bytes
from tests.fio_samples import fio_json, md_tuning
from tests.screens.bench.bench_pilot import Bench, make_app, open_screen, table_rows, wait_for_screen


def painted(app) -> str:
    """The painted screen without styling: what a reader sees."""
    return re.sub(r"\x1b\[[0-9;:]*[A-Za-z]", "", terminal_bytes(app).decode())


def digit_keys() -> list[str]:
    return [b.key for b in BENCH_BINDINGS if isinstance(b, Binding) and b.key.isdigit()]


def test_the_digit_keys_are_the_preset_tables_own():
    assert KEYED_PRESETS == len(BUILTIN_PRESETS) == 6
    assert digit_keys() == [str(n) for n in range(1, KEYED_PRESETS + 1)]
    assert preset_keys() == "1–6"


async def test_the_header_and_panel_say_each_thing_once(bench: Bench):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_screen(app, pilot, bench.screen())
        title = str(screen.query_one("#bench-title").render())
        assert "target none yet (t)" in title and "press t" not in title
        assert screen.query_one("#bench-presets-panel", Panel).border_subtitle == "Enter or 1–6 runs"
        # `7` runs nothing: there is no seventh built-in preset and no binding for it.
        await pilot.press("7")
        await pilot.pause()
        assert app.screen is screen and screen.job is None


async def test_cycling_the_runtime_leaves_certification_at_its_own(bench: Bench):
    bench.remember(bench.target, runtime_s=120)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_screen(app, pilot, bench.screen())
        await pilot.press("u")  # 120 → 5 s
        await pilot.pause()
        assert screen.prefs.runtime_s == 5
        rows = table_rows(screen, "bench-presets")
        assert rows["seq-read"][3] == "5s" and rows["certification"][3] == "30s"


async def test_a_new_run_clears_the_previous_chart(bench: Bench):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_screen(app, pilot, bench.screen())
        plot = screen.query_one(FioProgressPlot)
        old = [ProgressPoint(t, 1000.0, 0.0, 4e6, 0.0, 500.0, None) for t in (1.0, 2.0, 3.0)]
        plot.show_points(old)
        await pilot.pause()
        assert "no run yet" not in str(plot.render())
        screen.post_message(BenchRun.Started(None))  # type: ignore[arg-type]
        await pilot.pause()
        assert str(screen.query_one("#bench-now").render()) == "starting fio…"
        assert str(plot.render()) == "waiting for fio's first report"


async def test_the_target_dialog_wraps_its_questions(bench: Bench):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await open_screen(app, pilot, bench.screen())
        await pilot.press("t")
        await wait_for_screen(pilot, FormDialog)
        await pilot.pause()
        # It was cut at the dialog's edge ("…to allow fio to dest"); now the sentence wraps whole.
        assert "Raw device not created by raidtop's lab? Type its name here to allow fio to" in painted(app)
        assert "destroy its data:" in painted(app)


def test_the_readme_names_the_same_preset_keys():
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[3] / "README.md").read_text()
    assert f"each one key ({preset_keys()} or Enter;" in readme


async def test_one_stored_run_is_one_run(bench: Bench):
    bench.history.add(
        preset="seq-read",
        target=str(bench.target),
        started=1700000000,
        runtime_s=15,
        fio_json=fio_json(900, bs=1 << 20),
        tuning=md_tuning(),
        fio_version="fio-3.33",
        kernel="6.1.0",
    )
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_screen(app, pilot, bench.screen())
        assert screen.query_one("#bench-table-panel", Panel).border_title == "Results history (1 run)"
