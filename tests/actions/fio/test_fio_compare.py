"""Compare with a baseline, repeat statistics, sweeps that restore, exports."""

from __future__ import annotations

import re

import csv
import io
import json
import statistics
from pathlib import Path

import pytest

from raidtop.actions.action_log import ActionLog
from raidtop.actions.fio.session import Batch, BenchPlan, RunRecord
from raidtop.actions.fio.command import EngineChoice, build_command
from raidtop.actions.fio.compare import (
    EXPORT_COLUMNS,
    compare_runs,
    compare_with_baseline,
    export_csv,
    export_json,
    pct_change,
    run_sweep,
    summarise_passes,
    sweep_devices,
    sweep_values,
    write_exports,
)
from raidtop.actions.fio.guards import BenchTarget
from raidtop.actions.fio.store import RunStore
from raidtop.actions.fio.presets import BUILTIN_PRESETS
from raidtop.actions.fio.process import RunOutcome
from raidtop.actions.fio.stack import DeviceTuning, TuningState

from tests.fio_samples import fio_json, md_tuning
from tests.actions.fio_sysfs import FakeSys


@pytest.fixture
def history(tmp_path: Path) -> RunStore:
    return RunStore(tmp_path / "bench.sqlite")


def add(history: RunStore, preset: str = "rand-rw", **figures):
    tuning = figures.pop("tuning", md_tuning())
    return history.add(
        preset=preset,
        target="/dev/md127",
        started=1700000000,
        fio_json=fio_json(**figures),
        tuning=tuning,
        engine="libaio",
    )


def test_pct_change_is_undefined_without_a_baseline_value():
    assert pct_change(200, 250) == 25.0
    assert pct_change(0, 5) is None and pct_change(None, 5) is None and pct_change(5, None) is None


def test_a_run_against_the_baseline_gives_pct_changes_and_the_settings_that_differ(history: RunStore):
    base = add(history, read_iops=10000, write_iops=5000, read_p99_us=1000, write_p99_us=2000, tuning=md_tuning("none"))
    after = add(
        history,
        read_iops=12000,
        write_iops=4000,
        read_p99_us=900,
        write_p99_us=2200,
        tuning=md_tuning("mq-deadline", 512),
    )
    comp = compare_runs(base, after)
    assert comp.change("read_iops").pct == pytest.approx(20.0)
    assert comp.change("read_iops").better is True
    assert comp.change("write_iops").pct == pytest.approx(-20.0)
    assert comp.change("write_iops").better is False
    assert comp.change("read_mib_s").pct == pytest.approx(20.0, abs=0.01)
    # Lower latency is better.
    assert comp.change("read_lat_p99_us").pct == pytest.approx(-10.0)
    assert comp.change("read_lat_p99_us").better is True
    assert comp.change("write_lat_p99_us").better is False
    assert [(s.key, s.before, s.after) for s in comp.settings] == [
        ("loop3.scheduler", "none", "mq-deadline"),
        ("loop4.scheduler", "none", "mq-deadline"),
        ("loop5.scheduler", "none", "mq-deadline"),
        ("md127.read_ahead_kb", "128", "512"),
    ]


def test_the_baseline_is_compared_with_every_other_run_of_its_preset_only(history: RunStore):
    base = add(history, read_iops=100)
    other = add(history, read_iops=110)
    add(history, preset="seq-read", read_iops=999)
    comparisons = compare_with_baseline(base, history.runs())
    assert [c.run.id for c in comparisons] == [other.id]
    assert comparisons[0].settings == ()


def test_a_direction_without_io_has_no_change(history: RunStore):
    comp = compare_runs(add(history, read_iops=100), add(history, read_iops=120))
    assert comp.change("write_iops").before is None and comp.change("write_iops").pct is None
    assert comp.change("write_iops").better is None


def test_repeat_statistics_are_the_mean_and_sample_stddev_of_complete_passes(history: RunStore):
    runs = [add(history, read_iops=v, read_lat_us=lat) for v, lat in ((1000, 400), (1100, 380), (1300, 350))]
    runs.append(
        history.add(
            preset="rand-rw", target="/t", started=1, fio_json=fio_json(read_iops=50), tuning=md_tuning(), partial=True
        )
    )
    summary = summarise_passes(runs)
    assert [r.id for r in summary.skipped] == [runs[3].id]
    iops = summary.stat("read_iops")
    assert iops.values == (1000.0, 1100.0, 1300.0)
    assert iops.mean == pytest.approx(statistics.fmean([1000, 1100, 1300]))
    assert iops.stddev == pytest.approx(statistics.stdev([1000, 1100, 1300]))
    assert iops.cv_pct == pytest.approx(iops.stddev / iops.mean * 100)
    assert summary.stat("read_lat_mean_us").mean == pytest.approx((400 + 380 + 350) / 3)
    assert summary.stat("write_iops").mean is None
    assert summarise_passes(runs[:1]).stat("read_iops").stddev == 0.0


# ---------------------------------------------------------------- sweep


