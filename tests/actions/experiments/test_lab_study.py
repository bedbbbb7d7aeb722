"""The RAID-level study's pure parts: mean ± sd per level, the table, the CSV (against the README), the
history round trip, its parameters, and the labelled, reserved history row. The study itself runs on the
real kernel in the VM (tests/realmd/test_lab_study.py)."""

from __future__ import annotations

import csv
import io
import json
import statistics
from dataclasses import fields
from pathlib import Path

import pytest

from raidtop.actions.experiments.results import (
    ExperimentResult,
    csv_text,
    json_text,
    result_table,
    store_result,
    stored_results,
    summary,
)
from raidtop.actions.lab.spec import SpecError
from raidtop.actions.lab.store import LabStore
from raidtop.actions.experiments.study import StudyParams, check_params, disks_for, failures_tolerated, parse_levels
from raidtop.actions.experiments.study_results import CSV_FIELDS, FIGURE_KEYS, LevelStats, StudyRun, mean_sd, summarize

README = Path(__file__).resolve().parents[3] / "README.md"
MIB = 1 << 20


def _run(run: int, level: str, read: float, write: float, **more) -> StudyRun:
    return StudyRun(
        run,
        level,
        3,
        16 * MIB,
        64 if level != "raid1" else None,
        30 * MIB,
        "1",
        read_iops=read,
        write_iops=write,
        read_mib_s=read * 4096 / 2**20,
        write_mib_s=write * 4096 / 2**20,
        read_command=f"fio --name=rand-read --filename=/dev/md{100 + run}",
        **more,
    )


RUNS = (
    _run(1, "raid0", 18000.0, 17000.0, note="no redundancy"),
    _run(1, "raid5", 8000.0, 2400.0, rebuild_s=0.8, rebuild_resolution_s=0.06, rebuilding_write_iops=1500.0),
    _run(2, "raid0", 19000.0, 18500.0, note="no redundancy"),
    _run(2, "raid5", 9000.0, 2600.0, rebuild_s=0.7, rebuild_resolution_s=0.05, rebuilding_write_iops=1700.0),
    _run(3, "raid0", 20000.0, 18000.0, note="no redundancy"),
    _run(3, "raid5", 8500.0, 2500.0, rebuild_s=0.9, rebuild_resolution_s=0.05, rebuilding_write_iops=1600.0),
)
PARAMS = {
    "levels": "raid0,raid5",
    "disks": "3",
    "size": "16 MiB",
    "disk_size_bytes": str(16 * MIB),
    "runs": "3",
    "runtime_s": "1",
    "ramp_s": "0",
    "fill": "yes",
    "bs": "4k",
    "iodepth": "32",
    "numjobs": "4",
    "engine": "libaio",
    "kernel": "6.1.0-56-amd64",
    "started_utc": "2026-11-26T18:00:00Z",
    "speed_limit_min": "1000",
    "speed_limit_max": "200000",
}


def test_every_figure_is_a_per_run_field_and_two_csv_columns():
    names = {f.name for f in fields(StudyRun)}
    assert set(FIGURE_KEYS) <= names
    for key in FIGURE_KEYS:
        assert f"{key}_mean" in CSV_FIELDS and f"{key}_sd" in CSV_FIELDS


def test_summary_is_the_mean_and_sample_sd_over_the_runs_per_level():
    raid0, raid5 = summarize(RUNS)
    assert (raid0.level, raid0.runs, raid5.level, raid5.runs) == ("raid0", 3, "raid5", 3)
    assert raid0.mean["read_iops"] == pytest.approx(19000.0)
    assert raid0.sd["read_iops"] == pytest.approx(statistics.stdev([18000, 19000, 20000]))
    assert raid5.mean["rebuild_s"] == pytest.approx(0.8) and raid5.sd["rebuild_s"] == pytest.approx(0.1)
    # raid0 never rebuilds: no mean, no sd, not a zero.
    assert raid0.mean["rebuild_s"] is None and raid0.sd["rebuilding_write_iops"] is None
    assert raid5.rebuild_resolution_s == 0.06 and raid0.note == "no redundancy"
    one = summarize(RUNS[:2])[0]
    assert one.runs == 1 and one.sd["read_iops"] is None  # one run has no spread


def test_table_shows_every_figure_as_mean_plus_minus_sd():
    result = ExperimentResult("study", PARAMS, RUNS, summary=summarize(RUNS))
    lines = result_table(result).splitlines()
    assert lines[0].split("  ")[0] == "Level" and "Write IOPS rebuilding" in lines[0]
    raid0, raid5 = lines[2], lines[3]
    assert raid0.startswith("raid0") and "19,000 ± 1,000" in raid0 and raid0.count("n/a") == 2
    assert "8,500 ± 500" in raid5 and "1,600 ± 100" in raid5 and "0.80 ± 0.10" in raid5
    assert "mean ± sample sd over 3 runs; MiB/s = 2^20 bytes/s; rebuild times to ±0.06 s" in lines
    assert any("fio: bs 4k, iodepth 32, numjobs 4, engine libaio, runtime_s 1" in line for line in lines)
    assert mean_sd(None, None, 0) == "—" and mean_sd(5.0, None, 1) == "5.0"


