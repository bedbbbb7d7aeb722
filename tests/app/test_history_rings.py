"""The per-device throughput rings behind the Disks panel's sparklines: as long as the sparkline, no longer."""

from __future__ import annotations

from dataclasses import replace

from raidtop.live.history import DISK_TREND_SAMPLES, History
from raidtop.model.snapshot import DiskIO, Snapshot
from raidtop.widgets.disks_panel import SPARK_WIDTH
from tests.conftest import two_root_snapshot


def _disk(name: str, kib_s: float) -> DiskIO:
    return DiskIO(name, "disk", 1.0, 0.0, kib_s, 0.0, *([0.0] * 10))


def _with_disks(base: Snapshot, *disks: DiskIO) -> Snapshot:
    return replace(base, disks=list(disks), arrays=[], events=[], since_boot=False)


def test_each_device_keeps_what_its_sparkline_shows_and_no_more() -> None:
    base = two_root_snapshot()
    history = History()
    for tick in range(3 * DISK_TREND_SAMPLES + 5):
        history.add(_with_disks(base, _disk("sda", float(tick)), _disk("sdb", 1000.0 + tick)))
    last = 3 * DISK_TREND_SAMPLES + 4
    assert SPARK_WIDTH == DISK_TREND_SAMPLES
    assert history.recent("sda", SPARK_WIDTH) == tuple(float(t) for t in range(last - SPARK_WIDTH + 1, last + 1))
    assert history.recent("sdb", 3) == (1000.0 + last - 2, 1000.0 + last - 1, 1000.0 + last)
    # Asking for more than is kept gives what is kept; the ring itself is the sparkline's width.
    assert len(history.recent("sda", 10 * SPARK_WIDTH)) == DISK_TREND_SAMPLES
    assert all(len(ring) == DISK_TREND_SAMPLES for ring in history._throughput.values())


def test_a_new_device_shows_only_its_own_samples_and_a_gone_one_is_forgotten() -> None:
    base = two_root_snapshot()
    history = History()
    for _ in range(DISK_TREND_SAMPLES + 3):
        history.add(_with_disks(base, _disk("sda", 5.0)))
    history.add(_with_disks(base, _disk("sda", 6.0), _disk("sdc", 7.0)))
    history.add(_with_disks(base, _disk("sda", 8.0), _disk("sdc", 9.0)))
    assert history.recent("sdc", SPARK_WIDTH) == (7.0, 9.0)
    assert history.recent("sda", 3) == (5.0, 6.0, 8.0)
    history.add(_with_disks(base, _disk("sdc", 10.0)))
    assert history.recent("sda", SPARK_WIDTH) == ()
    assert set(history._throughput) == {"sdc"}


def test_an_array_keeps_sync_samples_only_while_a_sync_runs() -> None:
    from raidtop.model.md import MdArray, MdSync

    base = two_root_snapshot()
    idle = MdArray(name="md0", level="raid5", state="clean", health="ok")
    history = History()
    for tick in range(50):
        history.add(replace(base, time=1000.0 + tick, disks=[], arrays=[idle], events=[]))
    assert history.sync("md0") == [] and history._sync == {}
    for tick in range(3):
        syncing = replace(idle, sync=MdSync(action="recover", percent=10.0 + tick, speed_kib_s=2048.0))
        history.add(replace(base, time=2000.0 + tick, disks=[], arrays=[syncing], events=[]))
    pending = replace(idle, sync=MdSync(action="resync", percent=None))
    for tick in range(5):
        history.add(replace(base, time=3000.0 + tick, disks=[], arrays=[pending], events=[]))
    points = history.sync("md0")
    assert [(p.time, p.action, p.percent, p.speed_kib_s) for p in points] == [
        (2000.0, "recover", 10.0, 2048.0),
        (2001.0, "recover", 11.0, 2048.0),
        (2002.0, "recover", 12.0, 2048.0),
    ]
    history.add(replace(base, time=4000.0, disks=[], arrays=[], events=[]))
    assert history.sync("md0") == []
