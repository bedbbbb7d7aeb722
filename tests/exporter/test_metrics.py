"""The exporter's metrics from real fixture trees: names, one-hot states and roles, promtool's lint."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from raidtop.collect.sampler import Sampler
from raidtop.exporter.metrics import MdMetrics
from raidtop.exporter.states import MD_STATES, MEMBER_ROLES

PROJECT = Path(__file__).resolve().parents[2]
PROCFS = PROJECT / "tests" / "data" / "md" / "roots" / "prometheus-procfs"


def exposition(root: Path = PROCFS) -> str:
    sampler = Sampler(root)
    sampler.sample()
    metrics = MdMetrics()
    metrics.update(sampler.sample(), 0.01, 1_700_000_000.0, {})
    registry = CollectorRegistry(auto_describe=False)
    registry.register(metrics)
    return generate_latest(registry).decode()


def samples(text: str) -> dict[str, list]:
    out: dict[str, list] = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            out.setdefault(s.name, []).append(s)
    return out


def test_every_array_has_exactly_one_state_and_every_member_one_role() -> None:
    got = samples(exposition())
    per_array: dict[str, list[str]] = {}
    for s in got["raidtop_md_state"]:
        assert s.labels["state"] in MD_STATES
        if s.value == 1:
            per_array.setdefault(s.labels["array"], []).append(s.labels["state"])
    assert all(len(v) == 1 for v in per_array.values())
    states = {a: v[0] for a, v in per_array.items()}
    # What the fixture's kernel files say (procfs's fixture, unchanged).
    assert states["md6"] == "recovering" and states["md5"] == "degraded" and states["md9"] == "delayed"
    assert states["md11"] == "pending" and states["md201"] == "checking" and states["md7"] == "inactive"
    roles: dict[tuple[str, str], list[str]] = {}
    for s in got["raidtop_md_member_role"]:
        assert s.labels["role"] in MEMBER_ROLES
        if s.value == 1:
            roles.setdefault((s.labels["array"], s.labels["member"]), []).append(s.labels["role"])
    assert all(len(v) == 1 for v in roles.values())


def test_sync_counts_are_the_kernels_bytes_with_one_denominator() -> None:
    got = samples(exposition())
    done = {s.labels["array"]: s.value for s in got["raidtop_md_sync_completed_bytes"]}
    total = {s.labels["array"]: s.value for s in got["raidtop_md_sync_total_bytes"]}
    # md201: "check = 5.7% (114176/1993728)" in the fixture's /proc/mdstat, 1 KiB blocks.
    assert done["md201"] == 114176 * 1024 and total["md201"] == 1993728 * 1024
    assert "md9" not in done  # delayed: no running action, no progress series


def test_names_follow_prometheus_conventions_and_promtool_is_silent() -> None:
    text = exposition()
    for family in text_string_to_metric_families(text):
        assert family.name.startswith("raidtop_")
        assert not family.name.endswith(("_percent", "_kib", "_kilobytes"))
        if family.type != "counter":
            assert not family.name.endswith("_total")
    promtool = shutil.which("promtool")
    if promtool is None:
        pytest.skip("promtool not installed (.ci/run installs Debian's prometheus)")
    lint = subprocess.run([promtool, "check", "metrics"], input=text, capture_output=True, text=True)
    assert lint.returncode == 0 and lint.stdout == "" and lint.stderr == ""


def test_label_values_from_the_system_are_escaped_not_interpreted(tmp_path) -> None:
    # A member name with a quote, a backslash and a newline (sysfs names are bytes the kernel was given).
    root = tmp_path / "root"
    (root / "proc").mkdir(parents=True)
    (root / "proc" / "mdstat").write_text(
        'Personalities : [raid1]\nmd0 : active raid1 sd"b\\1[0] sdc1[1]\n'
        "      1024 blocks [2/2] [UU]\n\nunused devices: <none>\n"
    )
    text = exposition(root)
    members = {s.labels["member"] for s in samples(text)["raidtop_md_member_role"]}
    assert members == {'sd"b\\1', "sdc1"}


def test_metrics_modules_import_without_textual_or_rich() -> None:
    script = (
        "import sys, importlib\n"
        "class No:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('textual', 'rich'): raise ImportError(name)\n"
        "sys.meta_path.insert(0, No())\n"
        "for m in ('raidtop.exporter.metrics', 'raidtop.exporter.service', 'raidtop.exporter.listen',\n"
        "          'raidtop.fleet.prometheus', 'raidtop.fleet.ssh', 'raidtop.fleet.rows', 'raidtop.cli.exporter'):\n"
        "    importlib.import_module(m)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=PROJECT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
