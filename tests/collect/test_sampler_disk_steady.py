"""The steady state: only devices that moved cost work, and the rows are those a full computation gives.

A machine of many idle devices and a few busy ones (which change from tick
to tick, one going idle, one reset, one wrapping a millisecond counter) is
sampled by the real Sampler; every snapshot's rows must equal the rows
computed for all devices at once from the same two reads, and an idle
device keeps its row object from one snapshot to the next.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from raidtop.collect.rates import disk_rate_columns
from raidtop.collect.sampler import Sampler
from raidtop.collect.source import Root
from raidtop.model.disk_columns import DiskCounterColumns, DiskRows

# Both ways of reading disks: the compiled parse and rates, and their Python twin alone.
pytestmark = pytest.mark.usefixtures("disk_code")

DEVICES = 40


def _write(root: Path, counters: list[list[int]], uptime: float) -> Root:
    (root / "proc").mkdir(parents=True, exist_ok=True)
    (root / "proc" / "uptime").write_text(f"{uptime:.2f} 0.00\n")
    lines = [f"   8 {16 * n:7d} sd{n} " + " ".join(map(str, c)) for n, c in enumerate(counters)]
    (root / "proc" / "diskstats").write_text("\n".join(lines) + "\n")
    return Root(root)


def _busy(c: list[int], reads: int) -> None:
    c[0] += reads
    c[2] += 8 * reads
    c[3] += 2 * reads
    c[9] += 10
    c[10] += 3 * reads


def test_rows_of_the_steady_state_equal_a_full_computation(tmp_path: Path) -> None:
    counters = [[100 * n, 0, 800 * n, 50, 10, 0, 80, 5, 0, 60, 90, 0, 0, 0, 0, 3, 1] for n in range(DEVICES)]
    counters[7][3] = 2**32 - 100  # about to wrap (tick 2 adds 40)
    sampler = Sampler(_write(tmp_path / "t0", counters, 1000.0), clock=lambda: 1.6e9)
    snaps = [sampler.sample()]
    for tick in range(1, 9):
        for n in (tick % 5, 5 + tick % 3):
            _busy(counters[n], 10 * tick)
        if tick == 3:
            counters[7][3] = 20  # the wrap: a rate, not a reset
            counters[7][0] += 4
        if tick == 5:
            counters[12] = [1, 0, 8, 1, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0]  # a reset
        sampler.root = _write(tmp_path / f"t{tick}", counters, 1000.0 + tick)
        snaps.append(sampler.sample())
        shown = snaps[-1].disks[30]  # a row on screen: made as the Disks panel would
    assert snaps[8].disks.made_count == 0  # row 30 carried over, nothing else asked for
    for before, after in zip(snaps, snaps[1:]):
        prev = DiskCounterColumns.of(before.raw.disks)
        cur = DiskCounterColumns.of(after.raw.disks)
        columns, _ = disk_rate_columns(prev, cur, after.interval_s)
        assert list(after.disks) == list(DiskRows(cur, columns, after.raw.identities))
    assert snaps[3].disks[7].r_await_ms == 80 / 4  # across the wrap: 80 ms over 4 reads
    assert snaps[5].disks[12].r_s is None and any("sd12: counters went backwards" in n for n in snaps[5].notes)
    assert snaps[8].disks[30] is shown is snaps[7].disks[30]  # idle in both: the same row object, no work


def test_an_idle_device_that_was_busy_gets_its_idle_row_back(tmp_path: Path) -> None:
    counters = [[100, 0, 800, 50, 10, 0, 80, 5, 0, 60, 90, 0, 0, 0, 0, 3, 1] for _ in range(DEVICES)]
    sampler = Sampler(_write(tmp_path / "t0", counters, 10.0), clock=lambda: 1.6e9)
    sampler.sample()
    sampler.root = _write(tmp_path / "t1", counters, 11.0)
    sampler.sample()
    _busy(counters[3], 50)
    sampler.root = _write(tmp_path / "t2", counters, 12.0)
    busy = sampler.sample()
    sampler.root = _write(tmp_path / "t3", counters, 13.0)
    idle = sampler.sample()
    assert busy.disks[3].r_s == 50.0
    assert idle.disks[3].r_s == 0.0 and idle.disks[3].r_await_ms is None
