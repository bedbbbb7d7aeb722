"""Command strings, and apply / read back / log / undo on a copied tree (no root needed).

The live loop-device tests check the same against the kernel; these pin the
bookkeeping: what is logged, what undo restores, how errors become words.
"""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from raidtop.actions.tuning import session as tuning
from raidtop.actions.action_log import ActionLog
from raidtop.actions.tuning import (
    Plan,
    TuningSession,
    changes_from_log,
    describe_write_error,
    shell_command,
    system_path,
)

from tests.actions.tuning.test_tuning_validation import tuning_root


@pytest.fixture
def session(tmp_path: Path) -> TuningSession:
    return TuningSession(tuning_root(tmp_path), ActionLog(tmp_path / "state" / "actions.log"), privileged=True)


def sysfs(session: TuningSession, path: str) -> str:
    """Read a file of the copied tree directly, not through raidtop."""
    return Path(session.root.resolve(path)).read_text().strip()


@pytest.mark.parametrize(
    ("target", "attr", "value", "sudo", "command"),
    [
        ("sda", "scheduler", "mq-deadline", False, "echo mq-deadline > /sys/block/sda/queue/scheduler"),
        ("sda", "scheduler", "none", True, "echo none | sudo tee /sys/block/sda/queue/scheduler"),
        ("sda", "read_ahead_kb", "128", False, "blockdev --setra 256 /dev/sda"),
        ("nvme0n1", "read_ahead_kb", "4096", True, "sudo blockdev --setra 8192 /dev/nvme0n1"),
        ("sda", "write_cache", "write through", False, "echo 'write through' > /sys/block/sda/queue/write_cache"),
        ("md0", "sync_speed_max", "system", False, "echo system > /sys/block/md0/md/sync_speed_max"),
        ("md0", "stripe_cache_size", "8192", True, "echo 8192 | sudo tee /sys/block/md0/md/stripe_cache_size"),
        ("raid", "speed_limit_max", "500000", False, "sysctl -w dev.raid.speed_limit_max=500000"),
        ("raid", "speed_limit_min", "50000", True, "sudo sysctl -w dev.raid.speed_limit_min=50000"),
        ("cciss/c0d0", "nr_requests", "128", False, "echo 128 > /sys/block/cciss!c0d0/queue/nr_requests"),
        ("/dev/cciss/c0d0", "read_ahead_kb", "64", False, "blockdev --setra 128 /dev/cciss/c0d0"),
    ],
)
def test_shell_commands(target, attr, value, sudo, command):
    assert shell_command(target, attr, value, sudo=sudo) == command


def test_system_paths():
    assert system_path("md127", "group_thread_cnt") == "/sys/block/md127/md/group_thread_cnt"
    assert system_path("raid", "speed_limit_min") == "/proc/sys/dev/raid/speed_limit_min"


def test_apply_writes_reads_back_and_logs(session):
    plan = session.plan("sda", "read_ahead_kb", "4096")
    assert isinstance(plan, Plan) and plan.old == "128" and plan.command == "blockdev --setra 8192 /dev/sda"
    result = session.apply(plan)
    assert result.status == "ok" and result.readback == "4096"
    assert sysfs(session, "/sys/block/sda/queue/read_ahead_kb") == "4096"
    (entry,) = session.logged_changes()
    assert entry.kind == "tune" and entry.command == "blockdev --setra 8192 /dev/sda" and entry.result == "ok"
    assert {k: entry.details[k] for k in ("device", "attribute", "old", "new", "status")} == {
        "device": "sda",
        "attribute": "read_ahead_kb",
        "old": "128",
        "new": "4096",
        "status": "ok",
    }
    # The result carries the log's own timestamp, so an undo can name the change.
    assert result.time == entry.time


def test_refused_and_unchanged_values_are_neither_written_nor_logged(session):
    before = sysfs(session, "/sys/block/sda/queue/nr_requests")
    refused = session.set("sda", "nr_requests", "-1")
    assert refused.status == "refused" and "negative" in refused.message
    unchanged = session.set("sda", "nr_requests", "64")
    assert unchanged.status == "unchanged"
    assert sysfs(session, "/sys/block/sda/queue/nr_requests") == before
    assert session.logged_changes() == []


def test_a_value_that_reads_back_differently_is_reported(session, monkeypatch):
    # A kernel may accept a value and keep another (write back on a device
    # without a volatile cache reads back as write through); imitate that.
    real_write = tuning.write_attribute
    monkeypatch.setattr(tuning, "write_attribute", lambda path, value: real_write(path, "40000 (local)"))
    result = session.set("md6", "sync_speed_max", "50000")
    assert result.status == "mismatch" and not result.ok and result.changed_system
    assert result.message == "md6 sync_speed_max: the kernel accepted 50000 but it reads back as 40000"
    assert session.logged_changes()[-1].details["readback"] == "40000"


@pytest.mark.parametrize(
    ("code", "privileged", "status", "words"),
    [
        (errno.EINVAL, True, "failed", "EINVAL"),
        (errno.EBUSY, True, "failed", "busy"),
        (errno.EACCES, False, "needs-root", "needs root"),
        (errno.EPERM, False, "needs-root", "needs root"),
        (errno.EACCES, True, "failed", "even with root"),
        (errno.EROFS, True, "failed", "read-only"),
        (errno.ENODEV, True, "failed", "gone"),
        (errno.ENOMEM, True, "failed", "memory"),
        (errno.E2BIG, True, "failed", "E2BIG"),
    ],
)
def test_kernel_errors_in_words(code, privileged, status, words):
    got_status, got_words = describe_write_error(OSError(code, "x"), "scheduler", privileged=privileged)
    assert got_status == status and words in got_words


