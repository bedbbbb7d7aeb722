"""raidtop_md_cgroup_*: who loads each array, a bounded series set (issue 26), from the demo's cgroup files."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from raidtop.presentation.judgement import judged_sampler
from raidtop.demo.controller import DemoController
from raidtop.exporter.io_metrics import io_families
from raidtop.exporter.metrics import MdMetrics


def rebuilding_snapshot():
    """The demo's raid5 recovering while a database, a backup and journald load it; cgroup tree only."""
    clock = [0.0]
    demo = DemoController(clock=lambda: clock[0])
    sampler = judged_sampler(demo.root, clock=lambda: clock[0])
    sampler.processes.want_units = True  # as the exporter's LiveSource sets it
    first = demo.sim.members[0].name
    demo.sim.fail(first)
    demo.sim.remove(first)
    demo.sim.add()
    snap = None
    for _ in range(3):
        clock[0] += 1.0
        demo.tick()
        snap = sampler.sample()
    return snap


def series(families, name):
    family = next(f for f in families if f.name == name)
    return {tuple(s.labels.values()): s.value for s in family.samples}


def test_top_units_per_array_and_the_rest_as_other():
    snap = rebuilding_snapshot()
    assert snap.io.processes == ()  # the exporter reads no /proc walk
    full = series(io_families(snap, top=10), "raidtop_md_cgroup_write_bytes_per_second")
    cut = series(io_families(snap, top=2), "raidtop_md_cgroup_write_bytes_per_second")
    md9_full = {k[1]: v for k, v in full.items() if k[0] == "md9"}
    md9_cut = {k[1]: v for k, v in cut.items() if k[0] == "md9"}
    assert len(md9_full) > 3 and "/" in md9_full and "/system.slice/postgresql.service" in md9_full
    assert len(md9_cut) == 3 and "other" in md9_cut  # bounded: top 2 + other, whatever the host runs
    assert sum(md9_cut.values()) == pytest.approx(sum(md9_full.values()))
    level = series(io_families(snap), "raidtop_io_attribution")
    assert level == {("per device", "cgroup v2 io.stat"): 1.0}


def test_the_exposition_carries_them_and_promtool_accepts_it():
    metrics = MdMetrics()
    metrics.update(rebuilding_snapshot(), 0.01, 1_700_000_000.0, {})
    registry = CollectorRegistry(auto_describe=False)
    registry.register(metrics)
    text = generate_latest(registry).decode()
    names = {f.name for f in text_string_to_metric_families(text)}
    assert {"raidtop_md_cgroup_read_bytes_per_second", "raidtop_md_cgroup_write_bytes_per_second"} <= names
    if shutil.which("promtool") is None:
        pytest.skip("promtool not installed")
    result = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True, text=True)
    problems = [
        line
        for line in (result.stdout + result.stderr).splitlines()
        if "raidtop_md_cgroup" in line or "raidtop_io" in line
    ]
    assert problems == [], problems
