"""Who is doing I/O: per-process counters and per-cgroup per-device accounting.

:class:`ProcessWatch` is what the sampler owns. It reads only what the
screen shows: /proc for every process only while the Processes panel is
visible (thousands of small reads), the cgroup tree while anything shows
per-device attribution (that panel, an array's detail, the exporter).
"""

from __future__ import annotations

from raidtop.collect.processes.cgroup_io import CgroupIoReader, parse_blkio, parse_io_stat
from raidtop.collect.processes.procfs import ProcessTable, parse_cgroup, parse_io, parse_stat
from raidtop.collect.source import Root
from raidtop.model.processes import CgroupReading, ProcCounters

__all__ = ["ProcessWatch", "parse_blkio", "parse_cgroup", "parse_io", "parse_io_stat", "parse_stat"]


class ProcessWatch:
    """The processes and cgroup readers, switched on by what is on screen."""

    def __init__(self, processes: bool = False, units: bool = False) -> None:
        self.want_processes = processes
        """Read /proc/PID/io of every process each sample (the Processes panel is shown)."""
        self.want_units = units
        """Read the cgroup tree's per-device counters each sample."""
        self._table = ProcessTable()
        self._cgroups = CgroupIoReader()

    def read(self, root: Root, notes: list[str]) -> tuple[tuple[ProcCounters, ...] | None, CgroupReading | None, str]:
        """(processes or ``None``, cgroup counters or ``None``, why no per-device numbers)."""
        processes = cgroups = None
        # Through the root: a replay reads what the live run read at that frame.
        want_processes = root.shown("processes", self.want_processes)
        want_units = root.shown("units", self.want_units or want_processes)
        if want_processes:
            processes, more = self._table.read(root)
            notes.extend(more)
        else:
            self._table.reset()  # a PID seen again after the panel was hidden is looked at afresh
        if not want_units:
            return processes, None, ""
        cgroups, more = self._cgroups.read(root)
        notes.extend(more)
        return processes, cgroups, self._cgroups.absent_reason or ""

    def reset(self) -> None:
        """Forget everything read (a fresh start against the same or another root)."""
        self._table.reset()
        self._cgroups.reset()
