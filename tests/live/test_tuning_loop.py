"""Tuning real loop devices: write, read back from sysfs, undo, log, refusals, kernel errors, no root.

Needs root (to attach loop devices and write their queue attributes); skips
otherwise, and fails under CI=true so a CI run cannot silently skip it. Every
loop device attached here is detached in a ``finally``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from raidtop.actions.action_log import ActionLog
from raidtop.actions.tuning import TuningSession
from raidtop.cli import SUBCOMMANDS

pytestmark = pytest.mark.live

PROJECT = Path(__file__).resolve().parents[2]


def _require(condition: bool, reason: str) -> None:
    if not condition:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI must run this test: {reason}")
        pytest.skip(reason)


@pytest.fixture
def loops(tmp_path: Path) -> Iterator[list[str]]:
    """Two loop devices on sparse 16 MiB files (names without /dev/)."""
    _require(os.geteuid() == 0, "needs root to attach loop devices and write sysfs")
    _require(shutil.which("losetup") is not None, "losetup (util-linux) is not installed")
    attached: list[str] = []
    try:
        for i in range(2):
            image = tmp_path / f"disk{i}.img"
            with open(image, "wb") as handle:
                handle.truncate(16 * 1024 * 1024)
            device = subprocess.run(
                ["losetup", "--find", "--show", str(image)], check=True, capture_output=True, text=True
            ).stdout.strip()
            attached.append(device)
        yield [os.path.basename(d) for d in attached]
    finally:
        for device in attached:
            subprocess.run(["losetup", "-d", device], check=False)


def queue(device: str, attr: str) -> str:
    """Read the kernel's value directly, not through raidtop."""
    return Path(f"/sys/block/{device}/queue/{attr}").read_text().strip()


def active_scheduler(device: str) -> str:
    words = queue(device, "scheduler").split()
    return next((w[1:-1] for w in words if w.startswith("[")), words[0])


@pytest.fixture
def session(tmp_path: Path) -> TuningSession:
    return TuningSession("/", ActionLog(tmp_path / "state" / "actions.log"))


def test_change_read_back_undo_one_undo_all_and_log(loops, session):
    dev = loops[0]
    start = {attr: queue(dev, attr) for attr in ("scheduler", "read_ahead_kb", "nr_requests", "rq_affinity")}
    start_sched = active_scheduler(dev)
    session.knobs(dev)  # the values at start are recorded on first read
    offered = [w.strip("[]") for w in start["scheduler"].split()]
    new_sched = next(s for s in ("mq-deadline", "bfq", "kyber", "none") if s in offered and s != start_sched)
    new_ra = "1024" if start["read_ahead_kb"] != "1024" else "512"
    new_affinity = "2" if start["rq_affinity"] != "2" else "0"

    results = [
        session.set(dev, "scheduler", new_sched),
        session.set(dev, "read_ahead_kb", new_ra),
        session.set(dev, "nr_requests", "32"),
        session.set(dev, "rq_affinity", new_affinity),
    ]
    assert [r.status for r in results] == ["ok"] * 4, [r.message for r in results]
    assert active_scheduler(dev) == new_sched
    assert queue(dev, "read_ahead_kb") == new_ra
    assert queue(dev, "nr_requests") == "32"
    assert queue(dev, "rq_affinity") == new_affinity
    # The scheduler switch made the kernel reset nr_requests: raidtop noticed.
    assert results[0].side_effects and results[0].side_effects[0][0] == "nr_requests"

    (undone,) = session.undo_last()
    assert undone.ok and queue(dev, "rq_affinity") == start["rq_affinity"]
    assert queue(dev, "nr_requests") == "32"  # only the last change was undone

    for result in session.undo_all():
        assert result.ok, result.message
    assert active_scheduler(dev) == start_sched
    assert queue(dev, "read_ahead_kb") == start["read_ahead_kb"]
    assert queue(dev, "nr_requests") == start["nr_requests"]
    assert queue(dev, "rq_affinity") == start["rq_affinity"]

    entries = session.logged_changes()
    changes = [
        (e.details["device"], e.details["attribute"], e.details["new"])
        for e in entries
        if e.details.get("undo_of") is None and not e.details.get("undo_all")
    ]
    assert changes == [
        (dev, "scheduler", new_sched),
        (dev, "read_ahead_kb", new_ra),
        (dev, "nr_requests", "32"),
        (dev, "rq_affinity", new_affinity),
    ]
    undos = [e for e in entries if e.details.get("undo_of") is not None or e.details.get("undo_all")]
    assert any(e.details["attribute"] == "rq_affinity" and e.details["status"] == "ok" for e in undos)
    assert any(e.details["attribute"] == "scheduler" and e.details["new"] == start_sched for e in undos)
    for entry in entries:
        assert {"device", "attribute", "old", "new", "status"} <= entry.details.keys() and entry.time > 0


