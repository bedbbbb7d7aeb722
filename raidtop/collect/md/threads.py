"""Find md's kernel threads (md0_raid1, md0_resync) and read their CPU ticks.

On fast NVMe arrays md's own threads can be the bottleneck (raid5/6 parity in
one thread per array), so the detail screen shows their CPU use. Scanning
/proc for them is the costly part, so the scan runs only when the set of
arrays or their sync state changes; each tick then reads one stat file per
thread.
"""

from __future__ import annotations

import re

from raidtop.collect.source import Root, SourceError

# mdX_raidN handles I/O; mdX_resync runs resync/recovery/check/reshape.
_MD_THREAD = re.compile(r"^(md[\w.]*?)_(raid\d+|resync|reshape|recover|multipath|linear)$")


def find_md_threads(root: Root) -> dict[int, tuple[str, str]]:
    """Map PID to (array, thread name) for every md kernel thread under ``root``."""
    try:
        entries = root.listdir("/proc")
    except SourceError:
        return {}
    found: dict[int, tuple[str, str]] = {}
    for entry in entries:
        if not entry.isdigit():
            continue
        comm = root.read_optional(f"/proc/{entry}/comm")
        if not comm:
            continue
        match = _MD_THREAD.match(comm.strip())
        if match:
            found[int(entry)] = (match.group(1), comm.strip())
    return found


def read_thread_ticks(root: Root, pids: dict[int, tuple[str, str]]) -> dict[int, int]:
    """utime + stime (clock ticks) of each thread that still exists."""
    ticks: dict[int, int] = {}
    for pid in pids:
        text = root.read_optional(f"/proc/{pid}/stat")
        if not text:
            continue
        # The command name is in parentheses and may contain spaces.
        fields = text.rpartition(")")[2].split()
        try:
            ticks[pid] = int(fields[11]) + int(fields[12])
        except (IndexError, ValueError):
            continue
    return ticks
