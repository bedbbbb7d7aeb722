"""A Root that shows a simulated array on top of another root's files."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from raidtop.collect.source import Root, SourceError
from raidtop.demo.files import diskstats_lines, mdstat_block, sysfs_files
from raidtop.demo.processes import DemoLoad
from raidtop.demo.smart import DemoSmart
from raidtop.demo.simulator import SimulatedArray

if TYPE_CHECKING:
    from raidtop.collect.held_records import HeldRecords

_PERSONALITIES = "Personalities : [raid1] [raid6] [raid5] [raid4] \n"


class DemoRoot(Root):
    """Answers from ``base`` (a replayed recording or a fixture), plus the simulated array.

    /proc/uptime comes from the demo's own clock so intervals stay positive
    while the base recording loops: the time of the last tick, when the
    simulated counters were made.
    """

    def __init__(
        self,
        base: Root,
        sim: SimulatedArray,
        clock: Callable[[], float] = time.monotonic,
        smart: DemoSmart | None = None,
        load: DemoLoad | None = None,
    ) -> None:
        super().__init__("demo")
        self.base = base
        self.smart = smart
        self.sim = sim
        self.load = load
        """The simulated services' processes and cgroups (``None``: the base root's own)."""
        self._clock = clock
        self._started = round(clock(), 2)  # in hundredths, as the ticks count (DemoController.tick)
        self.counted_at: float | None = None
        """The demo clock's time the simulated counters were last advanced to (None: not yet)."""
        self._files: dict[str, str] = {}
        self._links: dict[str, str] = {}
        self._dirs: dict[str, list[str]] = {}
        self.refresh()

    def smart_answers(self, results: dict) -> dict:
        """The simulated disks' readings (the demo never runs smartctl)."""
        return {} if self.smart is None else self.smart.reading()[0]

    def smart_disk_of(self) -> dict[str, tuple[str, ...]] | None:
        return None if self.smart is None else self.smart.reading()[1]

    @property
    def is_live(self) -> bool:
        return False

    def refresh(self) -> None:
        """Regenerate the simulated files from the simulator's current state."""
        self._files, self._links = sysfs_files(self.sim)
        dirs: dict[str, set[str]] = {}
        for path in list(self._files) + list(self._links):
            parent, _, leaf = path.rpartition("/")
            while parent.startswith(f"/sys/block/{self.sim.name}"):
                dirs.setdefault(parent, set()).add(leaf)
                parent, _, leaf = parent.rpartition("/")
        if self.load is not None:
            files, listings = self.load.files()
            self._files.update(files)
            for path, entries in listings.items():
                dirs.setdefault(path, set()).update(entries)
        self._dirs = {k: sorted(v) for k, v in dirs.items()}

    def read_text(self, abs_path: str) -> str:
        if abs_path in self._files:
            return self._files[abs_path]
        if abs_path == "/proc/uptime":
            # The kernel's counters and uptime are of one instant; here that is the last tick (the
            # counters do not move between ticks), not the read: a read late by varying amounts
            # made intervals shorter than the busy time counted in them (util over 100 %).
            at = self._clock() if self.counted_at is None else self.counted_at
            return f"{1000.0 + at - self._started:.2f} 0.00\n"
        if abs_path == "/proc/mdstat":
            return self._mdstat()
        if abs_path == "/proc/diskstats":
            try:
                base = self.base.read_text(abs_path)
            except SourceError:
                base = ""
            simulated = diskstats_lines(self.sim)
            # The simulated devices replace the recording's lines of the same name: the kernel
            # lists a device once, and with two lines the grid and Explain each took another one.
            names = {line.split()[2] for line in simulated.splitlines()}
            kept = [line for line in base.splitlines(keepends=True) if not names.intersection(line.split()[2:3])]
            return "".join(kept) + simulated
        return self.base.read_text(abs_path)

    def read_optional(
        self, abs_path: str, *, single_record: bool = False, held: HeldRecords | None = None
    ) -> str | None:
        try:
            return self.read_text(abs_path)
        except SourceError:
            return None

    def listdir(self, abs_path: str) -> list[str]:
        if abs_path in self._dirs:
            return list(self._dirs[abs_path])
        if abs_path == "/sys/block":
            try:
                entries = self.base.listdir(abs_path)
            except SourceError:
                entries = []
            return sorted(set(entries) | {self.sim.name})
        return self.base.listdir(abs_path)

    def exists(self, abs_path: str) -> bool:
        if abs_path in self._files or abs_path in self._dirs or abs_path in self._links:
            return True
        if abs_path == f"/sys/block/{self.sim.name}":
            return True
        return self.base.exists(abs_path)

    def readlink(self, abs_path: str) -> str | None:
        if abs_path in self._links:
            return self._links[abs_path]
        return self.base.readlink(abs_path)

    def _mdstat(self) -> str:
        try:
            base = self.base.read_text("/proc/mdstat")
        except SourceError:
            base = _PERSONALITIES + "unused devices: <none>\n"
        head, marker, tail = base.partition("unused devices:")
        if not marker:
            return base + mdstat_block(self.sim)
        return head + mdstat_block(self.sim) + "\n" + marker + tail