def test_a_failed_write_is_reported_logged_and_not_raised(session, monkeypatch):
    def busy(path, value):
        raise OSError(errno.EBUSY, "Device or resource busy")

    monkeypatch.setattr(tuning, "write_attribute", busy)
    result = session.set("sda", "scheduler", "none")
    assert result.status == "failed" and "busy" in result.message
    assert sysfs(session, "/sys/block/sda/queue/scheduler") == "mq-deadline kyber [bfq] none"
    (entry,) = session.logged_changes()
    assert entry.details["status"] == "failed" and "busy" in entry.result
    assert session.undoable == []


def test_without_write_permission_the_sudo_command_is_given(tmp_path, monkeypatch):
    session = TuningSession(tuning_root(tmp_path), ActionLog(tmp_path / "log"), privileged=False)
    # Stand in for a non-root user: the kernel's sysfs files are root's, mode 0644.
    monkeypatch.setattr(tuning.os, "access", lambda path, mode: False)
    result = session.set("sda", "scheduler", "none")
    assert result.status == "needs-root"
    assert "echo none | sudo tee /sys/block/sda/queue/scheduler" in result.message
    assert session.logged_changes() == []


def test_undo_last_then_undo_all_restore_the_start_values(session):
    session.set("sda", "read_ahead_kb", "1024")
    session.set("sda", "nr_requests", "32")
    session.set("md6", "stripe_cache_size", "4096")
    (plan,) = session.plan_undo_last()
    assert plan.command == "echo 256 > /sys/block/md6/md/stripe_cache_size"
    (undone,) = session.undo_last()
    assert undone.status == "ok" and sysfs(session, "/sys/block/md6/md/stripe_cache_size") == "256"
    assert [c.attr for c in session.undoable] == ["read_ahead_kb", "nr_requests"]
    results = session.undo_all()
    assert {(r.attr, r.status) for r in results} == {("read_ahead_kb", "ok"), ("nr_requests", "ok")}
    assert sysfs(session, "/sys/block/sda/queue/read_ahead_kb") == "128"
    assert sysfs(session, "/sys/block/sda/queue/nr_requests") == "64"
    assert session.undoable == []
    # Six writes, each logged, undos marked as such.
    entries = session.logged_changes()
    assert len(entries) == 6
    assert [bool(e.details.get("undo_of") or e.details.get("undo_all")) for e in entries] == [False] * 3 + [True] * 3


def test_undo_warns_when_the_knob_changed_since(session):
    session.set("sda", "nr_requests", "32")
    # Someone else writes the file after raidtop did.
    Path(session.root.resolve("/sys/block/sda/queue/nr_requests")).write_text("16\n")
    (plan,) = session.plan_undo_last()
    assert "was changed since (now 16, raidtop set 32)" in plan.warning


def test_undo_restores_what_changed_with_it(session, monkeypatch):
    # Switching a scheduler makes the kernel reset nr_requests; the copied tree
    # does not, so imitate it to check undo puts both back.
    real_write = tuning.write_attribute

    def kernel_like(path, value):
        if not path.endswith("/scheduler"):
            real_write(path, value)
            return
        # The kernel lists every scheduler, the active one in brackets.
        real_write(path, " ".join(f"[{s}]" if s == value else s for s in ("mq-deadline", "kyber", "bfq", "none")))
        real_write(path.replace("scheduler", "nr_requests"), "256")

    monkeypatch.setattr(tuning, "write_attribute", kernel_like)
    result = session.set("sda", "scheduler", "mq-deadline")
    assert result.side_effects == (("nr_requests", "64", "256"),)
    assert "also changed nr_requests 64 → 256" in result.message
    plans = session.plan_undo_last()
    assert [(p.attr, p.new) for p in plans] == [("scheduler", "bfq"), ("nr_requests", "64")]
    for r in session.undo_last():
        assert r.ok
    assert sysfs(session, "/sys/block/sda/queue/nr_requests") == "64"


def test_changes_from_the_log_drive_undo_across_processes(session, tmp_path):
    session.set("sda", "read_ahead_kb", "512")
    session.set("sda", "rq_affinity", "2")
    # A second process (another `raidtop tune`) sees the same log.
    other = TuningSession(session.root, ActionLog(session.log.path), privileged=True)
    pending = changes_from_log(other.logged_changes())
    assert [(c.attr, c.old, c.new) for c in pending] == [("read_ahead_kb", "128", "512"), ("rq_affinity", "1", "2")]
    for r in other.undo(pending[-1]):
        assert r.ok
    assert [c.attr for c in changes_from_log(other.logged_changes())] == ["read_ahead_kb"]


def test_net_changes_list_what_is_still_in_effect(session):
    session.set("sda", "read_ahead_kb", "512")
    session.set("sda", "nomerges", "2")
    session.set("sda", "nomerges", "0")  # back to its start value: nothing to persist
    session.set("raid", "speed_limit_max", "500000")
    assert [(k.target, k.attr, k.value) for k in session.net_changes()] == [
        ("sda", "read_ahead_kb", "512"),
        ("raid", "speed_limit_max", "500000"),
    ]


def test_log_failure_is_reported_not_raised(tmp_path):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    session = TuningSession(tuning_root(tmp_path), ActionLog(blocker / "actions.log"), privileged=True)
    result = session.set("sda", "nr_requests", "32")
    assert result.status == "ok" and "could not write the change log" in result.log_error
