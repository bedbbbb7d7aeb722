"""The RAID-level study's sequence, table and CSV, with the lab and fio replaced by recorders."""

from __future__ import annotations

import csv
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest

from raidtop.actions.lab.core import LabError
from raidtop.actions.lab.store import LabStore
from raidtop.actions.lab.registry import ArrayRecord, RebuildRecord
from raidtop.actions.lab.study import (
    FioFigures,
    StudyParams,
    StudyRow,
    disks_for,
    failures_tolerated,
    format_table,
    parse_levels,
    run_study,
    write_csv,
)
from raidtop.collect.source import Root

MIB = 1 << 20


@dataclass
class FakeLab:
    """Creates arrays on paper; records every call in order."""

    root: Root
    store: LabStore
    calls: list[str] = field(default_factory=list)
    records: dict[str, ArrayRecord] = field(default_factory=dict)

    class registry:
        path = Path("/lab/registry.json")

    def create(self, spec):
        name = f"md{100 + len(self.records)}"
        self.calls.append(f"create {spec.level} {spec.disks}")
        record = ArrayRecord(name, spec.level, spec.disks, spec.disk_size_bytes, 0.0, "active")
        self.records[name] = record
        md = self.root.path / "sys" / "block" / name
        (md / "slaves").mkdir(parents=True)
        for index in range(spec.disks):
            (md / "slaves" / f"loop{index}").write_text("")
        (md / "md").mkdir()
        data = {"raid0": spec.disks, "raid1": 1, "raid5": spec.disks - 1}[spec.level]
        (md / "size").write_text(f"{data * (spec.disk_size_bytes // 512 - 2048)}\n")
        return record

    def wait_idle(self, name, timeout):
        # A wait right after "add" is the rebuild: it took 2.5 s.
        after_add = self.calls[-1].startswith("add ")
        self.calls.append(f"wait {name}")
        if after_add:
            rebuild = RebuildRecord("recovery", 10.0, 12.5, resolution_s=0.05)
            self.records[name] = replace(self.records[name], rebuilds=(rebuild,))
        return self.records[name]

    def teardown(self, arrays):
        self.calls.append(f"teardown {','.join(arrays)}")

        class Report:
            kept = ()

        return Report()


class FakeActions:
    def __init__(self, lab: FakeLab) -> None:
        self.lab = lab

    def run(self, verb, array, member):
        self.lab.calls.append(f"{verb} {array} {member}")
        return verb


def fake_fio(lab: FakeLab):
    def run(preset, device, runtime_s, registry):
        lab.calls.append(f"fio {preset} {device} {runtime_s}s")
        iops = 1000.0 if preset == "rand-read" else 400.0
        return FioFigures(iops, iops * 4096 / 1e6, f"fio --name={preset} --filename={device}")

    return run


@pytest.fixture
def lab(tmp_path: Path) -> FakeLab:
    return FakeLab(Root(tmp_path / "root"), LabStore(tmp_path / "lab.sqlite"))


def test_each_level_is_built_measured_broken_rebuilt_and_torn_down_in_order(lab: FakeLab):
    result = run_study(lab, StudyParams(("raid0", "raid1"), None, 16 * MIB, 1), fio=fake_fio(lab),
                       actions=FakeActions(lab))
    assert lab.calls == [
        "create raid0 2", "wait md100", "fio rand-read /dev/md100 1s", "fio rand-write /dev/md100 1s", "teardown md100",
        "create raid1 2", "wait md101", "fio rand-read /dev/md101 1s", "fio rand-write /dev/md101 1s", "wait md101",
        "fail md101 loop0", "remove md101 loop0", "add md101 None", "wait md101", "teardown md101",
    ]
    raid0, raid1 = result.rows
    assert raid0.rebuild_s is None and "no redundancy" in raid0.note
    assert raid1.rebuild_s == 2.5 and raid1.read_iops == 1000.0 and raid1.write_iops == 400.0
    assert raid0.usable_bytes == 2 * (16 * MIB - MIB) and raid1.usable_bytes == 16 * MIB - MIB
    # Stored, and readable back.
    params, rows = lab.store.study(result.study_id)
    assert params["levels"] == ["raid0", "raid1"] and rows[1]["rebuild_s"] == 2.5


def test_a_failing_level_is_still_torn_down(lab: FakeLab):
    def broken_fio(preset, device, runtime_s, registry):
        raise LabError("fio is not installed")

    with pytest.raises(LabError, match="fio is not installed"):
        run_study(lab, StudyParams(("raid5",), None, 16 * MIB, 1), fio=broken_fio, actions=FakeActions(lab))
    assert lab.calls[-1] == "teardown md100"


def test_levels_disks_and_tolerance():
    assert parse_levels("0, 1,5") == ("raid0", "raid1", "raid5")
    assert disks_for("raid6", 3) == (4, "raid6 needs 4 disks; used 4")
    assert disks_for("raid5", None) == (3, "")
    assert [failures_tolerated(level, 4) for level in ("raid0", "raid1", "raid5", "raid6", "raid10")] == [
        "0", "3", "1", "2", "1 (≤2)"]


def test_the_table_and_csv(tmp_path: Path):
    rows = [StudyRow("raid0", 2, 16 * MIB, 21538.4, 8837.0, 88.2, 36.2, None, 0.0, 30 * MIB, "0", "no redundancy"),
            StudyRow("raid5", 3, 16 * MIB, 3995.0, 4091.0, 16.4, 16.8, 0.74, 0.05, 30 * MIB, "1")]
    table = format_table(rows).splitlines()
    assert table[0].split() == ["Level", "Disks", "Read", "IOPS", "Write", "IOPS", "Read", "MB/s", "Write", "MB/s",
                                "Rebuild", "Usable", "Tolerates"]
    assert table[2].split() == ["raid0", "2", "21,538", "8,837", "88.2", "36.2", "n/a", "30", "MiB", "0"]
    assert table[3].split() == ["raid5", "3", "3,995", "4,091", "16.4", "16.8", "0.7", "s", "30", "MiB", "1"]
    assert table[-1] == "raid0: no redundancy"
    path = write_csv(rows, tmp_path / "study.csv")
    with open(path, newline="") as handle:
        read = list(csv.DictReader(handle))
    assert read[1]["rebuild_s"] == "0.740" and read[0]["rebuild_s"] == "" and read[1]["usable_bytes"] == str(30 * MIB)
