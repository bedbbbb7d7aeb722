"""A real LVM raid1 leg failing, recovering and being checked (VM capture), raidtop beside lvs at each step."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

from raidtop.collect.bounded_run import Ran
from raidtop.collect.dmraid.reader import DmRaidReader
from raidtop.collect.sampler import Sampler

VM = Path(__file__).resolve().parents[2] / "data" / "dmraid" / "vm-rebuild"
STEPS = sorted((p.name.split(".")[1] for p in VM.glob("status.*")), key=int)


def _lvs(step: str) -> dict:
    return json.loads((VM / f"lvs.{step}.json").read_text())["report"][0]["lv"][0]


def _run_all(tmp_path) -> list:
    (tmp_path / "sys/module/dm_raid").mkdir(parents=True)
    feed = iter(STEPS)
    clock = itertools.count(1000, 2)  # the capture sampled every 2 s
    sampler = Sampler(tmp_path, clock=lambda: float(next(clock)))
    sampler.dm_raid = DmRaidReader(run=lambda argv: Ran(0, (VM / f"status.{next(feed)}").read_bytes(), b""))
    return [sampler.sample() for _ in STEPS]


def test_events_follow_md_rules_through_fail_recover_and_check(tmp_path) -> None:
    events = [(step, e.event) for step, snap in zip(STEPS, _run_all(tmp_path)) for e in snap.events]
    assert events == [
        ("01", "Fail"),
        ("01", "DegradedArray"),
        ("10", "RebuildStarted"),
        ("13", "Rebuild20"),
        ("15", "Rebuild40"),
        ("17", "Rebuild60"),
        ("19", "RebuildFinished"),
        ("19", "SpareActive"),
        ("80", "CheckStarted"),
        ("91", "CheckFinished"),
    ]


def test_health_and_progress_agree_with_lvs_at_each_step(tmp_path) -> None:
    snaps = _run_all(tmp_path)
    for i, (step, snap) in enumerate(zip(STEPS, snaps)):
        (array,) = snap.arrays
        lvs = _lvs(step)
        # lvs says "refresh needed" exactly while the kernel shows the leg dead.
        assert (lvs["lv_health_status"] == "refresh needed") == any(m.is_faulty for m in array.members)
        if array.sync is None:
            assert lvs["raid_sync_action"] == "idle" and lvs["copy_percent"] == "100.00"
            continue
        # lvs ran just after dmsetup: its percent lies between raidtop's at this step and at the next.
        nxt = snaps[i + 1].arrays[0].sync
        upper = 100.0 if nxt is None else nxt.percent
        assert array.sync.percent <= float(lvs["copy_percent"]) <= upper
        assert lvs["raid_sync_action"] in (array.sync.action, "idle")
    recovering = [s.arrays[0] for s in snaps if s.arrays[0].sync and s.arrays[0].sync.action == "recover"]
    assert all(a.health == "degraded" and a.status == "U_" for a in recovering)
    assert all(a.sync.eta_s is not None for a in recovering[1:])  # an ETA from the second reading on