@pytest.mark.parametrize(
    ("attr", "value"),
    [
        ("scheduler", "cfq-not-offered"),
        ("nr_requests", "-8"),
        ("nr_requests", "99999999999"),
        ("read_ahead_kb", "plenty"),
        ("rq_affinity", "7"),
    ],
)
def test_invalid_values_are_refused_before_writing(loops, session, attr, value):
    dev = loops[0]
    before = queue(dev, attr)
    result = session.set(dev, attr, value)
    assert result.status == "refused" and result.message
    assert queue(dev, attr) == before
    assert session.logged_changes() == []


def test_a_write_the_kernel_rejects_is_reported_not_raised(loops, session):
    dev = loops[1]
    assert session.set(dev, "scheduler", "none").status in ("ok", "unchanged")
    depth = queue(dev, "nr_requests")
    # Without a scheduler nr_requests cannot exceed the driver's queue depth
    # (128 for loop); 2048 passes raidtop's checks but the kernel says EINVAL.
    result = session.set(dev, "nr_requests", "2048")
    assert result.status == "failed"
    assert "EINVAL" in result.message and "queue depth" in result.message
    assert queue(dev, "nr_requests") == depth
    entry = session.logged_changes()[-1]
    assert entry.details["status"] == "failed" and "EINVAL" in entry.result


def _interpreter_for_nobody() -> str | None:
    """A Python ≥ 3.11 that user nobody can execute (the test venv may live under /root)."""
    for candidate in (sys.executable, "/usr/bin/python3.11", "/usr/bin/python3", "/usr/local/bin/python3"):
        if not candidate or not os.path.exists(candidate):
            continue
        probe = subprocess.run(
            ["runuser", "-u", "nobody", "--", candidate, "-c", "import sys; assert sys.version_info >= (3, 11)"],
            capture_output=True,
            text=True,
            timeout=30,
        )
        if probe.returncode == 0:
            return candidate
    return None


def test_an_unprivileged_user_gets_the_explanation_not_a_traceback(loops, tmp_path):
    _require(shutil.which("runuser") is not None, "runuser (util-linux) is not installed")
    python = _interpreter_for_nobody()
    _require(python is not None, "no Python 3.11+ that user nobody can execute")
    readable = subprocess.run(
        ["runuser", "-u", "nobody", "--", "test", "-r", str(PROJECT / "raidtop" / "cli" / "tune.py")]
    )
    _require(readable.returncode == 0, f"user nobody cannot read {PROJECT}")
    dev = loops[0]
    before = queue(dev, "scheduler")
    offered = [w.strip("[]") for w in before.split()]
    wanted = next(s for s in offered if f"[{s}]" not in before)
    # -s -E: no user site, no PYTHON* variables; the cwd puts the checkout on sys.path
    # (the tune command needs only the standard library and raidtop itself).
    result = subprocess.run(
        ["runuser", "-u", "nobody", "--", python, "-s", "-E", "-m", "raidtop.cli.tune", dev, "scheduler", wanted],
        capture_output=True,
        text=True,
        cwd=PROJECT,
        timeout=60,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert "needs root" in result.stderr
    assert f"echo {wanted} | sudo tee /sys/block/{dev}/queue/scheduler" in result.stderr
    assert queue(dev, "scheduler") == before
    # Listing works without root, with sudo in every command.
    listing = subprocess.run(
        ["runuser", "-u", "nobody", "--", python, "-s", "-E", "-m", "raidtop.cli.tune", "--list", dev],
        capture_output=True,
        text=True,
        cwd=PROJECT,
        timeout=60,
    )
    assert listing.returncode == 0 and "Traceback" not in listing.stderr
    assert "sudo tee" in listing.stdout and "You are not root" in listing.stdout
    if "tune" in SUBCOMMANDS:
        # The same through the raidtop command itself.
        via_main = subprocess.run(
            ["runuser", "-u", "nobody", "--", python, "-s", "-E", "-m", "raidtop", "tune", dev, "scheduler", wanted],
            capture_output=True,
            text=True,
            cwd=PROJECT,
            timeout=60,
        )
        assert via_main.returncode == 1 and "needs root" in via_main.stderr and "Traceback" not in via_main.stderr
