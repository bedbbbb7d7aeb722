"""raidtop_smart_* families: values from real smartctl outputs, absent when unknown, clean for promtool."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from raidtop.collect.smart.parse import parse_smartctl
from raidtop.exporter.metrics import MdMetrics
from raidtop.model.snapshot import Snapshot
from raidtop.model.smart import RebuildRisk, SmartHealth, SurvivorRisk
from raidtop.presentation.smart_rules import judge

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data" / "smartctl"


def reading(path: str, disk: str) -> SmartHealth:
    return judge(parse_smartctl(json.loads((DATA / path).read_text()), disk, 1_700_000_000.0))


def exposition() -> str:
    smart = {
        "sda": reading("derived/sata-failing-ST3500418AS.json", "sda"),
        "nvme0n1": reading("corpus/nvme-null-INTEL_SSDPE2KX010T8-nvme1.json", "nvme0n1"),
        "vda": SmartHealth(disk="vda", read_at=1_700_000_000.0, state="unsupported", message="no SMART"),
    }
    risk = RebuildRisk(
        "md0",
        "degraded, no redundancy left",
        (SurvivorRisk("sda1", "sda", "failing", ("8 pending sectors",), 10**12, 0.077, 1e14, False),),
        "back up now",
    )
    snap = Snapshot(time=1_700_000_000.0, interval_s=1.0, smart=smart, rebuild_risks=(risk,))
    metrics = MdMetrics()
    metrics.update(snap, 0.01, 1_700_000_000.0, {})
    registry = CollectorRegistry(auto_describe=False)
    registry.register(metrics)
    return generate_latest(registry).decode()


def values(text: str) -> dict[tuple[str, str], float]:
    out = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out[(s.name, s.labels.get("disk") or s.labels.get("array", ""))] = s.value
    return out


def test_values_are_the_drives_and_unknown_is_absent() -> None:
    v = values(exposition())
    assert v[("raidtop_smart_verdict", "sda")] == 2 and v[("raidtop_smart_verdict", "nvme0n1")] == 0
    assert ("raidtop_smart_verdict", "vda") not in v  # not read: no verdict, not "ok"
    assert v[("raidtop_smart_pending_sectors", "sda")] == 8 and v[("raidtop_smart_passed", "sda")] == 0
    assert ("raidtop_smart_pending_sectors", "nvme0n1") not in v  # NVMe has no attribute 197
    assert v[("raidtop_smart_endurance_used_ratio", "nvme0n1")] == pytest.approx(0.73)
    assert v[("raidtop_smart_available_spare_ratio", "nvme0n1")] == pytest.approx(0.99)
    assert v[("raidtop_smart_power_on_seconds", "nvme0n1")] == 8843 * 3600
    assert v[("raidtop_smart_last_read_timestamp_seconds", "vda")] == 1_700_000_000.0
    assert v[("raidtop_md_rebuild_risk_survivors", "md0")] == 1
    assert v[("raidtop_md_rebuild_unrecoverable_read_probability", "sda")] == pytest.approx(0.077)


def test_promtool_finds_nothing_to_say() -> None:
    promtool = shutil.which("promtool")
    if promtool is None:
        pytest.skip("promtool not installed")
    lint = subprocess.run([promtool, "check", "metrics"], input=exposition(), capture_output=True, text=True)
    assert lint.returncode == 0 and lint.stdout.strip() == "" and lint.stderr.strip() == "", lint.stdout + lint.stderr


def test_the_smart_alert_rules_pass_their_promtool_unit_tests() -> None:
    promtool = shutil.which("promtool")
    if promtool is None:
        pytest.skip("promtool not installed")
    result = subprocess.run(
        [promtool, "test", "rules", "raidtop-alerts.test.yml"],
        capture_output=True,
        text=True,
        cwd=REPO / "deploy" / "prometheus",
    )
    assert result.returncode == 0, result.stdout + result.stderr
