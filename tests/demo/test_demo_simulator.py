"""The demo's simulated array, read back through raidtop's real md readers."""

from __future__ import annotations

from pathlib import Path

import pytest

from raidtop.collect.md.read import read_md
from raidtop.collect.sampler import Sampler
from raidtop.collect.source import Root
from raidtop.demo.root import DemoRoot
from raidtop.demo.simulator import SimulatedArray, SimulationRefused

EMPTY = Path(__file__).resolve().parent.parent / "data" / "ui" / "root1"


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def read_array(sim: SimulatedArray):
    root = DemoRoot(Root(EMPTY), sim)
    (array,) = [a for a in read_md(root).arrays if a.name == sim.name]
    return array


def finish_sync(sim: SimulatedArray) -> None:
    while sim.sync_action is not None:
        sim.advance(10.0)


def roles(array) -> dict[str, tuple[str, ...]]:
    return {m.name: m.roles for m in array.members}


def test_new_raid5_recovers_onto_its_last_disk_and_raid1_resyncs():
    raid5 = read_array(SimulatedArray(level="raid5", disks=3))
    assert raid5.sync.action == "recover" and raid5.health == "degraded"
    assert raid5.status_string == "[UU_]" and raid5.counts_string == "[3/2]"
    raid1 = read_array(SimulatedArray(level="raid1", disks=2))
    assert raid1.sync.action == "resync" and raid1.status_string == "[UU]"


def test_fail_remove_add_follows_the_kernels_order():
    sim = SimulatedArray(level="raid5", disks=3)
    finish_sync(sim)
    assert read_array(sim).health == "ok"
    victim = sim.members[1].name
    sim.fail(victim)
    array = read_array(sim)
    assert roles(array)[victim] == ("faulty",) and array.health == "degraded" and array.sync is None
    assert next(m for m in array.members if m.name == victim).slot is None
    with pytest.raises(SimulationRefused, match="busy"):
        sim.remove(sim.members[0].name)  # an in-sync member cannot be removed
    sim.remove(victim)
    assert victim not in roles(read_array(sim))
    new = sim.add()
    array = read_array(sim)
    assert roles(array)[new] == ("spare",) and array.sync.action == "recover"
    assert next(m for m in array.members if m.name == new).slot == 1
    sim.advance(5.0)
    array = read_array(sim)
    assert array.sync.done_kib == 5 * sim.speed_limit_kib_s  # progress at the configured limit
    finish_sync(sim)
    array = read_array(sim)
    assert roles(array)[new] == ("in_sync",) and array.health == "ok" and array.status_string == "[UUU]"


def test_second_raid5_failure_is_broken_and_raid1_keeps_its_last_mirror():
    sim = SimulatedArray(level="raid5", disks=3)
    finish_sync(sim)
    sim.fail(sim.members[0].name)
    sim.fail(sim.members[1].name)
    array = read_array(sim)
    assert array.state == "broken" and array.health == "failed"
    with pytest.raises(SimulationRefused):
        sim.add()
    mirror = SimulatedArray(level="raid1", disks=2)
    finish_sync(mirror)
    mirror.fail(mirror.members[0].name)
    with pytest.raises(SimulationRefused, match="last working mirror"):
        mirror.fail(mirror.members[1].name)


def test_hot_spare_takes_over_at_once():
    sim = SimulatedArray(level="raid5", disks=3)
    finish_sync(sim)
    spare = sim.add()
    assert read_array(sim).spare_count == 1
    sim.fail(sim.members[0].name)
    array = read_array(sim)
    assert array.sync.action == "recover" and next(m for m in array.members if m.name == spare).slot == 0


def test_sampler_sees_events_and_member_io_during_the_rebuild():
    clock = Clock()
    sim = SimulatedArray(level="raid1", disks=2)
    finish_sync(sim)
    root = DemoRoot(Root(EMPTY), sim, clock=clock)
    sampler = Sampler(root, clock=clock)
    sampler.sample()
    sim.fail(sim.members[1].name)
    root.refresh()
    clock.now += 1
    events = [e.event for e in sampler.sample().events]
    assert events == ["Fail", "DegradedArray"]
    sim.add()
    root.refresh()
    clock.now += 1
    sampler.sample()
    sim.advance(1.0)
    root.refresh()
    clock.now += 1
    snap = sampler.sample()
    io = {d.name: d for d in snap.disks}
    reader, writer = sim.members[0].name, sim.members[-1].name
    assert io[reader].rkib_s == pytest.approx(sim.speed_limit_kib_s, rel=0.01)
    assert io[writer].wkib_s == pytest.approx(sim.speed_limit_kib_s, rel=0.01)
