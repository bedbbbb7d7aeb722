"""Every /proc and hwmon sample in the corpus parses; damaged input gives notes, never exceptions.

The corpus files are real captures and upstream fixtures (tests/data/corpus/PROVENANCE.md);
the sysstat recordings are shared with the equivalence tests (tests/data/sysstat). Values
asserted below were read off the files by hand. Damaged input: test_damaged_input_parsers.py,
test_damaged_input_sampler.py and test_damaged_input_random.py.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from raidtop.collect import rates
from raidtop.collect.cpustat import parse_stat
from raidtop.collect.diskstats import parse_diskstats
from raidtop.collect.hwmon import read_sensors
from raidtop.collect.memory import parse_meminfo, parse_vmstat
from raidtop.collect.source import Root
from tests.collect.corpus_files import CORPUS, SYSSTAT, SYSSTAT_TREES, hwmon_root

# Both ways of reading disks: the compiled parse and rates, and their Python twin alone.
pytestmark = pytest.mark.usefixtures("disk_code")


def samples(kind: str) -> list[Path]:
    """The corpus's files of one kind: its own copies, then the sysstat trees' identical ones."""
    return sorted((CORPUS / f"proc-{kind}").iterdir()) + [SYSSTAT / t / "proc" / kind for t in SYSSTAT_TREES]


DISKSTATS_FILES = samples("diskstats")
STAT_FILES = samples("stat")
MEMINFO_FILES = samples("meminfo")
VMSTAT_FILES = samples("vmstat")


def short_id(path: Path) -> str:
    return path.name if path.is_relative_to(CORPUS) else f"sysstat-{path.parts[-3]}"


# ----------------------------------------------------------------- /proc/diskstats


@pytest.mark.parametrize("path", DISKSTATS_FILES, ids=short_id)
def test_every_corpus_diskstats_parses(path: Path) -> None:
    """Each line with at least the 14 fields of iostat -x becomes a device."""
    text = path.read_text()
    disks, notes = parse_diskstats(text)
    usable = [line.split() for line in text.splitlines() if len(line.split()) >= 14]
    assert [d.name for d in disks] == [fields[2] for fields in usable]
    for disk, fields in zip(disks, usable, strict=True):
        assert (disk.major, disk.minor, disk.rd_ios, disk.rq_ticks) == (
            int(fields[0]),
            int(fields[1]),
            int(fields[3]),
            int(fields[13]),
        )
        # Discard counters exist exactly on the 18- and 20-field lines, flush on the 20-field ones.
        assert (disk.dc_ios is not None) == (len(fields) >= 18)
        assert (disk.fl_ios is not None) == (len(fields) >= 20)
    odd = sum(len(f) not in (14, 18, 20) for f in usable)
    assert any("field count" in n for n in notes) == bool(odd)


def test_procfs_diskstats_values() -> None:
    disks, notes = parse_diskstats((CORPUS / "proc-diskstats" / "prometheus-procfs__proc_diskstats").read_text())
    by_name = {d.name: d for d in disks}
    assert len(disks) == 52 and notes == []
    sda = by_name["sda"]
    assert (sda.rd_ios, sda.rd_merges, sda.rd_sectors, sda.rd_ticks) == (25354637, 34367663, 1003346126, 18492372)
    assert (sda.wr_ios, sda.wr_sectors, sda.tot_ticks, sda.rq_ticks) == (28444756, 505697032, 9653880, 82621804)
    assert sda.dc_ios is None and sda.fl_ios is None  # a 14-field line
    sdb = by_name["sdb"]  # 18 fields: discards, no flushes
    assert (sdb.dc_ios, sdb.dc_merges, sdb.dc_sectors, sdb.dc_ticks, sdb.fl_ios) == (68851, 0, 1925173784, 11130, None)
    sdc = by_name["sdc"]  # 20 fields
    assert (sdc.fl_ios, sdc.fl_ticks) == (127, 182)
    assert by_name["nvme0n1p2"].wr_sectors == 39451632
    assert (by_name["mmcblk0"].major, by_name["mmcblk0"].minor) == (179, 0)


def test_old_kernel_and_cciss_diskstats_values() -> None:
    """sysstat's root6: 14-field lines and a name with a slash."""
    disks, _ = parse_diskstats((SYSSTAT / "root6" / "proc" / "diskstats").read_text())
    by_name = {d.name: d for d in disks}
    cciss = by_name["cciss/c0d0"]
    assert (cciss.major, cciss.rd_ios, cciss.rd_merges) == (104, 35817, 15211)
    assert (cciss.wr_ios, cciss.rq_ticks) == (5055711, 19000180)
    assert cciss.dc_ios is None
    assert (by_name["xvdp"].minor, by_name["xvdp"].rd_sectors) == (240, 3096)


