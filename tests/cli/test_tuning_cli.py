"""``raidtop tune`` on a copied tree: exit codes 0/1/2, messages, dry runs, undo through the log."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from raidtop.cli import SUBCOMMANDS

from tests.actions.tuning.test_tuning_validation import tuning_root

PROJECT = Path(__file__).resolve().parents[2]

ENTRY_POINTS = [
    pytest.param(["-m", "raidtop.cli.tune"], id="module"),
    pytest.param(
        ["-m", "raidtop", "tune"],
        id="raidtop-tune",
        marks=pytest.mark.skipif("tune" not in SUBCOMMANDS, reason="'tune' is not in raidtop.cli.SUBCOMMANDS yet"),
    ),
]


@pytest.fixture(params=ENTRY_POINTS)
def tune(request, tmp_path):
    """Run the command on a fresh copied tree with its own action log."""
    root = tuning_root(tmp_path)
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state")}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        # `raidtop tune ... --root X` works because tune re-declares --root.
        argv = [sys.executable, *request.param, *args, "--root", str(root)]
        return subprocess.run(argv, capture_output=True, text=True, cwd=PROJECT, env=env, timeout=60)

    run.root = root
    run.log = tmp_path / "state" / "raidtop" / "actions.log"
    return run


def queue(root: Path, attr: str) -> str:
    return (root / "sys" / "block" / "sda" / "queue" / attr).read_text().strip()


def test_set_reads_back_and_logs(tune):
    result = tune("sda", "nr_requests", "128")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "sda nr_requests: 64 → 128"
    assert queue(tune.root, "nr_requests") == "128"
    (line,) = tune.log.read_text().splitlines()
    entry = json.loads(line)
    assert (entry["kind"], entry["device"], entry["attribute"], entry["old"], entry["new"], entry["result"]) == (
        "tune",
        "sda",
        "nr_requests",
        "64",
        "128",
        "ok",
    )


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("sda", "nr_requests", "-5"), "negative numbers are not allowed"),
        (("sda", "scheduler", "cfq"), "'cfq' is not offered by this device"),
        (("sda", "read_ahead_kb", "lots"), "is not a whole number"),
        (("sda", "nr_requests", "123456789012345678901234567890"), "above the maximum 2048"),
        (("sdzz", "scheduler", "none"), "no such block device"),
        (("md1", "stripe_cache_size", "4096"), "raid4/5/6"),
    ],
)
def test_refusals_exit_1_with_the_reason_and_write_nothing(tune, args, says):
    result = tune(*args)
    assert result.returncode == 1
    assert says in result.stderr and "Traceback" not in result.stderr
    assert queue(tune.root, "nr_requests") == "64" and queue(tune.root, "scheduler") == "mq-deadline kyber [bfq] none"
    assert not tune.log.exists()


@pytest.mark.parametrize(
    "args", [("sda", "nr_requests"), ("sda", "schedular", "none"), ("--list", "sda", "md0"), ("--bogus",)]
)
def test_usage_errors_exit_2(tune, args):
    result = tune(*args)
    assert result.returncode == 2 and "Traceback" not in result.stderr


def test_write_through_needs_force(tune):
    refused = tune("sda", "write_cache", "write through")
    assert refused.returncode == 1 and "power failure" in refused.stderr and "--force" in refused.stderr
    assert queue(tune.root, "write_cache") == "write back"
    forced = tune("sda", "write_cache", "write through", "--force")
    assert forced.returncode == 0 and queue(tune.root, "write_cache") == "write through"


def test_dry_run_prints_the_command_only(tune):
    result = tune("sda", "read_ahead_kb", "1024", "--dry-run")
    assert result.returncode == 0 and result.stdout.strip() == "blockdev --setra 2048 /dev/sda"
    assert queue(tune.root, "read_ahead_kb") == "128" and not tune.log.exists()


def test_list(tune):
    listing = tune("--list")
    assert listing.returncode == 0 and "md6" in listing.stdout and "raid " in listing.stdout
    knobs = tune("--list", "sda")
    assert knobs.returncode == 0
    assert "scheduler          bfq" in knobs.stdout and "echo bfq > /sys/block/sda/queue/scheduler" in knobs.stdout
    doc = json.loads(tune("--list", "md6", "--json").stdout)
    assert {"sync_speed_min", "sync_speed_max", "stripe_cache_size", "group_thread_cnt"} <= {
        k["attribute"] for k in doc
    }


def test_undo_reverts_the_last_logged_change_once(tune):
    assert tune("sda", "read_ahead_kb", "4096").returncode == 0
    assert tune("md6", "sync_speed_max", "20000").returncode == 0
    undo = tune("--undo")
    assert undo.returncode == 0, undo.stderr
    assert "undoing md6 sync_speed_max system → 20000" in undo.stdout
    assert (tune.root / "sys/block/md6/md/sync_speed_max").read_text().strip() == "system"
    assert tune("--undo").returncode == 0 and queue(tune.root, "read_ahead_kb") == "128"
    nothing = tune("--undo")
    assert nothing.returncode == 0 and "nothing to undo" in nothing.stdout
    log = tune("--log")
    assert log.stdout.count("(undo)") == 2


def test_undo_refuses_when_the_knob_changed_since(tune):
    assert tune("sda", "nr_requests", "32").returncode == 0
    (tune.root / "sys/block/sda/queue/nr_requests").write_text("16\n")
    refused = tune("--undo")
    assert refused.returncode == 1 and "was changed since" in refused.stderr
    assert queue(tune.root, "nr_requests") == "16"
    assert tune("--undo", "--force").returncode == 0 and queue(tune.root, "nr_requests") == "64"
