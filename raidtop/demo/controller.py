"""Drives the demo: advances the simulated array and the recorded base each tick."""

from __future__ import annotations

import time
from pathlib import Path
from collections.abc import Callable

from raidtop.actions.member_actions import ActionRefused
from raidtop.collect.recording.roots import ReplayRoot, read_recording
from raidtop.collect.source import Root
from raidtop.demo.bundled import BUNDLED_REBUILD
from raidtop.demo.processes import DemoLoad
from raidtop.demo.root import DemoRoot
from raidtop.demo.simulator import SimulatedArray, SimulationRefused
from raidtop.demo.smart import DESKTOP_INDEX, DemoSmart
from raidtop.model.member_verbs import MEMBER_KEYS
from raidtop.presentation.md import EMPTY_SLOT_PREFIX

DEMO_VERBS = frozenset({"fail", "remove", "add"})
"""The member verbs the simulated array implements; the others' keys stay hidden."""
SPEED_LIMITS_KIB_S = tuple(mib * 1024 for mib in (2, 5, 10, 20, 50, 100))
"""The simulated array's sync speed limits the demo's speed keys step through (md's sync_speed_max, KiB/s):
2 to 100 MiB/s, so the demo's words are whole numbers."""
START_SPEED_KIB_S = 20 * 1024
SLOW_READ_MS = 40
"""Each read of the demo's slow member, in ms (its siblings take 2): over 3× and ≥ 10 ms, so marked slow."""


class RecordedBase:
    """A ReplayRoot held at its first frame until asked to play, then one frame per tick; it holds the last one.

    Nothing on the stage happens by itself: the recorded array failed 2 s
    after start in a class that had not asked for it. Played once: starting
    over made it fail and rebuild again every minute and its counters run backwards.
    """

    def __init__(self, path: Path) -> None:
        self.recording = read_recording(path)
        self.root = ReplayRoot("recorded rebuild")
        self.index = -1
        self.playing = False
        """Asked to play (:meth:`play`); until then the first frame stays."""

    @property
    def finished(self) -> bool:
        """True once the last recorded frame is shown (it stays shown)."""
        return self.index >= len(self.recording.frames) - 1

    def tick(self) -> None:
        """Show the next recorded frame (the first one until played); after the last, nothing changes."""
        if self.finished or (self.index >= 0 and not self.playing):
            return
        self.index += 1
        self.root.state.update(self.recording.frames[self.index].delta)

    def play(self) -> None:
        """Play from here (the first frame) to the end, one frame per tick."""
        self.playing = True

    def restart(self) -> None:
        """Back to the first frame, held (the demo's reset)."""
        self.index = -1
        self.playing = False
        self.root.state = {}
        self.tick()