def test_2016_fixture_is_all_14_field_lines() -> None:
    disks, notes = parse_diskstats(
        (CORPUS / "proc-diskstats" / "prometheus-node_exporter__proc_diskstats_2016_14field").read_text()
    )
    assert len(disks) == 46 and notes == []
    assert all(d.dc_ios is None and d.fl_ios is None for d in disks)
    mmc = next(d for d in disks if d.name == "mmcblk0p1")
    assert (mmc.rd_ios, mmc.rd_merges, mmc.rd_sectors, mmc.tot_ticks) == (17, 3, 160, 24)


@pytest.mark.parametrize("path", sorted((CORPUS / "sys-block-stat").iterdir()), ids=short_id)
def test_sys_block_stat_is_a_diskstats_line_without_its_name(path: Path) -> None:
    """/sys/block/<dev>/stat holds the fields /proc/diskstats prints after major, minor and name."""
    fields = path.read_text().split()
    disks, notes = parse_diskstats(f"0 0 dev {' '.join(fields)}\n")
    assert len(disks) == 1
    assert disks[0].rd_ios == int(fields[0]) and disks[0].rq_ticks == int(fields[10])


def test_sys_block_sda_stat_values() -> None:
    fields = (CORPUS / "sys-block-stat" / "prometheus-procfs__sys_block_sda_stat").read_text().split()
    (sda,), _ = parse_diskstats(f"8 0 sda {' '.join(fields)}\n")
    assert (sda.rd_ios, sda.wr_ios, sda.tot_ticks, sda.rq_ticks) == (9652963, 8422549, 5658367, 19174573)
    assert (sda.dc_ios, sda.dc_merges, sda.dc_sectors, sda.dc_ticks) == (1, 2, 3, 12)


# ----------------------------------------------------------------- /proc/stat


@pytest.mark.parametrize("path", STAT_FILES, ids=short_id)
def test_every_corpus_stat_parses(path: Path) -> None:
    text = path.read_text()
    stat, notes = parse_stat(text)
    cpu_lines = [line.split() for line in text.splitlines() if line.startswith("cpu")]
    assert [c.cpu for c in stat.cpus] == ["all"] + sorted(int(f[0][3:]) for f in cpu_lines[1:])
    assert stat.cpus[0].user == int(cpu_lines[0][1])
    assert notes == []


def test_procfs_stat_values() -> None:
    stat, _ = parse_stat((CORPUS / "proc-stat" / "prometheus-procfs__proc_stat").read_text())
    assert len(stat.cpus) == 9  # the summary and cpu0-7
    assert stat.cpus[0].user == 301854 and stat.cpus[0].idle == 8979004
    cpu7 = stat.cpus[-1]
    assert (cpu7.cpu, cpu7.user, cpu7.nice, cpu7.iowait, cpu7.softirq) == (7, 29098, 268, 555, 31)
    assert (stat.intr, stat.ctxt, stat.procs_running, stat.procs_blocked) == (73777505, 38014093, 2, 1)


def test_node_exporter_stat_guest_values() -> None:
    stat, _ = parse_stat((CORPUS / "proc-stat" / "prometheus-node_exporter__proc_stat").read_text())
    assert (stat.cpus[0].guest, stat.cpus[0].guest_nice) == (44, 36)
    assert (stat.cpus[-1].guest, stat.cpus[-1].guest_nice) == (9, 8)


def test_old_kernel_stat_lacks_steal_and_guest() -> None:
    """root6 prints seven times per CPU (no steal, guest, guest_nice): they count as zero."""
    stat, notes = parse_stat((SYSSTAT / "root6" / "proc" / "stat").read_text())
    assert [c.cpu for c in stat.cpus] == ["all", *range(10)]
    assert (stat.cpus[-1].user, stat.cpus[-1].softirq, stat.cpus[-1].steal, stat.cpus[-1].guest) == (200, 20, 0, 0)
    assert notes == []


def test_offline_cpu_is_absent() -> None:
    stat, _ = parse_stat((SYSSTAT / "root2" / "proc" / "stat").read_text())
    assert [c.cpu for c in stat.cpus] == ["all", 0, 1, 2, 3, 4, 5, 6, 7]


# ----------------------------------------------------------------- meminfo, vmstat