def _plan(tuning: TuningState) -> BenchPlan:
    preset = next(p for p in BUILTIN_PRESETS if p.name == "rand-read")
    target = BenchTarget("/dev/loop7", "device", "loop7", lab=True)
    return BenchPlan(
        build_command(preset, target, runtime_s=1, engine=EngineChoice("libaio"), fio="fio"), "fio-3.33", tuning
    )


def _loop_tuning() -> TuningState:
    return TuningState(
        "/dev/loop7",
        "device",
        "loop7",
        devices=(
            DeviceTuning("loop7", "target", 0, "none", ("none", "mq-deadline", "kyber"), 128),
            DeviceTuning("vda", "backing", 1, "mq-deadline", ("none", "mq-deadline"), 8192),
        ),
    )


def test_sweep_targets_the_device_with_a_choice_never_the_backing_disk():
    tuning = _loop_tuning()
    assert sweep_devices(tuning, "scheduler") == ["loop7"]
    assert sweep_values(tuning, "scheduler", ["loop7"]) == ("none", "mq-deadline", "kyber")
    assert sweep_devices(tuning, "read_ahead_kb") == ["loop7"]
    # md offers only "none": its members are swept, with the schedulers all of them offer.
    md = md_tuning()
    assert sweep_devices(md, "scheduler") == ["loop3", "loop4", "loop5"]
    assert sweep_values(md, "scheduler", ["loop3", "loop4", "loop5"]) == ("none", "mq-deadline", "kyber", "bfq")
    with pytest.raises(ValueError):
        sweep_devices(md, "nr_requests")


@pytest.fixture(autouse=True)
def scheduler_files_like_the_kernel(monkeypatch):
    """A written scheduler name comes back as the kernel prints it: the whole list, the active one bracketed.

    A plain file cannot do that (it reads back what was written), so the real
    writer is wrapped: it still opens the file without O_CREAT, and then the
    file holds what /sys/block/X/queue/scheduler would.
    """
    from raidtop.actions.tuning import session as tuning_session

    real_write = tuning_session.write_attribute

    def write(path: str, value: str) -> None:
        real_write(path, value)
        if path.endswith("/queue/scheduler"):
            offered = Path(path + ".offered").read_text().split() if Path(path + ".offered").exists() else None
            if offered is not None and value in offered:
                Path(path).write_text(" ".join(f"[{s}]" if s == value else s for s in offered) + "\n")

    monkeypatch.setattr(tuning_session, "write_attribute", write)


def _offer(fake: FakeSys, name: str) -> None:
    """Remember the schedulers ``name`` offers (for :func:`scheduler_files_like_the_kernel`)."""
    queue = fake.root / "sys" / "block" / name / "queue"
    (queue / "scheduler.offered").write_text((queue / "scheduler").read_text().replace("[", "").replace("]", ""))


def _scheduler(fake: FakeSys) -> str:
    """loop7's active scheduler (the bracketed word, as the kernel marks it)."""
    text = fake.queue("loop7", "scheduler")
    found = re.search(r"\[([^\]]+)\]", text)
    return found.group(1) if found else text


def _recording_run(fake: FakeSys, history: RunStore, seen: list, fail_at: str | None = None):
    def run(plan, hist, *, label, **kwargs) -> RunRecord:
        value = _scheduler(fake)
        seen.append(value)
        if value == fail_at:
            raise RuntimeError("fio exploded")
        stored = hist.add(
            preset=plan.preset.name,
            target=plan.target.path,
            started=1,
            fio_json=fio_json(read_iops=len(seen) * 100),
            tuning=plan.tuning,
            label=label,
            group_id=kwargs["group_id"],
            group_kind=kwargs["group_kind"],
        )
        outcome = RunOutcome(0, stored.fio_json, stored.result, (), False, False, None, 0, 1)
        return RunRecord(outcome, stored)

    return run


def test_a_sweep_runs_once_per_value_and_restores_the_original(tmp_path: Path, history: RunStore):
    fake = FakeSys(tmp_path / "root")
    fake.disk("loop7", scheduler="[none] mq-deadline kyber")
    _offer(fake, "loop7")
    log = ActionLog(tmp_path / "actions.log")
    seen: list[str] = []
    outcome = run_sweep(
        _plan(_loop_tuning()),
        history,
        "scheduler",
        ["mq-deadline", "kyber"],
        root=fake.root,
        log=log,
        run=_recording_run(fake, history, seen),
    )
    assert seen == ["mq-deadline", "kyber"]
    assert _scheduler(fake) == "none"
    assert outcome.original == {"loop7": "none"} and outcome.restore_errors == ()
    assert [r.label for r in outcome.runs] == ["scheduler=mq-deadline", "scheduler=kyber"]
    assert {r.group_id for r in history.group(outcome.group_id)} == {outcome.group_id}
    commands = [e.command for e in log.read("tune")]
    assert commands == [
        "echo mq-deadline > /sys/block/loop7/queue/scheduler",
        "echo kyber > /sys/block/loop7/queue/scheduler",
        "echo none > /sys/block/loop7/queue/scheduler",
    ]


