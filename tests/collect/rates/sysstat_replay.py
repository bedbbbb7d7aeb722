"""Feeding sysstat's recorded trees to raidtop's Sampler as sysstat's test build reads them.

Also how sysstat prints a value, so raidtop's numbers are compared as printed text.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from raidtop.collect.sampler import Sampler
from raidtop.collect.source import Root
from raidtop.model.snapshot import Snapshot
from tests.collect.rates.sysstat_golden import (
    DATA,
    TREES,
    IostatRun,
    MpstatRun,
)

PROC_FILES = ("stat", "uptime", "meminfo", "vmstat", "loadavg")


def trees_for(start: str, count: int) -> list[str]:
    """The trees sysstat's test mode visits: the starting one, then one per interval."""
    first = TREES.index(start)
    return list(TREES[first : first + count])


def sysfs_diskstats(tree: Path, listed: tuple[str, ...]) -> str:
    """A /proc/diskstats holding exactly what iostat read from /sys/block in ``tree``.

    Without ``-p ALL``, iostat reads /sys/block/<dev>/stat (and with ``-p dev``
    the partitions' stat files under it), not /proc/diskstats; in root3 to
    root5 the two disagree for sdc and sdd (flush counters), and sdb's
    partitions exist only in sysfs. Major and minor come from /proc/diskstats
    where the device is there.
    """
    numbers = {}
    for line in (tree / "proc" / "diskstats").read_text().splitlines():
        major, minor, name = line.split()[:3]
        numbers[name] = (major, minor)
    block = tree / "sys" / "block"
    lines = []
    for entry in sorted(os.listdir(block)):
        stat = block / entry / "stat"
        name = entry.replace("!", "/")
        if listed and name not in listed:
            continue
        if stat.is_file():
            lines.append((name, stat.read_text().split()))
        if name in listed:
            for part in sorted(os.listdir(block / entry)):
                part_stat = block / entry / part / "stat"
                if part_stat.is_file():
                    lines.append((part.replace("!", "/"), part_stat.read_text().split()))
    return "".join(
        f"{numbers.get(name, ('0', '0'))[0]:>4} {numbers.get(name, ('0', '0'))[1]:>7} {name} {' '.join(fields)}\n"
        for name, fields in lines
    )


def input_tree(run: IostatRun | MpstatRun, tree: str, workdir: Path) -> Path:
    """The directory raidtop reads for ``tree`` in ``run``: the recording itself,
    or a copy whose /proc/diskstats holds what iostat read from sysfs."""
    source = DATA / tree
    if not isinstance(run, IostatRun) or run.reads == "diskstats":
        return source
    target = workdir / run.name / tree
    if not target.exists():
        (target / "proc").mkdir(parents=True)
        for name in PROC_FILES:
            if (source / "proc" / name).exists():
                shutil.copy(source / "proc" / name, target / "proc" / name)
        (target / "proc" / "diskstats").write_text(sysfs_diskstats(source, run.listed))
        (target / "sys").symlink_to(source / "sys", target_is_directory=True)
    return target


def replay(run: IostatRun | MpstatRun, trees: list[str], workdir: Path) -> list[Snapshot]:
    """Snapshots from one Sampler whose root moves to the next tree at each read."""
    sampler = Sampler(input_tree(run, trees[0], workdir))
    snapshots = []
    for tree in trees:
        sampler.root = Root(input_tree(run, tree, workdir))
        snapshots.append(sampler.sample())
    return snapshots


def printed(value: float | None, decimals: int = 2) -> str:
    """raidtop's value as sysstat prints it; ``None`` is iostat's 0.00 for an
    average over no requests (r_await with no reads)."""
    return f"{0.0 if value is None else value:.{decimals}f}"
