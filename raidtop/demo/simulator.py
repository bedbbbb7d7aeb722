"""A simulated md array for ``raidtop --demo``, following the kernel's real order.

Nothing here touches the system. The simulator keeps the state md keeps
(member roles, slots, the sync in progress) and writes it out in the exact
formats of /sys/block/mdX/md/* and /proc/mdstat, so raidtop's ordinary
readers, events and panels show it as they would a real array. The order of
states is the one a real 6.1 kernel shows (checked against traces recorded
in the VM harness): a failed member turns ``faulty`` and leaves its slot; a
removed one disappears; an added disk is a ``spare`` that takes the missing
slot and is recovered onto (``recover``), then turns ``in_sync``. A new raid1
starts with ``resync``, a new raid5 with ``recover`` onto its last disk, and
a raid5 that loses a second member is ``broken``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

SECTOR = 512


class SimulationRefused(Exception):
    """What md (and mdadm) would refuse, with mdadm's reason in words."""


@dataclass
class SimMember:
    """One member disk of the simulated array."""

    name: str
    slot: int | None
    roles: list[str]
    number: int
    """Descriptor number, mdstat's [N]."""
    read_sectors: int = 0
    write_sectors: int = 0
    read_ios: int = 0
    write_ios: int = 0
    busy_ms: int = 0
    read_ms: int = 2
    """How long each read takes (diskstats' read ticks per read): a slow disk has more."""
    write_ms: int = 3
    """How long each write takes (diskstats' write ticks per write)."""


