"""The lab experiments' pure parts (tables, best cell, CSV, JSON, history, parameters, stopping)
and their refusal on this host, which has no md driver (the real refusal, not a fake one)."""

from __future__ import annotations

import csv
import io
import json
import os
import signal
import threading
from pathlib import Path

import pytest

from raidtop.actions.experiments.chunk_sweep import (
    SweepParams,
    check_params,
    parse_block_sizes,
    parse_chunks,
    parse_patterns,
)
from raidtop.actions.experiments.experiment import (
    Control,
    ExperimentStopped,
    ProgressEvent,
    _percentiles,
    stop_on_signals,
)
from raidtop.actions.experiments.results import (
    BitmapRow,
    ExperimentResult,
    SweepCell,
    TradeoffRow,
    best_cells,
    csv_text,
    json_text,
    result_table,
    store_result,
    stored_results,
    sweep_tables,
    write_csv,
)
from raidtop.actions.lab.spec import SpecError
from raidtop.actions.lab.store import LabStore
from raidtop.actions.experiments.tradeoff import limit_kib, parse_limits
from raidtop.actions.experiments.bitmap_study import BitmapParams, parse_writes
from raidtop.actions.experiments import bitmap_study
from raidtop.cli.lab import main as lab_main

CELLS = (
    SweepCell(16, "4K", "read", 9000.0, 36.9),
    SweepCell(16, "1M", "read", 300.0, 314.6),
    SweepCell(64, "4K", "read", 9500.0, 38.9),
    SweepCell(64, "1M", "read", 280.0, 293.6),
    SweepCell(16, "4K", "randread", 8000.0, 32.8),
    SweepCell(16, "1M", "randread", 250.0, 262.1),
    SweepCell(64, "4K", "randread", 8600.0, 35.2),
    SweepCell(64, "1M", "randread", 240.0, 251.7),
)


def test_best_cell_is_mb_s_for_sequential_and_iops_for_random():
    best = best_cells(CELLS)
    # Sequential: the most MiB/s wins even with far fewer IOPS.
    assert (best["read"].chunk_kib, best["read"].bs) == (16, "1M")
    assert (best["randread"].chunk_kib, best["randread"].bs) == (64, "4K")


def test_sweep_table_has_one_grid_per_pattern_with_the_best_cell_starred():
    text = sweep_tables(CELLS)
    assert "read (MiB/s)" in text and "randread (IOPS)" in text
    read_part, random_part = text.split("randread (IOPS)")
    assert "314.6*" in read_part and read_part.count("*") == 2  # the cell and the "* best" line
    assert "8,600*" in random_part
    assert "* best read: chunk 16K, bs 1M (314.6 MiB/s)" in text
    assert "* best randread: chunk 64K, bs 4K (8,600 IOPS)" in text
    lines = [line for line in read_part.splitlines() if line.startswith("chunk")]
    assert [line.split()[1] for line in lines] == ["16K", "64K"]


def test_sweep_csv_has_raw_numbers_the_metric_and_one_best_per_pattern(tmp_path: Path):
    result = ExperimentResult("sweep", {"level": "raid5"}, CELLS)
    rows = list(csv.DictReader(io.StringIO(csv_text(result))))
    assert len(rows) == len(CELLS)
    assert [r for r in rows if r["best"] == "yes"] == [rows[1], rows[6]]
    assert rows[0]["metric"] == "MiB/s" and rows[4]["metric"] == "IOPS"
    assert rows[0]["iops"] == "9000.000" and rows[0]["p99_us"] == ""
    # Written through the atomic writer: a link planted at the name is replaced, its target untouched.
    victim = tmp_path / "victim"
    victim.write_text("sentinel")
    (tmp_path / "out.csv").symlink_to(victim)
    write_csv(result, tmp_path / "out.csv")
    assert victim.read_text() == "sentinel"
    assert not (tmp_path / "out.csv").is_symlink() and "chunk_kib" in (tmp_path / "out.csv").read_text()


def test_results_survive_the_history_and_json_round_trip(tmp_path: Path):
    store = LabStore(tmp_path / "lab.sqlite")
    sweep = store_result(
        store,
        ExperimentResult(
            "sweep", {"level": "raid5"}, CELLS, {"md100.chunk_size": "65536"}, 1.0, 2.0, commands=("fio …",)
        ),
    )
    trade = store_result(
        store,
        ExperimentResult(
            "tradeoff",
            {"limits": "1000,max"},
            (
                TradeoffRow("baseline", None, 5000.0, 90.0, 400.0, 5.0),
                TradeoffRow("1000", 16.2, 4000.0, 120.0, 900.0, 16.5),
            ),
            stopped=True,
        ),
    )
    assert (sweep.experiment_id, trade.experiment_id) == (1, 2)
    back = stored_results(store)
    assert back[0].rows == CELLS and back[0].tuning == {"md100.chunk_size": "65536"}
    assert back[1].rows[1].rebuild_s == 16.2 and back[1].stopped
    assert [r.experiment_id for r in stored_results(store, 2)] == [2]
    assert stored_results(store, 9) == []
    doc = json.loads(json_text(back))
    assert [d["kind"] for d in doc] == ["sweep", "tradeoff"] and doc[0]["rows"][0]["chunk_kib"] == 16


