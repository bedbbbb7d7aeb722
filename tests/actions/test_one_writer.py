"""The one sysfs write path: the fio sweep and the lab's md writes go through the tuning
session (validated, written without creating or following a link, read back, logged, undoable).

Real files in a sysfs-like tree under tmp; a FIFO and symlinks are real too. Each attack
test leaves a sentinel that must survive.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from raidtop.actions.action_log import ActionLog
from raidtop.actions.fio.sweep import run_sweep
from raidtop.actions.tuning import session_for, write_attribute
from raidtop.actions.tuning import session as tuning_session
from raidtop.safeio import UnsafeFile

from tests.actions.lab.lab_tree import LabTree
from tests.actions.fio.test_fio_compare import _loop_tuning, _plan, _recording_run, history  # noqa: F401  (history is a fixture)
from tests.actions.fio_sysfs import FakeSys

SENTINEL = "do not touch\n"


def test_a_missing_attribute_is_refused_and_never_created(tmp_path: Path):
    missing = tmp_path / "sys" / "block" / "loop7" / "queue" / "read_ahead_kb"
    missing.parent.mkdir(parents=True)
    with pytest.raises(FileNotFoundError):
        write_attribute(str(missing), "4096")
    assert not missing.exists()


def test_a_symlinked_attribute_is_refused_and_its_target_untouched(tmp_path: Path):
    victim = tmp_path / "victim"
    victim.write_text(SENTINEL)
    link = tmp_path / "scheduler"
    link.symlink_to(victim)
    with pytest.raises(UnsafeFile, match="symbolic link"):
        write_attribute(str(link), "none")
    assert victim.read_text() == SENTINEL


def test_a_fifo_attribute_is_refused_without_blocking(tmp_path: Path):
    fifo = tmp_path / "sync_action"
    os.mkfifo(fifo)
    # No reader: a blocking open would hang here for ever; the writer must answer at once.
    with pytest.raises(UnsafeFile, match="FIFO"):
        write_attribute(str(fifo), "check")


def test_an_attribute_removed_after_planning_is_reported_not_created(tmp_path: Path):
    fake = FakeSys(tmp_path / "root")
    fake.disk("loop7", read_ahead_kb=128)
    session = session_for(fake.root, ActionLog(tmp_path / "a.log"))
    plan = session.plan("loop7", "read_ahead_kb", "4096")
    path = fake.root / "sys" / "block" / "loop7" / "queue" / "read_ahead_kb"
    path.unlink()  # the device went away between the dialog and the write
    result = session.apply(plan)
    assert result.status == "failed" and "is gone" in result.message
    assert not path.exists()


def _reads_back_256_once(monkeypatch) -> None:
    real_write = tuning_session.write_attribute
    calls: list[str] = []

    def write(path: str, value: str) -> None:
        calls.append(value)
        # A kernel that accepts the value but keeps another one (it rounds or caps it).
        real_write(path, "256" if len(calls) == 1 else value)

    monkeypatch.setattr(tuning_session, "write_attribute", write)


def test_the_sweep_reports_a_read_back_mismatch_logs_it_and_restores(tmp_path: Path, history, monkeypatch):  # noqa: F811
    fake = FakeSys(tmp_path / "root")
    fake.disk("loop7", read_ahead_kb=128)
    fake.disk("sdz", read_ahead_kb=64)  # not in the sweep: its value is the sentinel
    _reads_back_256_once(monkeypatch)
    log = ActionLog(tmp_path / "a.log")
    seen: list[str] = []
    outcome = run_sweep(
        _plan(_loop_tuning()),
        history,
        "read_ahead_kb",
        [512, 1024],
        root=fake.root,
        log=log,
        run=_recording_run(fake, history, seen),
    )
    assert outcome.steps[0].error == (
        "read_ahead_kb=512 refused: loop7 read_ahead_kb: the kernel accepted 512 but it reads back as 256"
    )
    assert outcome.steps[1].record is not None
    assert fake.queue("loop7", "read_ahead_kb") == "128" and fake.queue("sdz", "read_ahead_kb") == "64"
    lines = log.read("tune")
    assert [(e.details["status"], e.details["new"], e.details["readback"], e.details["by"]) for e in lines] == [
        ("mismatch", "512", "256", "fio sweep"),
        ("ok", "1024", "1024", "fio sweep"),
        ("ok", "128", "128", "fio sweep: restore"),
    ]
    assert lines[0].command == "blockdev --setra 1024 /dev/loop7"
    # The restore is an undo-all of the knob: nothing of the sweep is left to undo.
    assert session_for(fake.root, log).undoable == []


def test_the_sweep_refuses_a_value_the_device_does_not_offer_before_writing(tmp_path: Path, history):  # noqa: F811
    fake = FakeSys(tmp_path / "root")
    fake.disk("loop7", scheduler="[none] mq-deadline kyber")
    log = ActionLog(tmp_path / "a.log")
    seen: list[str] = []
    outcome = run_sweep(
        _plan(_loop_tuning()),
        history,
        "scheduler",
        ["bfq"],
        root=fake.root,
        log=log,
        run=_recording_run(fake, history, seen),
    )
    assert "'bfq' is not offered by this device" in (outcome.steps[0].error or "")
    assert seen == [] and fake.queue("loop7", "scheduler") == "[none] mq-deadline kyber"
    # Nothing was written; the restore only notes, as every undo does, that the value is in place.
    assert [(e.details["status"], e.details["by"]) for e in log.read("tune")] == [("unchanged", "fio sweep: restore")]


def test_the_labs_speed_limit_is_validated_read_back_logged_and_undoable(tmp_path: Path):
    from raidtop.actions.lab.members import LabMemberActions

    tree = LabTree(tmp_path)
    tree.lab_raid("md100", "raid5", 3)
    speed = tree.root / "sys" / "block" / "md100" / "md" / "sync_speed_max"
    actions = LabMemberActions(tree.lab, cache_s=0, live_only=False)
    assert actions.speed_limit_plan("md100", 5000).execute() == "echo 5000 > /sys/block/md100/md/sync_speed_max"
    assert speed.read_text() == "5000\n"
    (entry,) = tree.log.read("tune")
    expected = {
        "device": "md100",
        "attribute": "sync_speed_max",
        "old": "system",
        "new": "5000",
        "readback": "5000",
        "status": "ok",
        "by": "lab",
    }
    assert {key: entry.details.get(key) for key in expected} == expected
    assert tree.log.read("lab")[-1].command == "echo 5000 > /sys/block/md100/md/sync_speed_max"
    session = session_for(tree.root, tree.log)
    (undone,) = session.undo_last()
    assert undone.ok and speed.read_text() == "system\n"


def test_the_labs_check_is_logged_but_never_undone_or_made_permanent(tmp_path: Path):
    from raidtop.actions.lab.members import LabMemberActions

    tree = LabTree(tmp_path)
    tree.lab_raid("md100", "raid5", 3)
    LabMemberActions(tree.lab, cache_s=0, live_only=False).run("check", "md100", None)
    (entry,) = tree.log.read("tune")
    assert (entry.command, entry.details["by"], entry.details["status"]) == (
        "echo check > /sys/block/md100/md/sync_action",
        "lab",
        "ok",
    )
    session = session_for(tree.root, tree.log)
    assert session.undoable == [] and session.net_changes() == [] and session.plan_undo_all() == []


def test_a_lab_write_the_kernel_refuses_fails_the_lab_command(tmp_path: Path, monkeypatch):
    from raidtop.actions.lab.members import LabMemberActions
    from raidtop.actions.lab.commands import LabCommandFailed

    tree = LabTree(tmp_path)
    tree.lab_raid("md100", "raid5", 3)

    def busy(path: str, value: str) -> None:
        raise OSError(16, "Device or resource busy")

    monkeypatch.setattr(tuning_session, "write_attribute", busy)
    with pytest.raises(LabCommandFailed):
        LabMemberActions(tree.lab, cache_s=0, live_only=False).speed_limit_plan("md100", 1000).execute()
    assert (tree.root / "sys" / "block" / "md100" / "md" / "sync_speed_max").read_text() == "200000 (system)\n"
    (entry,) = tree.log.read("tune")
    assert entry.details["status"] == "failed" and "busy" in entry.result


def test_writes_from_two_threads_are_applied_one_at_a_time(tmp_path: Path):
    fake = FakeSys(tmp_path / "root")
    fake.disk("loop7", read_ahead_kb=128)
    session = session_for(fake.root, ActionLog(tmp_path / "a.log"))
    values = [str(4 * (i + 1)) for i in range(20)]
    threads = [threading.Thread(target=session.set, args=("loop7", "read_ahead_kb", v)) for v in values]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # Each write saw only its own change: no result reports another thread's value as a side effect.
    assert all(r.status == "ok" and r.side_effects == () for r in session.results)
    session.undo_all()
    assert fake.queue("loop7", "read_ahead_kb") == "128"


def test_exports_replace_a_planted_link_instead_of_writing_through_it(tmp_path):
    """The study CSV and the benchmark exports go through the one atomic writer."""
    from raidtop.actions.fio.compare import write_exports
    from raidtop.actions.experiments.results import ExperimentResult, write_csv

    victim = tmp_path / "victim"
    victim.write_text("sentinel")
    out = tmp_path / "out"
    out.mkdir()
    (out / "study.csv").symlink_to(victim)
    (out / "runs.csv").symlink_to(victim)
    (out / "runs.json").symlink_to(victim)
    write_csv(ExperimentResult("study", {}, ()), out / "study.csv")
    write_exports([], out, "runs")
    assert victim.read_text() == "sentinel"
    for name in ("study.csv", "runs.csv", "runs.json"):
        assert not (out / name).is_symlink() and (out / name).is_file()
    assert (out / "study.csv").read_text().startswith("level,")
