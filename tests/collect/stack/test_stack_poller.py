"""When the stack is read, and the full-filesystem sentence reaching the snapshot."""

from __future__ import annotations

import shutil
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


class CountingRoot(Root):
    """The fixture root, counting the sysfs reads a sample makes."""

    __slots__ = ("reads",)

    def __init__(self, path) -> None:
        super().__init__(path)
        self.reads = 0

    def read_optional(self, abs_path: str, *, single_record: bool = False) -> str | None:
        self.reads += 1
        return super().read_optional(abs_path, single_record=single_record)


def test_an_open_view_asks_usage_every_sample_and_walks_the_graph_only_when_it_may_have_changed(tmp_path) -> None:
    shutil.copytree(ROOT.path, tmp_path / "root", symlinks=True)
    root = CountingRoot(tmp_path / "root")
    filled = {"/": (100, 50)}
    poller = StackPoller(slow_s=30, usage=filled.get, structure_s=5)
    poller.view_opened()
    a = poller.apply(root, _snap(0, "ok"))
    walk = root.reads
    assert walk > 20 and a.stack is not None and a.full_filesystems == ()
    filled["/"] = (100, 97)
    root.reads = 0
    b = poller.apply(root, _snap(1, "ok"))
    assert root.reads == 0  # no sysfs walk: only the names listed and statvfs asked
    assert b.stack is not None and b.stack.nodes["dm-0"].usage.used_bytes == 97
    assert b.stack.nodes["md0"] is a.stack.nodes["md0"]
    assert poller.apply(root, _snap(2, "ok")).stack is b.stack  # nothing changed: the same reading
    poller.invalidate()  # a uevent
    poller.apply(root, _snap(3, "ok"))
    assert root.reads == walk
    root.reads = 0
    poller.apply(root, _snap(8.5, "ok"))  # STRUCTURE_S passed
    assert root.reads == walk
    root.reads = 0
    block = tmp_path / "root" / "sys" / "class" / "block"
    (block / "sdz").symlink_to((block / "sda2").readlink())  # a new name for the kernel's list
    poller.apply(root, _snap(9, "ok"))  # a new device name, within STRUCTURE_S
    assert root.reads > walk
    poller.view_closed()
    assert poller.apply(root, _snap(10, "ok")).stack is None


def test_a_clock_that_went_backwards_reads_again() -> None:
    poller = StackPoller(slow_s=30, usage=_full)
    first = poller.apply(ROOT, _snap(100, "degraded"))
    assert poller.apply(ROOT, _snap(50, "degraded")).stack is not first.stack