def test_a_damaged_history_document_is_skipped_not_fatal(tmp_path: Path):
    store = LabStore(tmp_path / "lab.sqlite")
    store_result(store, ExperimentResult("bitmap", {}, (BitmapRow(True, 8, 0.4),)))
    store.add_experiment({"kind": "nonsense", "started": 0, "finished": 0})
    assert [r.kind for r in stored_results(store)] == ["bitmap"]


def test_tradeoff_and_bitmap_tables():
    trade = ExperimentResult(
        "tradeoff",
        {},
        (TradeoffRow("baseline", None, 5000.0, 90.0, 400.0), TradeoffRow("max", 2.0, 2500.0, 150.0, 2000.0)),
    )
    text = result_table(trade)
    assert "baseline" in text and "50%" in text and "2.0 s" in text
    bitmap = ExperimentResult("bitmap", {}, (BitmapRow(False, 8, 6.1, "add"), BitmapRow(True, 8, 0.3)))
    text = result_table(bitmap)
    assert "none" in text and "internal" in text and "8 MiB" in text and "0.3 s" in text


def test_parameters_are_read_or_refused_in_one_sentence():
    assert parse_chunks("16K,64,1M") == (16, 64, 1024)
    assert parse_block_sizes("4K,64k,1M") == ("4K", "64K", "1M")
    assert parse_patterns("read,randwrite") == ("read", "randwrite")
    assert parse_limits("1000, 10000,MAX") == ("1000", "10000", "max") and limit_kib("max") == 2_000_000
    assert parse_writes("1M,8,32M") == (1, 8, 32)
    for call, text in (
        (parse_chunks, "3K"),
        (parse_block_sizes, "5K"),
        (parse_block_sizes, "1G"),
        (parse_patterns, "trim"),
        (parse_limits, "fast"),
        (parse_limits, "9" * 5000),
        (parse_writes, "1.5M"),
        (parse_chunks, ""),
    ):
        with pytest.raises(SpecError):
            call(text)
    with pytest.raises(SpecError, match="raid1 has no chunk"):
        check_params(SweepParams(level="raid1", disks=2))
    with pytest.raises(SpecError, match="does not fit"):
        bitmap_study.check_params(BitmapParams((64,), "raid1", 2, 32 << 20))


def test_progress_counts_steps_and_estimates_the_time_left():
    events: list[ProgressEvent] = []
    control = Control(events.append, total=4)
    control.step("one")
    control.step("two")
    assert [(e.step, e.total) for e in events] == [(1, 4), (2, 4)]
    assert events[0].left_s is None and events[1].left_s is not None
    assert events[1].line().startswith("step 2/4, about ") and events[1].line().endswith(": two")


def test_a_signal_stops_the_experiment_instead_of_the_process():
    control = Control(total=3)
    said: list[str] = []
    with stop_on_signals(control, said.append):
        control.step("before")
        os.kill(os.getpid(), signal.SIGTERM)
        assert control.cancelled
        with pytest.raises(ExperimentStopped):
            control.step("after")
        # Teardown steps run whatever happened.
        control.step("teardown", check=False)
        os.kill(os.getpid(), signal.SIGHUP)  # a second signal during teardown only asks for patience
    assert said[0].startswith("SIGTERM: stopping") and "please wait" in said[1]
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def test_cancel_stops_fio_batches_made_before_and_after():
    control = Control()
    before = control.new_batch()
    control.cancel()
    after = control.new_batch()
    assert before.stopped and after.stopped
    waited = threading.Event()
    control.sleep(5)  # returns at once once cancelled
    waited.set()
    assert waited.is_set()


def test_latency_percentiles_take_the_worse_direction():
    doc = {
        "jobs": [
            {
                "read": {"total_ios": 10, "clat_ns": {"percentile": {"50.000000": 80000, "99.000000": 400000}}},
                "write": {"total_ios": 10, "clat_ns": {"percentile": {"50.000000": 120000, "99.000000": 300000}}},
            }
        ]
    }
    assert _percentiles(json.dumps(doc)) == (120.0, 400.0)
    assert _percentiles("not json") == (None, None)