@pytest.mark.parametrize("path", MEMINFO_FILES, ids=short_id)
def test_every_corpus_meminfo_parses(path: Path) -> None:
    info, notes = parse_meminfo(path.read_text())
    free = next(line for line in path.read_text().splitlines() if line.startswith("MemFree:"))
    assert info.mem_free == int(free.split()[1])
    assert notes == []


def test_meminfo_values_and_vmstat_columns() -> None:
    info, _ = parse_meminfo((CORPUS / "proc-meminfo" / "prometheus-node_exporter__proc_meminfo").read_text())
    assert (info.mem_total, info.mem_free, info.buffers, info.cached) == (3742148, 225472, 22040, 930888)
    assert (info.s_reclaimable, info.swap_total, info.swap_free, info.mem_available) == (44772, 4194300, 3155360, None)
    vm = rates.vm_stat(None, None, None, None, info, 1.0, 4.0)
    # vmstat: swpd = SwapTotal - SwapFree, cache = Cached + SReclaimable.
    assert (vm.swpd_kib, vm.free_kib, vm.buff_kib, vm.cache_kib) == (1038940, 225472, 22040, 975660)


@pytest.mark.parametrize("path", VMSTAT_FILES, ids=short_id)
def test_every_corpus_vmstat_parses(path: Path) -> None:
    counters, notes = parse_vmstat(path.read_text())
    assert counters.pgpgin is not None and counters.pswpout is not None
    assert notes == []


def test_node_exporter_vmstat_values() -> None:
    counters, _ = parse_vmstat((CORPUS / "proc-vmstat" / "prometheus-node_exporter__proc_vmstat").read_text())
    assert (counters.pgpgin, counters.pgpgout, counters.pswpin, counters.pswpout) == (7344136, 1541180581, 1476, 35045)


# ----------------------------------------------------------------- hwmon


def test_hwmon_corpus_sensors(tmp_path: Path) -> None:
    sensors, notes = read_sensors(Root(hwmon_root(tmp_path)))
    got = [(s.chip, s.label, s.kind, s.value, s.high, s.crit) for s in sensors]
    core = [("Physical id 0", 55.0), ("Core 0", 54.0), ("Core 1", 52.0), ("Core 2", 53.0), ("Core 3", 50.0)]
    assert got == [
        *[("coretemp-0", label, "temp", value, 84.0, 100.0) for label, value in core],
        *[("coretemp-1", label, "temp", value, 84.0, 100.0) for label, value in core],
        ("nct6779-3", "fan2", "fan", 1098.0, None, None),
        # hwmon4 has no name file: the directory names the chip.
        ("hwmon4", "foosensor", "temp", 55.0, 100.0, 100.0),
        ("hwmon4", "foosensor", "temp", 54.0, 100.0, 100.0),
        ("mt7996_phy0_0-8", "temp1", "temp", 55.0, None, None),
        ("mt7996_phy0_1-9", "temp1", "temp", 56.0, None, None),
        ("mt7996_phy0_2-10", "temp1", "temp", 57.0, None, None),
    ]
    assert notes == []
    assert {s.level for s in sensors} == {"ok"}


def test_hwmon_dangling_chip_link_is_a_note(tmp_path: Path) -> None:
    root = hwmon_root(tmp_path)
    shutil.rmtree(root / "sys" / "devices" / "platform" / "nct6775.656")
    sensors, notes = read_sensors(Root(root))
    assert not any(s.chip.startswith("nct6779") for s in sensors)
    assert any("hwmon3" in n for n in notes)
    assert len(sensors) == 15


@pytest.mark.parametrize(
    ("content", "expected_note"),
    [("", "not a number"), ("hot\n", "not a number"), ("\x00\xff\x17", "not a number"), (None, "hwmon0")],
    ids=["empty", "word", "binary", "directory"],
)
def test_hwmon_bad_reading_is_a_note(tmp_path: Path, content: str | None, expected_note: str) -> None:
    root = hwmon_root(tmp_path)
    reading = root / "sys" / "devices" / "platform" / "coretemp.0" / "hwmon" / "hwmon0" / "temp2_input"
    reading.unlink()
    if content is None:
        reading.mkdir()  # unreadable as a file, even for root
    else:
        reading.write_bytes(content.encode("latin-1"))
    sensors, notes = read_sensors(Root(root))
    bad = next(s for s in sensors if s.chip == "coretemp-0" and s.label == "Core 0")
    assert bad.value is None
    assert any(expected_note in n and "temp2" in n for n in notes), notes
