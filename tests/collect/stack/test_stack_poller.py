"""When the stack is read, and the full-filesystem sentence reaching the snapshot."""

from __future__ import annotations

from pathlib import Path

from raidtop.collect.source import Root
from raidtop.collect.stack.poller import StackPoller
from raidtop.model.snapshot import Snapshot
from raidtop.model.md import MdArray

ROOT = Root(Path(__file__).resolve().parents[2] / "data" / "stack" / "md-lvm")


def _snap(t: float, health: str) -> Snapshot:
    return Snapshot(time=t, interval_s=1.0, arrays=(MdArray("md0", "raid1", "clean", health, raid_disks=2),))


def _full(mp: str) -> tuple[int, int] | None:
    return (100, 96) if mp == "/" else None


def test_a_healthy_host_with_no_view_open_reads_nothing() -> None:
    poller = StackPoller(usage=_full)
    snap = poller.apply(ROOT, _snap(0, "ok"))
    assert snap.stack is None and snap.full_filesystems == ()


def test_a_degraded_array_reads_the_stack_slowly_and_says_the_full_filesystem() -> None:
    poller = StackPoller(slow_s=30, usage=_full)
    first = poller.apply(ROOT, _snap(100, "degraded"))
    assert first.full_filesystems == ("md0 is degraded and its filesystem / (ext4 on vg0-root) is 96 % full",)
    again = poller.apply(ROOT, _snap(110, "degraded"))
    assert again.stack is first.stack  # within 30 s: the same reading, no sysfs walk
    later = poller.apply(ROOT, _snap(131, "degraded"))
    assert later.stack is not first.stack
    assert poller.apply(ROOT, _snap(132, "ok")).full_filesystems == ()


def test_an_open_view_reads_every_sample_until_it_closes() -> None:
    poller = StackPoller(slow_s=30, usage=_full)
    poller.view_opened()
    a = poller.apply(ROOT, _snap(0, "ok"))
    b = poller.apply(ROOT, _snap(1, "ok"))
    assert a.stack is not None and b.stack is not a.stack and a.full_filesystems == ()
    poller.view_closed()
    assert poller.apply(ROOT, _snap(2, "ok")).stack is None


def test_a_clock_that_went_backwards_reads_again() -> None:
    poller = StackPoller(slow_s=30, usage=_full)
    first = poller.apply(ROOT, _snap(100, "degraded"))
    assert poller.apply(ROOT, _snap(50, "degraded")).stack is not first.stack