def test_a_sweep_interrupted_by_an_exception_still_restores(tmp_path: Path, history: RunStore):
    fake = FakeSys(tmp_path / "root")
    fake.disk("loop7", scheduler="mq-deadline kyber [bfq] none", read_ahead_kb=256)
    _offer(fake, "loop7")
    seen: list[str] = []
    with pytest.raises(RuntimeError, match="fio exploded"):
        run_sweep(
            _plan(_loop_tuning()),
            history,
            "scheduler",
            ["none", "kyber", "mq-deadline"],
            root=fake.root,
            log=ActionLog(tmp_path / "a.log"),
            run=_recording_run(fake, history, seen, fail_at="kyber"),
        )
    assert seen == ["none", "kyber"]
    assert _scheduler(fake) == "bfq"


def test_a_cancelled_sweep_stops_and_restores(tmp_path: Path, history: RunStore):
    fake = FakeSys(tmp_path / "root")
    fake.disk("loop7", read_ahead_kb=128)
    batch = Batch()
    seen: list[str] = []
    inner = _recording_run(fake, history, seen)

    def run_then_cancel(*args, **kwargs):
        seen.append(fake.queue("loop7", "read_ahead_kb"))
        batch.cancel()  # the user pressed x during the first value
        return inner(*args, **kwargs)

    outcome = run_sweep(
        _plan(_loop_tuning()),
        history,
        "read_ahead_kb",
        [512, 4096],
        root=fake.root,
        batch=batch,
        log=ActionLog(tmp_path / "a.log"),
        run=run_then_cancel,
    )
    assert seen[0] == "512" and len(outcome.steps) == 1
    assert fake.queue("loop7", "read_ahead_kb") == "128"


def test_a_value_the_kernel_refuses_is_skipped_with_a_reason(tmp_path: Path, history: RunStore, monkeypatch):
    from raidtop.actions.tuning import session as tuning_session

    fake = FakeSys(tmp_path / "root")
    fake.disk("loop7", scheduler="[none] mq-deadline kyber bfq")
    _offer(fake, "loop7")
    writes: list[str] = []
    real_write = tuning_session.write_attribute

    def kernel_refusing_the_first_write(path, value):
        # The kernel answers EINVAL for a scheduler it cannot attach (a module that fails to load).
        writes.append(value)
        if len(writes) == 1:
            raise OSError(22, "Invalid argument")
        real_write(path, value)

    monkeypatch.setattr(tuning_session, "write_attribute", kernel_refusing_the_first_write)
    seen: list[str] = []
    outcome = run_sweep(
        _plan(_loop_tuning()),
        history,
        "scheduler",
        ["bfq", "kyber"],
        root=fake.root,
        log=ActionLog(tmp_path / "a.log"),
        run=_recording_run(fake, history, seen),
    )
    monkeypatch.undo()
    einval = "loop7 scheduler = bfq: the kernel rejected the value (EINVAL, invalid argument)"
    assert outcome.steps[0].error == f"scheduler=bfq refused: {einval}"
    assert outcome.steps[0].record is None
    assert seen == ["kyber"]
    assert _scheduler(fake) == "none"
    assert [e.result for e in ActionLog(tmp_path / "a.log").read("tune")] == [einval, "ok", "ok"]


# ---------------------------------------------------------------- export


def test_csv_export_has_the_issue_columns_and_numbers(history: RunStore):
    run = add(history, read_iops=12345.67, write_iops=0, bs=1024 * 1024, tuning=md_tuning("kyber"))
    history.set_label(run.id, "scheduler=kyber")
    text = export_csv(history.runs())
    rows = list(csv.DictReader(io.StringIO(text)))
    assert (
        tuple(rows[0].keys())
        == EXPORT_COLUMNS
        == ("label", "RAID level", "read IOPS", "write IOPS", "read MiB/s", "write MiB/s", "settings")
    )
    row = rows[0]
    assert row["label"] == "rand-rw scheduler=kyber"
    assert row["RAID level"] == "raid5"
    assert row["read IOPS"] == "12345.7"
    assert row["write IOPS"] == "0.0"
    assert row["read MiB/s"] == f"{int(12345.67 * 1024 * 1024) / 2**20:.2f}"
    assert "loop3.scheduler=kyber" in row["settings"] and "md127.level=raid5" in row["settings"]


def test_json_export_carries_metrics_and_settings(history: RunStore, tmp_path: Path):
    add(history, read_iops=1000, write_iops=500)
    doc = json.loads(export_json(history.runs()))
    assert doc[0]["metrics"]["read_iops"] == 1000.0 and doc[0]["metrics"]["write_iops"] == 500.0
    assert doc[0]["raid_level"] == "raid5" and doc[0]["md"][0]["members"] == ["loop3", "loop4", "loop5"]
    assert doc[0]["settings"]["fio.ioengine"] == "libaio"
    csv_path, json_path = write_exports(history.runs(), tmp_path / "out", "x")
    assert csv_path.read_text().startswith("label,RAID level,read IOPS")
    assert json.loads(json_path.read_text()) == doc