def test_csv_header_is_the_one_the_readme_documents():
    documented = [line.strip() for line in README.read_text().splitlines() if line.strip().startswith("level,disks,")]
    assert documented == [",".join(CSV_FIELDS)]


def test_csv_has_one_line_per_level_with_raw_means_sds_and_the_conditions():
    result = ExperimentResult("study", PARAMS, RUNS, summary=summarize(RUNS))
    rows = list(csv.DictReader(io.StringIO(csv_text(result))))
    assert [r["level"] for r in rows] == ["raid0", "raid5"]
    raid5 = rows[1]
    assert raid5["read_iops_mean"] == "8500.000" and raid5["read_iops_sd"] == "500.000"
    assert raid5["rebuild_s_mean"] == "0.800" and rows[0]["rebuild_s_mean"] == ""
    assert (raid5["fio_bs"], raid5["fio_iodepth"], raid5["fio_numjobs"], raid5["fio_engine"]) == (
        "4k",
        "32",
        "4",
        "libaio",
    )
    assert raid5["fio_runtime_s"] == "1" and raid5["filled"] == "yes" and raid5["kernel"] == "6.1.0-56-amd64"
    assert raid5["speed_limit_min_KiBps"] == "1000" and raid5["started_utc"] == "2026-11-26T18:00:00Z"
    assert raid5["chunk_KiB"] == "64" and raid5["rebuild_resolution_s"] == "0.060" and raid5["runs"] == "3"


def test_a_stored_study_reads_back_identically(tmp_path: Path):
    store = LabStore(tmp_path / "lab.sqlite")
    reserved = store.reserve_experiment("study", 1000.0)
    # Until the study ends, its row lists as a stopped, empty study.
    assert stored_results(store, reserved)[0].stopped
    result = store_result(
        store,
        ExperimentResult(
            "study",
            PARAMS,
            RUNS,
            {"raid5: md.chunk_size": "65536"},
            1000.0,
            1060.0,
            reserved,
            False,
            ("fio a", "fio b"),
            summarize(RUNS),
        ),
    )
    assert result.experiment_id == reserved and len(store.experiments()) == 1
    back = stored_results(store, reserved)[0]
    assert json_text(back) == json_text(result)
    assert back.summary[1] == result.summary[1] and isinstance(back.summary[0], LevelStats)
    assert "study" in summary(back) and "runs=3" in summary(back) and "kernel" not in summary(back)
    assert json.loads(json_text(back))["summary"][1]["mean"]["read_iops"] == 8500.0


def test_parameters_levels_disks_and_tolerance():
    assert parse_levels("0, 1,5,1") == ("raid0", "raid1", "raid5")
    assert disks_for("raid6", 3) == (4, "raid6 needs 4 disks; used 4")
    assert disks_for("raid5", None) == (3, "") and disks_for("raid1", 3) == (3, "")
    assert [failures_tolerated(level, 4) for level in ("raid0", "raid1", "raid5", "raid6", "raid10")] == [
        "0",
        "3",
        "1",
        "2",
        "1 (≤2)",
    ]
    defaults = StudyParams()
    assert defaults.runs >= 3 and defaults.disks == 3 and defaults.fill and defaults.during_rebuild
    params, read, write = check_params(StudyParams(ramp_s=2))
    assert ("ramp_time", "2") in read.options and ("ramp_time", "2") in write.options
    for bad in (StudyParams(runs=0), StudyParams(levels=()), StudyParams(ramp_s=-1)):
        with pytest.raises(SpecError):
            check_params(bad)
    # The steps the progress counts: per run, 5 or 6 per level and 2 more per redundant one.
    assert StudyParams(("raid0", "raid5"), runs=2).steps == 2 * (6 + 6 + 2)


def test_only_reports_whose_whole_second_lay_inside_the_rebuild_count():
    from raidtop.actions.experiments.rebuild_load import points_within

    # fio reports once a second; the add at t=10.3, the load stopped at t=13.4.
    heard = [(at, f"report at {at}") for at in (9.2, 10.2, 11.2, 12.2, 13.2, 14.2)]
    assert points_within(heard, 10.3, 13.4) == ["report at 11.2", "report at 12.2", "report at 13.2"]
    # A rebuild over within the first second leaves nothing to count.
    assert points_within(heard, 10.3, 10.9) == []
