"""Build small /sys and /proc trees for the fio guard, stack and sweep tests.

The layout copies the kernel's: devices live under sys/devices/virtual/block,
and sys/block, sys/class/block and sys/dev/block are symlinks into it, so the
readers resolve partitions, holders and slaves exactly as on a real host.
"""

from __future__ import annotations

import os
from pathlib import Path


class FakeSys:
    """A root directory with block devices, mounts, md arrays and swaps."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._minor = 0
        self._mounts: list[str] = []
        (root / "proc" / "self").mkdir(parents=True, exist_ok=True)
        (root / "proc" / "self" / "mountinfo").write_text("")
        (root / "proc" / "swaps").write_text("Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n")

    def _link(self, link: Path, target: Path) -> None:
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(os.path.relpath(target, link.parent))

    def disk(
        self, name: str, major: int = 7, scheduler: str = "[none] mq-deadline kyber", read_ahead_kb: int = 128
    ) -> str:
        """Add a whole disk with a queue directory; returns its ``major:minor``."""
        base = self.root / "sys" / "devices" / "virtual" / "block" / name
        (base / "holders").mkdir(parents=True)
        (base / "slaves").mkdir()
        queue = base / "queue"
        queue.mkdir()
        (queue / "scheduler").write_text(scheduler + "\n")
        (queue / "read_ahead_kb").write_text(f"{read_ahead_kb}\n")
        (queue / "nr_requests").write_text("128\n")
        (queue / "rq_affinity").write_text("1\n")
        (queue / "write_cache").write_text("write back\n")
        number = f"{major}:{self._next_minor()}"
        (base / "dev").write_text(number + "\n")
        self._link(self.root / "sys" / "block" / name, base)
        self._link(self.root / "sys" / "class" / "block" / name, base)
        self._link(self.root / "sys" / "dev" / "block" / number, base)
        return number

    def partition(self, disk: str, name: str, major: int = 259) -> str:
        """Add a partition of ``disk``."""
        base = self.root / "sys" / "devices" / "virtual" / "block" / disk / name
        (base / "holders").mkdir(parents=True)
        (base / "partition").write_text("1\n")
        number = f"{major}:{self._next_minor()}"
        (base / "dev").write_text(number + "\n")
        self._link(self.root / "sys" / "class" / "block" / name, base)
        self._link(self.root / "sys" / "dev" / "block" / number, base)
        return number

    def hold(self, lower: str, upper: str) -> None:
        """Make ``upper`` (md0, dm-0) a holder of ``lower`` and ``lower`` a slave of ``upper``."""
        lower_dir = (self.root / "sys" / "class" / "block" / lower).resolve()
        upper_dir = (self.root / "sys" / "class" / "block" / upper).resolve()
        self._link(lower_dir / "holders" / upper, upper_dir)
        self._link(upper_dir / "slaves" / lower, lower_dir)

    def mount(self, number: str, point: str, source: str, fstype: str = "ext4") -> None:
        """Add a mountinfo line for device ``number`` on ``point``."""
        self._mounts.append(f"{30 + len(self._mounts)} 1 {number} / {point} rw,relatime - {fstype} {source} rw")
        (self.root / "proc" / "self" / "mountinfo").write_text("\n".join(self._mounts) + "\n")

    def swap(self, path: str) -> None:
        """Add a swap partition to /proc/swaps."""
        with open(self.root / "proc" / "swaps", "a") as handle:
            handle.write(f"{path}                               partition\t1048572\t\t0\t\t-2\n")

    def mdstat(self, text: str) -> None:
        """Write /proc/mdstat."""
        (self.root / "proc" / "mdstat").write_text(text)

    def loop_backing(self, name: str, backing: str) -> None:
        """Give a loop device its ``loop/backing_file``."""
        loop = (self.root / "sys" / "block" / name).resolve() / "loop"
        loop.mkdir()
        (loop / "backing_file").write_text(backing + "\n")

    def queue(self, name: str, attr: str) -> str:
        """A queue attribute's current text."""
        return (self.root / "sys" / "block" / name / "queue" / attr).read_text().strip()

    def _next_minor(self) -> int:
        self._minor += 1
        return self._minor
