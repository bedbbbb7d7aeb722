"""A stored RAID-level study in the Experiments view: listed beside the others, its mean ± sd table, and a
chart of the levels side by side."""

from __future__ import annotations

from pathlib import Path

from raidtop.actions.action_log import ActionLog
from raidtop.actions.lab.core import Lab
from raidtop.actions.experiments.results import ExperimentResult, SweepCell, store_result
from raidtop.actions.experiments.study_results import StudyRun, summarize
from raidtop.app.raidtop_app import RaidtopApp
from raidtop.config import Config
from raidtop.screens.lab.results import LabResultsScreen, plot_spec
from raidtop.widgets.lab_plots import ExperimentPlot
from raidtop.widgets.shown_text import PlainStatic
from raidtop.widgets.text_table import TextTable

MIB = 1 << 20
RUNS = tuple(
    StudyRun(
        run,
        level,
        3,
        16 * MIB,
        None,
        16 * MIB,
        "1",
        read_iops=read + run * 100,
        write_iops=write + run * 10,
        rebuilding_write_iops=None if level == "raid0" else write / 2,
        rebuild_s=None if level == "raid0" else 0.8,
    )
    for run in (1, 2, 3)
    for level, read, write in (("raid0", 18000.0, 17000.0), ("raid1", 9000.0, 5000.0), ("raid5", 8000.0, 2500.0))
)
STUDY = ExperimentResult(
    "study",
    {"levels": "raid0,raid1,raid5", "runs": "3", "runtime_s": "1"},
    RUNS,
    started=1795317902.5,
    summary=summarize(RUNS),
)


def test_the_chart_puts_each_levels_read_write_and_rebuilding_iops_side_by_side():
    spec = plot_spec(STUDY)
    assert spec.kind == "grouped"
    read, write, rebuilding = spec.series
    assert read.names == ("raid0", "raid1", "raid5")
    assert read.ys == (18200.0, 9200.0, 8200.0) and write.ys == (17020.0, 5020.0, 2520.0)
    # raid0 never rebuilds: a zero bar, and the legend says why.
    assert rebuilding.ys == (0.0, 2500.0, 1250.0) and "raid0: none" in rebuilding.label
    assert plot_spec(ExperimentResult("study", {}, ())).series == ()


async def test_a_stored_study_is_listed_beside_the_others_with_its_table_and_chart(tmp_path: Path):
    root = tmp_path / "root"
    (root / "proc").mkdir(parents=True)
    lab = Lab(tmp_path / "lab", root=root, log=ActionLog(tmp_path / "a.log"), euid=0, which=lambda name: None)
    store_result(
        lab.store, ExperimentResult("sweep", {"level": "raid5"}, (SweepCell(16, "4K", "randread", 8000.0, 32.8),))
    )
    store_result(lab.store, STUDY)
    app = RaidtopApp(Config(root=root, autostart_sampler=False))
    async with app.run_test(size=(160, 45)) as pilot:
        await app.push_screen(LabResultsScreen(lab))
        for _ in range(3):
            await app.workers.wait_for_complete()
            await pilot.pause()
        screen = app.screen
        listing = screen.query_one("#lab-results-list", TextTable)
        assert [row.key for row in listing.rows] == ["2", "1"]
        assert "study" in listing.rows[0].cells[0] and "runs=3" in listing.rows[0].cells[0]
        assert screen.shown.kind == "study"
        table = str(screen.query_one("#lab-results-table", PlainStatic).render())
        assert "18,200 ± 100" in table and "Write IOPS rebuilding" in table
        chart = str(screen.query_one(ExperimentPlot).render())
        assert "raid0" in chart and "raid5" in chart and "write IOPS" in chart