class DemoController:
    """The simulated array, its overlay root, and the lab actions a user may take.

    ``clock`` is the demo's time (seconds, monotonic): tests drive it instead
    of sleeping. The recorded rebuild plays only with ``play_recording``
    (``--demo-recording``): nothing on the stage happens by itself.
    """

    simulated = True
    """Nothing real changes, so the member keys act without a confirmation (same flow otherwise)."""

    def __init__(
        self,
        level: str = "raid5",
        disks: int = 3,
        speed_limit_kib_s: int = START_SPEED_KIB_S,
        recording: Path | None = BUNDLED_REBUILD,
        clock: Callable[[], float] = time.monotonic,
        play_recording: bool = False,
    ) -> None:
        self._shape = (level, disks, speed_limit_kib_s)
        self._play_recording = play_recording
        self._clock = clock
        self.sim = self._new_array()
        self.replay = RecordedBase(recording) if recording is not None and recording.exists() else None
        base = self.replay.root if self.replay is not None else Root("/")
        if self.replay is not None:
            self.replay.tick()  # its first frame, held until played
            if play_recording:
                self.replay.play()
        self.smart = DemoSmart(self.sim)
        """The simulated disks' SMART readings (the demo root answers the sampler's SMART with them)."""
        self.load = DemoLoad(self.sim)
        """A database and a backup loading the array (the Processes panel's story)."""
        self.root = DemoRoot(base, self.sim, clock=clock, smart=self.smart, load=self.load)
        self._last = round(clock(), 2)

    def _new_array(self) -> SimulatedArray:
        level, disks, speed = self._shape
        sim = SimulatedArray(level=level, disks=disks, speed_limit_kib_s=speed)
        # The desktop disk (SCT ERC off, the audit's erc-mismatch) is also the slow one: its reads take 40 ms
        # against its siblings' 2 ms, so the member grid marks it slow long before anything fails.
        if len(sim.members) > DESKTOP_INDEX:
            sim.members[DESKTOP_INDEX].read_ms = SLOW_READ_MS
        # The stage starts from a built array: its initial sync would be a
        # rebuild (and a "rebuild finished" toast) nobody in the room asked for.
        sim.settle()
        return sim

    @property
    def recording_state(self) -> str | None:
        """The recorded base: ``held`` (at its start), ``playing``, ``finished``, or ``None`` (none bundled)."""
        if self.replay is None:
            return None
        if not self.replay.playing:
            return "held"
        return "finished" if self.replay.finished else "playing"

    @property
    def base_description(self) -> str:
        """Where the non-simulated numbers come from, in words."""
        if self.replay is None:
            return "this machine's own /proc (no recorded rebuild is bundled)"
        host = self.replay.recording.header.get("host", "?")
        seconds = len(self.replay.recording.frames)
        said = {
            "held": "held at its start, before md6 fails",
            "playing": f"playing once ({seconds} s): md6's failure and rebuild are history, not this machine",
            "finished": "played to its end and held there",
        }[self.recording_state or "held"]
        return f"a rebuild recorded on a real kernel ({host}), {said}"

    def tick(self) -> None:
        """Advance the simulation by the demo clock's time since the last tick (sampler thread)."""
        # In hundredths, as /proc/uptime prints it: the busy time counted below then fits the
        # interval the sampler works out from uptime exactly (0.01 s off at 0.5 s is 2 % util).
        now = round(self._clock(), 2)
        seconds = now - self._last
        busy_before = {m.name: m.busy_ms for m in self.sim.members}
        self.load.advance(seconds)
        self.sim.advance(seconds)
        # io_ticks counts time with a request in flight: the sync's and the services' requests
        # overlap, so together they keep a disk busy for at most the time that passed.
        for m in self.sim.members:
            before = busy_before.get(m.name, m.busy_ms)
            m.busy_ms = min(m.busy_ms, before + max(0, int(seconds * 1000)))
        self._last = now
        self.root.counted_at = now
        if self.replay is not None:
            self.replay.tick()
        self.root.refresh()

    def reset(self) -> None:
        """Back to the start: a whole simulated array (also after ``broken``), the recording at its start.

        The caller starts a fresh Sampler too: the counters go back to where
        they began, which an old sampler would report as going backwards.
        """
        self.sim = self._new_array()
        self.root.sim = self.sim
        self.load = self.root.load = DemoLoad(self.sim)
        # Healthy disks again: a disk made to go bad (B) belongs to the old stage.
        self.smart = self.root.smart = DemoSmart(self.sim)
        if self.replay is not None:
            self.replay.restart()
            if self._play_recording:
                self.replay.play()
        self.root.refresh()

    def change_speed(self, direction: int) -> int:
        """Step the simulated array's sync speed limit up (+1) or down (-1); the new limit in KiB/s."""
        current = self.sim.speed_limit_kib_s
        if direction > 0:
            limit = next((s for s in SPEED_LIMITS_KIB_S if s > current), SPEED_LIMITS_KIB_S[-1])
        else:
            limit = next((s for s in reversed(SPEED_LIMITS_KIB_S) if s < current), SPEED_LIMITS_KIB_S[0])
        self.sim.speed_limit_kib_s = limit
        self.root.refresh()
        return limit

    def handles(self, array: str) -> bool:
        """True for the simulated array (the only one the demo may change)."""
        return array == self.sim.name

    def offered(self, array: str) -> frozenset[str]:
        """fail, remove and add on the simulated array (all the simulation knows how to do)."""
        return DEMO_VERBS if self.handles(array) else frozenset()

    def command(self, verb: str, array: str, member: str | None) -> str:
        """The mdadm command the action simulates; ActionRefused with a sentence otherwise."""
        if not self.handles(array):
            raise ActionRefused(f"{array} is a recording: the demo changes only its simulated array {self.sim.name}")
        if verb not in DEMO_VERBS:
            what = next((k.tooltip.partition(" (")[0].lower() for k in MEMBER_KEYS if k.verb == verb), "do that")
            raise ActionRefused(f"the demo's simulated array can fail, remove and add disks; it cannot {what}")
        if verb == "add":
            return f"mdadm /dev/{array} --add /dev/loop{self.sim._next_loop}"
        if member and member.startswith(EMPTY_SLOT_PREFIX):
            raise ActionRefused(
                f"slot {member.removeprefix(EMPTY_SLOT_PREFIX)} of {array} is empty: "
                f"there is no disk there to {verb} (a: add one)"
            )
        if not member:
            raise ActionRefused(f"highlight a member of {array} to {verb} it")
        return f"mdadm /dev/{array} --{verb} /dev/{member}"

    def run(self, verb: str, array: str, member: str | None) -> str:
        """Apply the action to the simulated array; SimulationRefused becomes ActionRefused."""
        command = self.command(verb, array, member)
        try:
            if verb == "add":
                self.sim.add()
            else:
                assert member is not None, "command() refuses fail and remove without a member"
                if verb == "fail":
                    self.sim.fail(member)
                else:
                    self.sim.remove(member)
        except SimulationRefused as exc:
            raise ActionRefused(str(exc)) from None
        self.root.refresh()
        return command
