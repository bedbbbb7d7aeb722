"""Pilot tests of the Lab's experiments screen: the stored results listed, a sweep's heat-map, a trade-off's plot."""

from __future__ import annotations

from pathlib import Path

from raidtop.actions.action_log import ActionLog
from raidtop.actions.lab.core import Lab
from raidtop.actions.experiments.results import BitmapRow, ExperimentResult, SweepCell, TradeoffRow, store_result
from raidtop.app.raidtop_app import RaidtopApp
from raidtop.config import Config
from raidtop.screens.lab.screen import LabScreen
from raidtop.screens.lab.results import LabResultsScreen, heat_rows, plot_spec
from raidtop.widgets.lab_plots import ExperimentPlot
from raidtop.widgets.text_table import TextTable

SWEEP = ExperimentResult(
    "sweep",
    {"level": "raid5"},
    (
        SweepCell(16, "4K", "randread", 8000.0, 32.8),
        SweepCell(16, "1M", "randread", 250.0, 262.1),
        SweepCell(64, "4K", "randread", 8600.0, 35.2),
        SweepCell(64, "1M", "randread", 240.0, 251.7),
        SweepCell(16, "1M", "read", 300.0, 314.6),
        SweepCell(64, "1M", "read", 280.0, 293.6),
    ),
    started=1795317902.5,
)
TRADEOFF = ExperimentResult(
    "tradeoff",
    {"limits": "1000,max"},
    (
        TradeoffRow("baseline", None, 5000.0, 90.0, 400.0),
        TradeoffRow("1000", 16.2, 4600.0, 100.0, 600.0),
        TradeoffRow("max", 1.1, 900.0, 800.0, 9000.0),
    ),
    started=1795317902.5,
)


def test_heat_rows_tone_cells_by_their_share_of_the_best():
    _columns, rows = heat_rows(SWEEP)
    random = {row.key: row for row in rows}
    assert random["randread-head"].cells[0] == "randread (IOPS)"
    assert random["randread-64"].cells[1] == "8,600*" and random["randread-64"].styles[1] == "good"
    assert random["randread-16"].styles[2] == "dim"  # 250 IOPS against a best of 8,600
    assert random["read-16"].cells[2] == "314.6*"


def test_tradeoff_plots_one_point_per_limit_against_the_baseline():
    spec = plot_spec(TRADEOFF)
    curve, baseline = spec.series
    assert curve.names == ("1000", "max") and curve.xs == (16.2, 1.1) and curve.ys == (0.6, 9.0)
    assert baseline.ys == (0.4, 0.4)
    bars = plot_spec(ExperimentResult("bitmap", {}, (BitmapRow(False, 8, 6.0), BitmapRow(True, 8, 0.3))))
    assert bars.kind == "bar" and [s.ys for s in bars.series] == [(6.0,), (0.3,)]


async def test_x_opens_the_experiments_with_the_latest_shown_and_enter_shows_another(tmp_path: Path):
    root = tmp_path / "root"
    (root / "proc").mkdir(parents=True)
    lab = Lab(tmp_path / "lab", root=root, log=ActionLog(tmp_path / "a.log"), euid=0, which=lambda name: None)
    store_result(lab.store, SWEEP)
    store_result(lab.store, TRADEOFF)
    app = RaidtopApp(Config(root=root, autostart_sampler=False))
    async with app.run_test(size=(120, 40)) as pilot:
        await app.push_screen(LabScreen(lab, read_only=True))
        await pilot.pause()
        await pilot.press("x")
        for _ in range(3):
            await app.workers.wait_for_complete()
            await pilot.pause()
        screen = app.screen
        assert isinstance(screen, LabResultsScreen)
        listing = screen.query_one("#lab-results-list", TextTable)
        assert [row.key for row in listing.rows] == ["2", "1"]
        assert screen.shown.kind == "tradeoff"
        assert "rebuild s" in str(screen.query_one(ExperimentPlot).render())
        listing.focus()
        await pilot.press("down", "enter")
        await pilot.pause()
        assert screen.shown.kind == "sweep"
        assert screen.query_one("#lab-results-heat", TextTable).display
        await pilot.press("escape")
        assert isinstance(app.screen, LabScreen)


def test_every_key_has_an_id_and_a_tooltip():
    for binding in LabResultsScreen.BINDINGS:
        assert binding.id and binding.tooltip, binding


async def test_s_shows_what_the_sweep_runs_and_a_replay_root_refuses_it(tmp_path: Path):
    from raidtop.screens.dialogs import ConfirmDialog

    root = tmp_path / "root"
    (root / "proc").mkdir(parents=True)
    lab = Lab(tmp_path / "lab", root=root, log=ActionLog(tmp_path / "a.log"), euid=0, which=lambda name: None)
    app = RaidtopApp(Config(root=root, autostart_sampler=False))
    async with app.run_test(size=(120, 40)) as pilot:
        await app.push_screen(LabResultsScreen(lab))
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("s")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ConfirmDialog)
        assert "mdadm --create /dev/md1NN --level=5 --raid-devices=3 --chunk=C" in dialog._command
        assert "fio --rw=RW --bs=BS" in dialog._command and "16K, 64K, 256K, 1024K" in dialog._command
        await pilot.press("y")
        for _ in range(3):
            await app.workers.wait_for_complete()
            await pilot.pause()
        assert any("live system only" in n.message for n in app._notifications)
        assert not (tmp_path / "lab" / "images").exists()


def test_each_experiment_key_shows_the_commands_it_will_run():
    """The Experiments screen's keys confirm with each experiment's defaults and commands (imports included)."""
    from raidtop.screens.lab.experiment_jobs import KINDS, experiment_plan

    for kind in KINDS:
        params, title, commands = experiment_plan(kind)
        assert title.endswith("?"), kind
        assert f"--level={params.level.removeprefix('raid')}" in commands, kind
        assert "mdadm --stop" in commands, kind


async def test_a_faults_course_is_listed_and_shown_as_its_table_without_a_plot(tmp_path: Path):
    from raidtop.actions.experiments.course_results import CourseRow
    from raidtop.widgets.shown_text import PlainStatic

    root = tmp_path / "root"
    (root / "proc").mkdir(parents=True)
    lab = Lab(tmp_path / "lab", root=root, log=ActionLog(tmp_path / "a.log"), euid=0, which=lambda name: None)
    row = CourseRow("2", "flakey disk", "loop21 behind dm-flakey", "md failed dm-1: state faulty", "dm-1")
    store_result(lab.store, ExperimentResult("faults-course", {"steps": "flakey"}, (row,), started=1795317902.5))
    assert plot_spec(ExperimentResult("faults-course", {}, (row,))).message.startswith("a faults course has no plot")
    app = RaidtopApp(Config(root=root, autostart_sampler=False))
    async with app.run_test(size=(120, 40)) as pilot:
        await app.push_screen(LabResultsScreen(lab))
        for _ in range(3):
            await app.workers.wait_for_complete()
            await pilot.pause()
        screen = app.screen
        assert isinstance(screen, LabResultsScreen) and screen.shown.kind == "faults-course"
        assert "md failed dm-1: state faulty" in str(screen.query_one("#lab-results-table", PlainStatic).render())
