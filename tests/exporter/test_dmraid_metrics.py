"""LVM RAID volumes in their own exporter block, beside md's real arrays."""

from __future__ import annotations

import itertools
import shutil

from prometheus_client import CollectorRegistry, generate_latest

from raidtop.collect.bounded_run import Ran
from raidtop.collect.dmraid.reader import DmRaidReader
from raidtop.collect.sampler import Sampler
from raidtop.exporter.metrics import MdMetrics
from tests.exporter.test_metrics import PROJECT, samples

ROOTS = PROJECT / "tests" / "data" / "md" / "roots"


def _text(tmp_path, lines: list[str]) -> str:
    root = tmp_path / "root"
    shutil.copytree(ROOTS / "prometheus-procfs", root, symlinks=True)
    (root / "sys/module/dm_raid").mkdir(parents=True)
    feed = iter(lines)
    clock = itertools.count(1000, 10)
    sampler = Sampler(root, clock=lambda: float(next(clock)))
    sampler.dm_raid = DmRaidReader(run=lambda argv: Ran(0, next(feed).encode(), b""))
    for _ in lines[:-1]:
        sampler.sample()
    metrics = MdMetrics()
    metrics.update(sampler.sample(), 0.01, 1_700_000_000.0, {})
    registry = CollectorRegistry(auto_describe=False)
    registry.register(metrics)
    return generate_latest(registry).decode()


def test_a_rebuilding_volume_is_in_the_dmraid_block_and_not_in_md_families(tmp_path) -> None:
    text = _text(
        tmp_path,
        [
            "vg-lv: 0 2097152 raid raid1 2 aA 0/2097152 recover 0 0 -\n",
            "vg-lv: 0 2097152 raid raid1 2 aA 1048576/2097152 recover 3 0 -\n",
        ],
    )
    got = samples(text)
    assert [s.value for s in got["raidtop_dmraid_volumes"]] == [1]
    assert {(s.labels["leg"], s.labels["health"]) for s in got["raidtop_dmraid_leg_health"] if s.value == 1} == {
        ("vg-lv_rimage_0", "alive_not_in_sync"),
        ("vg-lv_rimage_1", "alive_in_sync"),
    }
    assert [s.value for s in got["raidtop_dmraid_degraded_legs"]] == [1]
    assert [(s.labels["action"], s.value) for s in got["raidtop_dmraid_sync_completed_bytes"]] == [
        ("recover", 512 * 1048576)
    ]
    assert [s.value for s in got["raidtop_dmraid_mismatch_sectors"]] == [3]
    assert got["raidtop_dmraid_sync_eta_seconds"][0].value > 0
    md_arrays = {s.labels["array"] for s in got["raidtop_md_state"]}
    assert "vg-lv" not in md_arrays and md_arrays  # procfs's md arrays are still there, alone
    assert [s.value for s in got["raidtop_md_arrays"]] == [len(md_arrays)]
