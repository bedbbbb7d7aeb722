"""The md names under /sys/block are listed again only when /proc/diskstats lists other devices.

The kernel adds an md disk to /proc/diskstats and to /sys/block together
(the /sys/block link just after), and removes both together: a new or
stopped array always changes diskstats' device list. The trees here are real
sysfs md directories (tests/data/md/roots/prometheus-procfs, see its
PROVENANCE) with a diskstats written to match, changed as the kernel would.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from raidtop.collect.md.track import MdNames
from raidtop.collect.sampler import Sampler
from raidtop.collect.source import as_root

PROCFS = Path(__file__).resolve().parents[2] / "data" / "md" / "roots" / "prometheus-procfs"

_DISKSTATS_LINE = "   9       {minor} {name} 10 0 80 1 0 0 0 0 0 1 1 0 0 0 0 0 0\n"


def _tree(tmp_path: Path, arrays: list[str]) -> Path:
    """A root with ``arrays`` (real sysfs md directories) and a diskstats listing them and one disk."""
    (tmp_path / "proc").mkdir()
    (tmp_path / "sys" / "block").mkdir(parents=True)
    for name in arrays:
        _add_array(tmp_path, name)
    return tmp_path


def _add_array(root: Path, name: str, *, diskstats: bool = True, sysfs: bool = True) -> None:
    if sysfs:
        shutil.copytree(PROCFS / "sys" / "block" / name, root / "sys" / "block" / name, symlinks=True)
    if diskstats:
        _write_diskstats(root, [*_listed(root), name])


def _listed(root: Path) -> list[str]:
    path = root / "proc" / "diskstats"
    return [line.split()[2] for line in path.read_text().splitlines()[1:]] if path.exists() else []


def _write_diskstats(root: Path, names: list[str]) -> None:
    lines = ["   8       0 sda 49601 2822 3195498 623970 12180 9784 821088 1 0 1 1 0 0 0 0 0 0\n"]
    lines += [_DISKSTATS_LINE.format(minor=i, name=name) for i, name in enumerate(names)]
    (root / "proc" / "diskstats").write_text("".join(lines))


def _array_names(sampler: Sampler) -> list[str]:
    return [array.name for array in sampler.sample().arrays]


def test_a_steady_listing_is_kept_and_a_change_lists_again(tmp_path):
    root = as_root(_tree(tmp_path, ["md0"]))
    names = MdNames()
    assert names.names(root, devices_unchanged=False) == ["md0"]
    (tmp_path / "sys" / "block" / "md1").mkdir()
    # Made in a sample whose devices changed: not kept (the /sys/block link may have lagged).
    assert names.names(root, devices_unchanged=False) == ["md0", "md1"]
    (tmp_path / "sys" / "block" / "md4").mkdir()
    assert names.names(root, devices_unchanged=True) == ["md0", "md1", "md4"]
    # Kept from here while the devices stand still: a name that appears without a
    # diskstats change (which a kernel never does) is not looked for.
    (tmp_path / "sys" / "block" / "md5").mkdir()
    assert names.names(root, devices_unchanged=True) == ["md0", "md1", "md4"]
    assert names.names(root, devices_unchanged=False) == ["md0", "md1", "md4", "md5"]


def test_a_root_without_sys_block_has_no_names(tmp_path):
    names = MdNames()
    assert names.names(as_root(tmp_path), devices_unchanged=False) == []
    assert names.names(as_root(tmp_path), devices_unchanged=True) == []


def test_the_sampler_sees_an_array_come_and_go(tmp_path):
    _tree(tmp_path, ["md0"])
    sampler = Sampler(tmp_path)
    assert _array_names(sampler) == ["md0"]
    assert _array_names(sampler) == ["md0"]  # steady: the kept listing
    _add_array(tmp_path, "md4")  # mdadm --assemble: a new disk in diskstats and in /sys/block
    assert _array_names(sampler) == ["md0", "md4"]
    assert _array_names(sampler) == ["md0", "md4"]
    shutil.rmtree(tmp_path / "sys" / "block" / "md0")  # mdadm --stop
    _write_diskstats(tmp_path, ["md4"])
    assert _array_names(sampler) == ["md4"]


def test_the_sampler_finds_an_array_whose_sys_block_link_came_after_diskstats(tmp_path):
    _tree(tmp_path, ["md0"])
    sampler = Sampler(tmp_path)
    assert _array_names(sampler) == ["md0"]
    _add_array(tmp_path, "md4", sysfs=False)  # diskstats lists it, /sys/block not yet
    assert _array_names(sampler) == ["md0"]
    _add_array(tmp_path, "md4", diskstats=False)  # the link follows; diskstats is as it was
    assert _array_names(sampler) == ["md0", "md4"]


def test_an_unreadable_diskstats_lists_again(tmp_path):
    _tree(tmp_path, ["md0"])
    sampler = Sampler(tmp_path)
    assert _array_names(sampler) == ["md0"]
    assert _array_names(sampler) == ["md0"]
    (tmp_path / "proc" / "diskstats").unlink()  # no device list to judge by: /sys/block is listed
    _add_array(tmp_path, "md4", diskstats=False)
    assert _array_names(sampler) == ["md0", "md4"]
