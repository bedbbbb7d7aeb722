"""The order of md states a rebuild goes through: on a real kernel, and in the demo's simulator.

A state is ``(members, sync action, health)`` as raidtop reads it, where
``members`` holds each member's roles under a name that does not depend on
loop numbers: ``victim`` (the member the lab fails), ``new`` (the disk it
adds) and ``kept`` (the others). Consecutive equal states are merged, so
two sequences compare the order of what happened, not how often it was
sampled. Slots are left out on purpose: a failed member keeps its slot
until md's thread removes it from the array (milliseconds later), which
says nothing about the order a user sees.

Two views: ``merged=False`` reads sysfs alone (md's machine interface, one
consistent moment per read); ``merged=True`` reads as raidtop does, mdstat
first and then sysfs. When md reaps a finished recovery between those two
reads, the merged view has one extra state, "new disk in_sync, still
recovering" (kernel_view.ghost_sync_from_mdstat), which the kernel's sysfs
never shows; whether a recording catches it depends on sample timing.
"""

from __future__ import annotations

from raidtop.collect.md.read import read_md
from raidtop.collect.md.sysfs import read_md_sysfs
from raidtop.collect.recording.roots import Recording, ReplayRoot
from raidtop.demo.root import DemoRoot
from raidtop.demo.simulator import SimulatedArray
from raidtop.model.md import MdArray

State = tuple[tuple[tuple[str, tuple[str, ...]], ...], str | None, str]


def state_of(array: MdArray, victim: str | None, new: str | None) -> State:
    """One array's state with members named by what happens to them."""

    def label(name: str) -> str:
        return "victim" if name == victim else "new" if name == new else "kept"

    members = tuple(sorted((label(m.name), m.roles) for m in array.members))
    return members, array.sync.action if array.sync is not None else None, array.health


def deduplicated(states: list[State]) -> list[State]:
    """``states`` without consecutive repeats."""
    out: list[State] = []
    for state in states:
        if not out or out[-1] != state:
            out.append(state)
    return out


def _arrays(root, merged: bool) -> list[MdArray]:
    return list(read_md(root).arrays) if merged else read_md_sysfs(root)[0]


def kernel_sequence(recording: Recording, md: str, merged: bool = False) -> list[State]:
    """The states ``md`` went through in a recording of fail → remove → add → finish.

    The victim is the first member seen faulty; the new disk is the first
    member that was not there in the first frame. ``merged``: see the module
    docstring.
    """
    root = ReplayRoot("recording")
    arrays = []
    for index in range(len(recording.frames)):
        # The files as of this frame; readers only open what the listings hold,
        # so a removed member's last recorded files are not read again.
        root.state = recording.state_at(index)
        arrays.extend(a for a in _arrays(root, merged) if a.name == md)
    first_members = {m.name for m in arrays[0].members}
    victim = next((m.name for a in arrays for m in a.members if m.is_faulty), None)
    new = next((m.name for a in arrays for m in a.members if m.name not in first_members), None)
    return deduplicated([state_of(a, victim, new) for a in arrays])


def simulator_sequence(level: str = "raid5", disks: int = 3, step_s: float = 1.0, merged: bool = False) -> list[State]:
    """The states the demo's SimulatedArray goes through for the same lab steps.

    It starts whole (its creation sync finished), fails its second member,
    removes it, adds a disk and advances ``step_s`` at a time until the
    recovery ends, reading each state back through raidtop's md reader.
    """
    sim = SimulatedArray(level=level, disks=disks)
    while sim.sync_action is not None:
        sim.advance(60.0)
    base = ReplayRoot("empty")  # no files: only the simulated array exists
    victim, new = sim.members[1].name, None

    def read() -> State:
        root = DemoRoot(base, sim)
        (array,) = [a for a in _arrays(root, merged) if a.name == sim.name]
        return state_of(array, victim, new)

    states = [read()]
    sim.fail(victim)
    states.append(read())
    sim.remove(victim)
    states.append(read())
    new = sim.add()
    states.append(read())
    while sim.sync_action is not None:
        sim.advance(step_s)
        states.append(read())
    return deduplicated(states)