@dataclass
class SimulatedArray:
    """An md array that exists only in memory, advanced by :meth:`advance`."""

    name: str = "md9"
    level: str = "raid5"
    disks: int = 3
    component_kib: int = 1024 * 1024
    chunk_kib: int = 512
    speed_limit_kib_s: int = 20_000
    members: list[SimMember] = field(default_factory=list)
    sync_action: str | None = None
    sync_done_kib: float = 0.0
    last_sync_action: str = "none"
    broken: bool = False
    reaping: bool = False
    """The sync finished but md has not reaped it yet (see :meth:`advance`)."""
    retired: list[SimMember] = field(default_factory=list)
    """Removed members: their loop devices stay attached, as after a real --remove."""
    _next_loop: int = 20
    _next_number: int = 0

    def __post_init__(self) -> None:
        if not self.members:
            for slot in range(self.disks):
                self.members.append(SimMember(self._new_loop(), slot, ["in_sync"], self._new_number()))
            if self.level == "raid1":
                self._start("resync")
            elif self.level in ("raid4", "raid5", "raid6"):
                # mdadm builds raid5 degraded and recovers onto the last disk.
                last = self.members[-1]
                last.roles = ["spare"]
                self._start("recover")

    # ------------------------------------------------------------ queries

    @property
    def tolerance(self) -> int:
        """How many members the level may lose."""
        return {"raid1": self.disks - 1, "raid5": 1, "raid4": 1, "raid6": 2}.get(self.level, 0)

    @property
    def missing_slots(self) -> list[int]:
        """Slots with no working member (in sync, or being rebuilt onto)."""
        held = {m.slot for m in self.members if m.slot is not None and "faulty" not in m.roles}
        return [s for s in range(self.disks) if s not in held]

    @property
    def degraded(self) -> int:
        """md's ``degraded``: slots without an in-sync member."""
        in_sync = {m.slot for m in self.members if m.slot is not None and m.roles == ["in_sync"]}
        return self.disks - len(in_sync)

    def member(self, name: str) -> SimMember:
        """The member called ``name``; SimulationRefused if there is none."""
        for m in self.members:
            if m.name == name:
                return m
        raise SimulationRefused(f"{name} is not a member of {self.name}")

    # ------------------------------------------------------------ lab actions

    def fail(self, name: str) -> None:
        """``mdadm --fail``: the member turns faulty and leaves its slot."""
        member = self.member(name)
        if "faulty" in member.roles:
            raise SimulationRefused(f"{name} is already faulty")
        self._reap()
        working = [m for m in self.members if m.roles == ["in_sync"]]
        if self.level == "raid1" and member.roles == ["in_sync"] and len(working) == 1:
            raise SimulationRefused(
                f"mdadm: set device faulty failed for {name}: Device or resource busy "
                "(md keeps the last working mirror)"
            )
        member.roles = ["faulty"]
        member.slot = None
        if self.sync_action is not None:
            # md aborts a running sync when a member fails; it restarts if it can.
            self.sync_action = None
        if self.degraded > self.tolerance:
            self.broken = True
            return
        self._use_spare()

    def remove(self, name: str) -> None:
        """``mdadm --remove``: only a faulty or idle spare member may go."""
        member = self.member(name)
        self._reap()
        if member.roles == ["in_sync"] or (member.slot is not None and "spare" in member.roles):
            raise SimulationRefused(f"mdadm: hot remove failed for {name}: Device or resource busy")
        self.members.remove(member)
        member.roles, member.slot = [], None
        self.retired.append(member)

    def add(self) -> str:
        """``mdadm --add`` of a fresh disk: a spare, rebuilt onto if a slot is missing."""
        if self.broken:
            raise SimulationRefused(f"{self.name} is broken: md cannot rebuild onto a new disk")
        self._reap()
        member = SimMember(self._new_loop(), None, ["spare"], self._new_number())
        self.members.append(member)
        self._use_spare()
        return member.name

    # ------------------------------------------------------------ time

    def advance(self, seconds: float) -> None:
        """Move the sync forward at the speed limit, and count the I/O it does.

        As on a real 6.1 kernel (traced in the VM harness), a finished
        recovery lingers for a moment: the new member is already in_sync and
        sysfs sync_action reads idle, but sync_completed still has numbers and
        /proc/mdstat still prints the recovery line, until md reaps the sync
        thread. The next call clears it.
        """
        if seconds <= 0:
            return
        if self.reaping:
            self.reaping = False
            self.last_sync_action = self.sync_action or "none"
            self.sync_action = None
            self.sync_done_kib = 0.0
            self._use_spare()
            return
        if self.sync_action is None:
            return
        step = min(self.speed_limit_kib_s * seconds, self.component_kib - self.sync_done_kib)
        self.sync_done_kib += step
        sectors = int(step * 1024 / SECTOR)
        readers = [m for m in self.members if m.roles == ["in_sync"]]
        writers = [m for m in self.members if m.slot is not None and "spare" in m.roles]
        for m in readers:
            m.read_sectors += sectors
            m.read_ios += max(1, sectors // 256)
            m.busy_ms += int(seconds * 600)
        for m in writers:
            m.write_sectors += sectors
            m.write_ios += max(1, sectors // 256)
            m.busy_ms += int(seconds * 900)
        if self.sync_done_kib >= self.component_kib:
            self._finish()

    def settle(self) -> None:
        """Finish the running sync at once, as if it had run to the end and been reaped."""
        if self.sync_action is not None and not self.broken:
            self._finish()
            self._reap()
            self._use_spare()

    @property
    def sync_speed_kib_s(self) -> int | None:
        """The current sync speed (the configured limit while one runs)."""
        return self.speed_limit_kib_s if self.sync_action and not self.reaping else None

    # ------------------------------------------------------------ internals

    def _reap(self) -> None:
        """Finish reaping a completed sync before a new action changes things."""
        if self.reaping:
            self.reaping = False
            self.last_sync_action = self.sync_action or "none"
            self.sync_action = None
            self.sync_done_kib = 0.0

    def _use_spare(self) -> None:
        missing = self.missing_slots
        if not missing or self.broken:
            return
        spare = next((m for m in self.members if m.roles == ["spare"] and m.slot is None), None)
        if spare is None:
            return
        spare.slot = missing[0]
        self._start("recover")

    def _start(self, action: str) -> None:
        self.sync_action = action
        self.sync_done_kib = 0.0

    def _finish(self) -> None:
        if self.sync_action == "recover":
            for m in self.members:
                if m.slot is not None and "spare" in m.roles:
                    m.roles = ["in_sync"]
        self.sync_done_kib = float(self.component_kib)
        self.reaping = True

    def _new_loop(self) -> str:
        name = f"loop{self._next_loop}"
        self._next_loop += 1
        return name

    def _new_number(self) -> int:
        number = self._next_number
        self._next_number += 1
        return number
