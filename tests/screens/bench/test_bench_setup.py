"""What the Benchmarks screen checks and asks before a run.

fio missing, a refused target, the remembered target, and the sweep dialog's choices.
"""

from __future__ import annotations

from raidtop.screens.bench.run_flow import BenchRun
from raidtop.screens.dialogs import FormDialog, SweepDialog
from tests.screens.bench.bench_pilot import Bench, make_app, open_screen, wait_for_screen


async def test_without_fio_the_screen_names_the_package(bench: Bench):
    bench.remember(bench.target)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_screen(app, pilot, bench.screen(fio=None))
        assert "install the 'fio' package (apt install fio)" in str(screen.query_one("#bench-title").render())
        await pilot.press("1")
        await pilot.pause()
        assert app.screen is screen and screen.job is None


async def test_a_refused_target_is_explained_and_nothing_runs(bench: Bench):
    bench.remember(bench.tmp / "missing")
    messages: list = []
    app = make_app()
    async with app.run_test(size=(120, 40), message_hook=messages.append) as pilot:
        screen = await open_screen(app, pilot, bench.screen())
        await pilot.press("1")
        await app.workers.wait_for_complete()
        await pilot.pause()
        refusals = [m.text for m in messages if isinstance(m, BenchRun.Refused)]
        assert refusals == [f"{bench.tmp / 'missing'} does not exist"]
        assert app.screen is screen and not screen.runs


async def test_the_target_dialog_remembers_the_choice(bench: Bench):
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_screen(app, pilot, bench.screen())
        assert "target none yet (t)" in str(screen.query_one("#bench-title").render())
        await pilot.press("t")
        await wait_for_screen(pilot, FormDialog)
        app.screen.query_one("#bench-target-input").value = str(bench.target)
        app.screen.query_one("#bench-target-input").focus()
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert screen.prefs.target == str(bench.target)
        assert f"target {bench.target} (t)" in str(screen.query_one("#bench-title").render())
    from raidtop.actions.fio.prefs import load_prefs

    assert load_prefs().target == str(bench.target)


async def test_the_sweep_dialog_offers_what_the_device_has():
    chosen: list = []
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        defaults = {
            "scheduler": (["loop3", "loop4"], ["none", "mq-deadline", "bfq"]),
            "read_ahead_kb": (["md127"], ["128", "512"]),
        }
        app.push_screen(SweepDialog("rand-read", defaults), chosen.append)
        await pilot.pause()
        values = app.screen.query_one("#bench-sweep-values")
        assert values.value == "none mq-deadline bfq"
        values.value = "none bfq"
        values.focus()
        await pilot.press("enter")
        await pilot.pause()
    assert chosen == [("scheduler", ["none", "bfq"])]