@pytest.mark.skipif(Path("/proc/mdstat").exists(), reason="this host has md")
@pytest.mark.parametrize("argv", [["sweep"], ["tradeoff"], ["bitmap"], ["grow", "md100", "--disks", "4"]])
def test_every_experiment_refuses_on_this_host_without_md(capsys, tmp_path: Path, argv):
    code = lab_main(["--lab-dir", str(tmp_path / "lab"), *argv])
    out, err = capsys.readouterr()
    assert code == 3 and "has no md driver" in err and "Traceback" not in err
    assert not (tmp_path / "lab" / "images").exists()  # nothing made


def test_results_lists_exports_and_refuses_a_missing_id(capsys, tmp_path: Path):
    store_result(LabStore(tmp_path / "lab" / "lab.sqlite"), ExperimentResult("sweep", {"level": "raid5"}, CELLS))
    assert lab_main(["--lab-dir", str(tmp_path / "lab"), "results"]) == 0
    assert "sweep" in capsys.readouterr().out
    assert lab_main(["--lab-dir", str(tmp_path / "lab"), "results", "1", "--csv", str(tmp_path / "one.csv")]) == 0
    assert "* best randread" in capsys.readouterr().out and "best" in (tmp_path / "one.csv").read_text()
    assert lab_main(["--lab-dir", str(tmp_path / "lab"), "results", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["kind"] == "sweep"
    assert lab_main(["--lab-dir", str(tmp_path / "lab"), "results", "7"]) == 1
    assert "no experiment 7" in capsys.readouterr().err
    assert lab_main(["--lab-dir", str(tmp_path / "lab"), "results", "--csv", str(tmp_path / "x.csv")]) == 2


def test_the_bitmap_study_asks_for_a_bitmap_bit_per_mib():
    from raidtop.actions.lab.spec import LabSpec, mdadm_create_argv, validate

    spec = validate(LabSpec("raid1", 2, 64 << 20, bitmap=True, bitmap_chunk_kib=bitmap_study.BITMAP_CHUNK_KIB))
    argv = mdadm_create_argv(spec, "md100", ["loop1", "loop2"])
    assert argv[-4:] == ["--bitmap=internal", "--bitmap-chunk=1024", "/dev/loop1", "/dev/loop2"]
    # Without a bitmap the chunk is not passed; with mdadm's default it is not either.
    assert not any(
        a.startswith("--bitmap-chunk") for a in mdadm_create_argv(validate(LabSpec("raid1", 2, 64 << 20)), "md1", ["l"])
    )
    with pytest.raises(SpecError):
        validate(LabSpec("raid1", 2, 64 << 20, bitmap=True, bitmap_chunk_kib=2))


def test_grow_refuses_an_array_the_lab_did_not_make(tmp_path: Path):
    from raidtop.actions.action_log import ActionLog
    from raidtop.actions.lab.core import Lab, LabError
    from raidtop.actions.experiments.grow import plan_grow

    root = tmp_path / "root"
    (root / "sys" / "block" / "md0" / "md").mkdir(parents=True)
    (root / "sys" / "block" / "md0" / "md" / "level").write_text("raid5\n")
    lab = Lab(tmp_path / "lab", root=root, log=ActionLog(tmp_path / "a.log"), euid=0)
    with pytest.raises(LabError, match="md0 was not created by raidtop's lab"):
        plan_grow(lab, "/dev/md0", disks=4)
    assert not (tmp_path / "a.log").exists()  # nothing ran, nothing logged


def test_results_stored_in_decimal_mb_read_back_as_mib():
    from raidtop.actions.experiments.results import ExperimentResult

    # What raidtop stored before it wrote IEC units: 104.8576 MB/s is exactly 100 MiB/s.
    sweep = ExperimentResult.from_dict(
        {"kind": "sweep", "rows": [{"chunk_kib": 64, "bs": "1M", "rw": "read", "iops": 100.0, "mb_s": 104.8576}]}
    )
    assert sweep.rows[0].mib_s == pytest.approx(100.0)
    study = ExperimentResult.from_dict(
        {
            "kind": "study",
            "rows": [{"run": 1, "level": "raid1", "disks": 2, "disk_size_bytes": 1 << 26, "read_MBps": 52.4288}],
            "summary": [{"level": "raid1", "disks": 2, "runs": 1, "mean": {"read_MBps": 52.4288}, "sd": {}}],
        }
    )
    assert study.rows[0].read_mib_s == pytest.approx(50.0)
    assert study.summary[0].mean == {"read_mib_s": pytest.approx(50.0)}
    # Today's keys pass untouched.
    again = ExperimentResult.from_dict(sweep.to_dict())
    assert again.rows[0].mib_s == pytest.approx(100.0)
