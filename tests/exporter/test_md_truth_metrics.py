"""Issue 23's exporter families from real-shaped trees: sparse-by-design, degraded-since, a stalled sync."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from prometheus_client import CollectorRegistry, generate_latest

from raidtop.collect.sampler import Sampler
from raidtop.exporter.metrics import MdMetrics
from tests.exporter.test_metrics import PROJECT, exposition, samples

ROOTS = PROJECT / "tests" / "data" / "md" / "roots"


def values(text: str, name: str) -> dict[str, float]:
    return {s.labels["array"]: s.value for s in samples(text).get(name, [])}


def test_a_qnap_box_exports_its_system_arrays_as_sparse_and_not_degraded() -> None:
    text = exposition(ROOTS / "qnap-sparse")
    assert values(text, "raidtop_md_sparse_by_design") == {"md1": 0, "md9": 1, "md13": 1, "md256": 0, "md322": 0}
    # md's own count stays exported as md says it; the alert rule reads the flag beside it.
    assert values(text, "raidtop_md_degraded_disks")["md9"] == 20
    assert values(text, "raidtop_md_degraded_since_seconds") == {}


def test_a_failed_member_turns_the_flag_off_and_starts_the_degraded_clock() -> None:
    text = exposition(ROOTS / "qnap-sparse-member-failed")
    assert values(text, "raidtop_md_sparse_by_design")["md9"] == 0
    since = values(text, "raidtop_md_degraded_since_seconds")
    assert list(since) == ["md9"] and since["md9"] > 1_600_000_000  # a Unix time: raidtop's start


def test_a_resync_that_stops_moving_is_exported_as_stalled(tmp_path) -> None:
    root = tmp_path / "root"
    (root / "proc").mkdir(parents=True)
    mdstat = (
        "Personalities : [raid1]\nmd4 : active raid1 sdb1[1] sda1[0]\n      8387520 blocks super 1.2 [2/2] [UU]\n"
        "      [====>................]  resync = 23.4% (1963200/8387520) finish=4.6min speed=23178K/sec\n\n"
        "unused devices: <none>\n"
    )
    (root / "proc/mdstat").write_text(mdstat)
    clock = iter([0.0, 1.0, 30.0, 61.0, 62.0])
    sampler = Sampler(root, clock=lambda: next(clock))
    stalled = []
    for _ in range(5):
        snap = sampler.sample()
        metrics = MdMetrics()
        metrics.update(snap, 0.01, 1_700_000_000.0, {})
        registry = CollectorRegistry(auto_describe=False)
        registry.register(metrics)
        stalled.append(values(generate_latest(registry).decode(), "raidtop_md_sync_stalled")["md4"])
    assert stalled == [0, 0, 0, 1, 1]  # 61 s after the count last moved


def test_the_alert_rules_pass_their_promtool_unit_tests() -> None:
    promtool = shutil.which("promtool")
    if promtool is None:
        pytest.skip("promtool not installed (.ci/run installs Debian's prometheus)")
    run = subprocess.run(
        [promtool, "test", "rules", "raidtop-alerts.test.yml"],
        cwd=PROJECT / "deploy" / "prometheus",
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout + run.stderr
