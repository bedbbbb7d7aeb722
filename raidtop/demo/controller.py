"""Drives the demo: advances the simulated array and the recorded base each tick."""

from __future__ import annotations

import time
from pathlib import Path

from raidtop.actions.member_actions import ActionRefused
from raidtop.collect.recording import ReplayRoot, read_recording
from raidtop.collect.source import Root
from raidtop.demo.root import DemoRoot
from raidtop.demo.simulator import SimulatedArray, SimulationRefused
from raidtop.demo.smart import DemoSmart

DEMO_VERBS = frozenset({"fail", "remove", "add"})
"""The member verbs the simulated array implements; the others' keys stay hidden."""
BUNDLED_REBUILD = Path(__file__).resolve().parent / "data" / "rebuild.xz"
"""A raid5 rebuild recorded from a real 6.1 kernel in the VM harness."""


class LoopingReplay:
    """A ReplayRoot that moves one recorded frame per tick and starts over at the end."""

    def __init__(self, path: Path) -> None:
        self.recording = read_recording(path)
        self.root = ReplayRoot("recorded rebuild")
        self.index = -1

    def tick(self) -> None:
        """Show the next recorded frame (the first again after the last)."""
        frames = self.recording.frames
        if not frames:
            return
        self.index = (self.index + 1) % len(frames)
        if self.index == 0:
            self.root.state = {}
        self.root.state.update(frames[self.index].delta)


class DemoController:
    """The simulated array, its overlay root, and the lab actions a user may take."""

    simulated = True
    """Nothing real changes, so the member keys act without a confirmation (same flow otherwise)."""

    def __init__(self, level: str = "raid5", disks: int = 3, speed_limit_kib_s: int = 20_000,
                 recording: Path | None = BUNDLED_REBUILD) -> None:
        self.sim = SimulatedArray(level=level, disks=disks, speed_limit_kib_s=speed_limit_kib_s)
        self.replay = LoopingReplay(recording) if recording is not None and recording.exists() else None
        base = self.replay.root if self.replay is not None else Root("/")
        if self.replay is not None:
            self.replay.tick()
        self.smart = DemoSmart(self.sim)
        """The simulated disks' SMART readings (the demo root answers the sampler's SMART with them)."""
        self.root = DemoRoot(base, self.sim, smart=self.smart)
        self._last = time.monotonic()

    @property
    def base_description(self) -> str:
        """Where the non-simulated numbers come from, in words."""
        if self.replay is not None:
            return f"a rebuild recorded from a real kernel ({self.replay.recording.header.get('host', '?')})"
        return "this machine's own /proc (no recorded rebuild is bundled)"

    def tick(self) -> None:
        """Advance the simulation by the real time since the last tick (sampler thread)."""
        now = time.monotonic()
        self.sim.advance(now - self._last)
        self._last = now
        if self.replay is not None:
            self.replay.tick()
        self.root.refresh()

    def handles(self, array: str) -> bool:
        """True for the simulated array (the only one the demo may change)."""
        return array == self.sim.name

    def offered(self, array: str) -> frozenset[str]:
        """fail, remove and add on the simulated array (all the simulation knows how to do)."""
        return DEMO_VERBS if self.handles(array) else frozenset()

    def command(self, verb: str, array: str, member: str | None) -> str:
        """The mdadm command the action simulates."""
        if verb == "add":
            return f"mdadm /dev/{array} --add /dev/loop{self.sim._next_loop}"
        if verb in ("fail", "remove") and member:
            return f"mdadm /dev/{array} --{verb} /dev/{member}"
        raise ActionRefused(f"the demo simulates fail, remove and add; not {verb.replace('_', ' ')}")

    def run(self, verb: str, array: str, member: str | None) -> str:
        """Apply the action to the simulated array; SimulationRefused becomes ActionRefused."""
        command = self.command(verb, array, member)
        try:
            if verb == "add":
                self.sim.add()
            elif verb == "fail":
                self.sim.fail(member)
            else:
                self.sim.remove(member)
        except SimulationRefused as exc:
            raise ActionRefused(str(exc)) from None
        self.root.refresh()
        return command
