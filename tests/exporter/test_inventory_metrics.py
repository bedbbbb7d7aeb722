"""Joins and completeness: member -> whole disk, member flags, chunk size, md driver presence, node name."""

from __future__ import annotations

import os
import shutil

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.parser import text_string_to_metric_families

from raidtop.collect.sampler import Sampler
from raidtop.exporter.inventory import MEMBER_FLAGS
from raidtop.exporter.metrics import MdMetrics
from raidtop.model.snapshot import Snapshot
from raidtop.model.md import MdArray, MdMember
from tests.exporter import procs

PROCFS = procs.REPO / "tests" / "data" / "md" / "roots" / "prometheus-procfs"


def samples(snapshot: Snapshot) -> dict[str, list]:
    metrics = MdMetrics()
    metrics.update(snapshot, 0.01, 1_700_000_000.0, {})
    registry = CollectorRegistry(auto_describe=False)
    registry.register(metrics)
    out: dict[str, list] = {}
    for family in text_string_to_metric_families(generate_latest(registry).decode()):
        for s in family.samples:
            out.setdefault(s.name, []).append((s.labels, s.value))
    return out


def sample(root) -> Snapshot:
    sampler = Sampler(root)
    sampler.sample()
    return sampler.sample()


def test_each_member_names_its_whole_disk_as_node_exporter_does(tmp_path) -> None:
    root = tmp_path / "root"
    shutil.copytree(procs.UI_ROOT1, root, symlinks=True)
    shutil.copy(procs.MD_DATA / "mdstat" / "nicolargo-pymdstat__mdstat.04", root / "proc" / "mdstat")
    found = samples(sample(root))
    pairs = {(lb["array"], lb["member"], lb["device"]) for lb, _ in found["raidtop_md_member_disk_info"]}
    # sda's partitions are in this /proc/diskstats and /sys; sdb's and sdc1.. are not: no guess for them.
    assert pairs == {("md0", "sda1", "sda"), ("md1", "sda2", "sda"), ("md2", "sda3", "sda")}
    assert found["raidtop_md_driver_loaded"] == [({}, 1.0)]


def test_chunk_size_in_bytes_from_sysfs() -> None:
    chunks = {lb["array"]: v for lb, v in samples(sample(PROCFS))["raidtop_md_chunk_size_bytes"]}
    assert chunks["md0"] == 524288  # sys/block/md0/md/chunk_size of procfs's fixture


def test_no_driver_and_no_arrays_differ(tmp_path) -> None:
    without = tmp_path / "no-driver"
    (without / "proc").mkdir(parents=True)
    (without / "sys" / "module").mkdir(parents=True)
    empty = tmp_path / "no-arrays"
    (empty / "proc").mkdir(parents=True)
    (empty / "proc" / "mdstat").write_text("Personalities : \nunused devices: <none>\n")
    a, b = samples(sample(without)), samples(sample(empty))
    assert a["raidtop_md_arrays"] == b["raidtop_md_arrays"] == [({}, 0.0)]
    assert a["raidtop_md_driver_loaded"] == [({}, 0.0)] and b["raidtop_md_driver_loaded"] == [({}, 1.0)]


def test_member_flags_one_series_per_flag_and_none_while_roles_are_unknown() -> None:
    array = MdArray(
        "md0",
        "raid1",
        "clean",
        "ok",
        raid_disks=2,
        degraded=0,
        members=(
            MdMember("sdb1", 0, ("in_sync", "write_mostly", "want_replacement")),
            MdMember("sdc1", 1, ("in_sync", "blocked", "write_error")),
            MdMember("sdd1", None, ("spare", "replacement")),
            MdMember("sde1", None, ()),
        ),
    )
    flags = {
        (lb["member"], lb["flag"]): v
        for lb, v in samples(Snapshot(time=0.0, interval_s=1.0, arrays=(array,)))["raidtop_md_member_flag"]
    }
    on = {k for k, v in flags.items() if v == 1}
    assert on == {
        ("sdb1", "write_mostly"),
        ("sdb1", "want_replacement"),
        ("sdc1", "blocked"),
        ("sdc1", "write_error"),
        ("sdd1", "replacement"),
    }
    assert len(flags) == 3 * len(MEMBER_FLAGS)  # sde1's roles are unknown: no series rather than 0


def test_the_node_name_is_uname() -> None:
    found = samples(Snapshot(time=0.0, interval_s=1.0))
    assert found["raidtop_exporter_node_info"] == [({"nodename": os.uname().nodename}, 1.0)]
