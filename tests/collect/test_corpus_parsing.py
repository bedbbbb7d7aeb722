"""Every /proc and hwmon sample in the corpus parses; damaged input gives notes, never exceptions.

The corpus files are real captures and upstream fixtures (tests/data/corpus/PROVENANCE.md);
the sysstat recordings are shared with the equivalence tests (tests/data/sysstat). Values
asserted below were read off the files by hand.
"""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from raidtop.collect import rates
from raidtop.collect.cpustat import parse_stat
from raidtop.collect.diskstats import DiskstatsParser, parse_diskstats
from raidtop.collect.hwmon import read_sensors
from raidtop.collect.memory import parse_loadavg, parse_meminfo, parse_pressure, parse_uptime, parse_vmstat
from raidtop.collect.sampler import Sampler
from raidtop.collect.source import Root
from raidtop.model.snapshot import DiskCounters, Snapshot

DATA = Path(__file__).resolve().parents[1] / "data"
CORPUS = DATA / "corpus"
SYSSTAT = DATA / "sysstat"
SYSSTAT_TREES = ("root1", "root2", "root3", "root4", "root5", "root6", "root7")
HWMON = CORPUS / "hwmon" / "prometheus-node_exporter__sys"


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
    assert (vm.swpd_kb, vm.free_kb, vm.buff_kb, vm.cache_kb) == (1038940, 225472, 22040, 975660)


@pytest.mark.parametrize("path", VMSTAT_FILES, ids=short_id)
def test_every_corpus_vmstat_parses(path: Path) -> None:
    counters, notes = parse_vmstat(path.read_text())
    assert counters.pgpgin is not None and counters.pswpout is not None
    assert notes == []


def test_node_exporter_vmstat_values() -> None:
    counters, _ = parse_vmstat((CORPUS / "proc-vmstat" / "prometheus-node_exporter__proc_vmstat").read_text())
    assert (counters.pgpgin, counters.pgpgout, counters.pswpin, counters.pswpout) == (7344136, 1541180581, 1476, 35045)


# ----------------------------------------------------------------- hwmon


def hwmon_root(tmp_path: Path) -> Path:
    """The node_exporter sysfs fixture with its symlinks recreated from SYMLINKS.txt.

    class/hwmon/hwmonN are symlinks into devices/ on a real system; the corpus
    stores them as a list because its copies keep regular files only.
    """
    root = tmp_path / "hwmon-root"
    shutil.copytree(HWMON, root / "sys")
    for line in (HWMON / "SYMLINKS.txt").read_text().splitlines():
        link, _, target = line.partition(" -> ")
        path = root / link
        path.parent.mkdir(parents=True, exist_ok=True)
        path.symlink_to(target)
    return root


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


# ----------------------------------------------------------------- damaged input, parser by parser

GOOD_DISK = "   8       0 sda 49601 2822 3195498 623970 12180 9784 821088 117109 0 32862 714408 0 0 0 0\n"


@pytest.mark.parametrize(
    ("text", "expected_note", "devices"),
    [
        ("   8       0 sda 49601 2822 3195\n", "short line", 0),
        (GOOD_DISK.rstrip("\n") + " 7 7 7\n", "field count", 1),
        ("   8       0 sda 49601 2822 319x498 623970 12180 9784 821088 117109 0 32862 714408\n", "non-numeric", 0),
        ("   8       0 sda 49601 -2822 3195498 623970 12180 9784 821088 117109 0 32862 714408\n", "negative", 0),
        ("", "no devices", 0),
        ("\x00\x01\x02garbage\xff\n", "short line", 0),
        ("   8       0 s\x00a 1 2 3 4 5 6 7 8 9 10 11\n", "device name", 0),
        (GOOD_DISK + "   8       1 sda1 51 0 42\n", "short line", 1),
    ],
    ids=["truncated", "extra-fields", "non-number", "negative", "empty", "binary", "nul-in-name", "one-bad-line"],
)
def test_damaged_diskstats_gives_a_note(text: str, expected_note: str, devices: int) -> None:
    disks, notes = parse_diskstats(text)
    assert len(disks) == devices
    assert any(expected_note in n for n in notes), notes


@pytest.mark.parametrize(
    ("text", "expected_note", "cpus"),
    [
        ("cpu  1 2 3 4 5 6 7 8 9 10\ncpu0 1 2\n", "needs at least 4", ["all"]),
        ("cpu  1 2 3 4 5 6 7 8 9 10 11 12\n", "more than 10", ["all"]),
        ("cpu  1 2 x 4 5 6 7 8 9 10\ncpu0 1 2 3 4\n", "non-numeric", [0]),
        ("cpu  1 2 3 4\ncpu0 1 -2 3 4\n", "negative", ["all"]),
        ("", "no 'cpu' summary line", []),
        ("\x00\xff\xfe cpu\n", "no 'cpu' summary line", []),
        ("cpu  1 2 3 4\ncpuX 1 2 3 4\n", "unknown line", ["all"]),
        ("cpu  1 2 3 4\ncpu0 1 2 3 4\ncpu0 5 6 7 8\n", "second cpu0", ["all", 0]),
        ("cpu  1 2 3 4\nctxt many\n", "ctxt is not a number", ["all"]),
    ],
    ids=["truncated", "extra-fields", "non-number", "negative", "empty", "binary", "bad-name", "duplicate", "bad-ctxt"],
)
def test_damaged_stat_gives_a_note(text: str, expected_note: str, cpus: list) -> None:
    stat, notes = parse_stat(text)
    assert [c.cpu for c in stat.cpus] == cpus
    assert any(expected_note in n for n in notes), notes


@pytest.mark.parametrize(
    ("parser", "text", "expected_note"),
    [
        (parse_meminfo, "MemFree: lots kB\nBuffers: 12 kB\n", "MemFree is not a number"),
        (parse_meminfo, "", "no usable fields"),
        (parse_meminfo, "\x00\x01", "no usable fields"),
        (parse_meminfo, "MemFree: -5 kB\n", "negative"),
        (parse_vmstat, "pgpgin x\npgpgout 5\n", "pgpgin is not a number"),
        (parse_vmstat, "", "no paging"),
        (parse_uptime, "", "malformed"),
        (parse_uptime, "up a while\n", "malformed"),
        (parse_uptime, "nan 5.0\n", "malformed"),
        (parse_loadavg, "0.5 0.7\n", "malformed"),
        (parse_loadavg, "inf 1 1 2/3 4\n", "malformed"),
        (lambda text: parse_pressure("io", text), "some avg10=x\n", "malformed"),
    ],
    ids=[
        "meminfo-word",
        "meminfo-empty",
        "meminfo-binary",
        "meminfo-negative",
        "vmstat-word",
        "vmstat-empty",
        "uptime-empty",
        "uptime-words",
        "uptime-nan",
        "loadavg-truncated",
        "loadavg-inf",
        "pressure-word",
    ],
)
def test_damaged_memory_files_give_a_note(parser, text: str, expected_note: str) -> None:
    _, notes = parser(text)
    assert any(expected_note in n for n in notes), notes


# ----------------------------------------------------------------- damaged input, through the Sampler


@pytest.fixture
def live_like_root(tmp_path: Path) -> Path:
    """sysstat's root1 (proc files and sys/block) plus the hwmon fixture: a whole machine."""
    root = hwmon_root(tmp_path)
    shutil.copytree(SYSSTAT / "root1" / "proc", root / "proc")
    shutil.copytree(SYSSTAT / "root1" / "sys" / "block", root / "sys" / "block")
    return root


def two_samples(root: Path, damage) -> Snapshot:
    """Sample the good tree, apply ``damage``, sample again; return the second snapshot."""
    sampler = Sampler(root)
    first = sampler.sample()
    assert first.disks and first.cpus and first.sensors and first.vm is not None
    damage(root)
    return sampler.sample()


def write(path: str, content: str):
    def damage(root: Path) -> None:
        (root / path.lstrip("/")).write_text(content)

    return damage


def replace_with_directory(path: str):
    def damage(root: Path) -> None:
        target = root / path.lstrip("/")
        target.unlink()
        target.mkdir()

    return damage


def remove(path: str):
    def damage(root: Path) -> None:
        (root / path.lstrip("/")).unlink()

    return damage


def edit_line(path: str, name: str, change):
    def damage(root: Path) -> None:
        target = root / path.lstrip("/")
        lines = [change(line) if line.split()[2:3] == [name] else line for line in target.read_text().splitlines()]
        target.write_text("".join(f"{line}\n" for line in lines if line is not None))

    return damage


def lower_counters(line: str) -> str:
    fields = line.split()
    return " ".join(fields[:3] + [str(int(f) // 2) for f in fields[3:]])


SAMPLER_DAMAGE = [
    ("diskstats-missing", remove("/proc/diskstats"), "/proc/diskstats: not present", "cpus"),
    ("diskstats-directory", replace_with_directory("/proc/diskstats"), "/proc/diskstats:", "cpus"),
    ("diskstats-empty", write("/proc/diskstats", ""), "no devices", "cpus"),
    ("diskstats-garbage", write("/proc/diskstats", "\x7fELF\x02\x01\x01\x00\x00\x00\n"), "/proc/diskstats", "cpus"),
    ("diskstats-truncated-line", edit_line("/proc/diskstats", "sdq", lambda line: line[:30]), "short line", "disks"),
    ("stat-missing", remove("/proc/stat"), "/proc/stat: not present", "disks"),
    ("stat-directory", replace_with_directory("/proc/stat"), "/proc/stat:", "disks"),
    ("stat-empty", write("/proc/stat", ""), "no 'cpu' summary line", "disks"),
    ("meminfo-empty", write("/proc/meminfo", ""), "/proc/meminfo: no usable fields", "disks"),
    ("vmstat-words", write("/proc/vmstat", "pgpgin lots\n"), "pgpgin is not a number", "disks"),
    ("uptime-garbage", write("/proc/uptime", "\xff\xfe"), "/proc/uptime: malformed", "disks"),
    ("uptime-backwards", write("/proc/uptime", "10.00 5.00\n"), "/proc/uptime went backwards", "cpus"),
    ("loadavg-missing", remove("/proc/loadavg"), "/proc/loadavg: not present", "disks"),
    ("device-vanishes", edit_line("/proc/diskstats", "sdr", lambda line: None), "sdr: disappeared", "disks"),
    (
        "counters-backwards",
        edit_line("/proc/diskstats", "sdq", lower_counters),
        "sdq: counters went backwards",
        "disks",
    ),
    (
        "hwmon-directory",
        replace_with_directory("/sys/devices/platform/coretemp.1/hwmon/hwmon1/temp3_input"),
        "temp3",
        "sensors",
    ),
]


@pytest.mark.parametrize(
    ("damage", "expected_note", "still_shown"), [d[1:] for d in SAMPLER_DAMAGE], ids=[d[0] for d in SAMPLER_DAMAGE]
)
def test_sampler_turns_damage_into_a_note(live_like_root: Path, damage, expected_note: str, still_shown: str) -> None:
    """The damaged source becomes a note; the other panels keep their data."""
    snapshot = two_samples(live_like_root, damage)
    assert any(expected_note in n for n in snapshot.notes), snapshot.notes
    assert getattr(snapshot, still_shown)


def test_sampler_vanished_and_reset_devices(live_like_root: Path) -> None:
    snapshot = two_samples(
        live_like_root,
        lambda root: (
            edit_line("/proc/diskstats", "sdr", lambda line: None)(root),
            edit_line("/proc/diskstats", "sdq", lower_counters)(root),
        ),
    )
    rows = {d.name: d for d in snapshot.disks}
    assert "sdr" not in rows
    assert all(getattr(rows["sdq"], f) is None for f in rates.DISK_RATE_FIELDS)
    assert rows["sda"].r_s == 0.0  # untouched devices still have rates


def test_sampler_device_appearing_has_no_rate_until_next_sample(live_like_root: Path) -> None:
    sampler = Sampler(live_like_root)
    sampler.sample()
    with (live_like_root / "proc" / "diskstats").open("a") as handle:
        handle.write("   8      96 sdg 100 0 800 50 0 0 0 0 0 40 50 0 0 0 0\n")
    second = sampler.sample()
    assert next(d for d in second.disks if d.name == "sdg").r_s is None
    assert any("sdg: appeared" in n for n in second.notes)
    third = sampler.sample()
    assert next(d for d in third.disks if d.name == "sdg").r_s == 0.0


def test_sampler_on_an_empty_root_only_notes(tmp_path: Path) -> None:
    snapshot = Sampler(tmp_path).sample()
    assert snapshot.disks == () and snapshot.cpus == () and snapshot.sensors == ()
    assert {"/proc/diskstats: not present", "/proc/stat: not present"} <= set(snapshot.notes)


def test_cpu_counter_going_backwards_gives_no_share() -> None:
    """user only grows: a smaller one is a broken reading, not 0 % (mpstat would show
    the other fields' shares of a shrunken total, above 100 %)."""
    before, _ = parse_stat("cpu  0 0 0 0\ncpu0 500 0 100 1000\ncpu1 500 0 100 1000\n")
    after, _ = parse_stat("cpu  0 0 0 0\ncpu0 400 0 200 1100\ncpu1 550 0 150 1100\n")
    usage = {u.cpu: u for u in rates.cpu_usages(before, after)}
    assert usage[0].usr is None and usage[0].idle is None
    # "all" covers the CPUs with a share: cpu1 alone (50 + 50 + 100 ticks).
    assert (usage["all"].usr, usage["all"].sys, usage["all"].idle) == (25.0, 25.0, 50.0)
    assert (usage[1].usr, usage[1].sys, usage[1].idle) == (25.0, 25.0, 50.0)


def test_sampler_without_a_previous_stat_gives_no_cpu_share(live_like_root: Path) -> None:
    stat = (live_like_root / "proc" / "stat").read_text()
    (live_like_root / "proc" / "stat").unlink()
    sampler = Sampler(live_like_root)
    assert sampler.sample().cpus == ()
    (live_like_root / "proc" / "stat").write_text(stat)
    cpus = sampler.sample().cpus
    # No reference: not since-boot averages passed off as this interval's.
    assert [c.cpu for c in cpus] == ["all"] and cpus[0].idle is None


def test_32_bit_tick_wrap_is_a_rate_not_a_reset() -> None:
    """The kernel prints the millisecond fields with %u; they wrap at 2**32."""
    before = DiskCounters(8, 0, "sda", 100, 0, 800, 10, 0, 0, 0, 0, 1, 2**32 - 300, 2**32 - 1000)
    after = DiskCounters(8, 0, "sda", 200, 0, 1600, 20, 0, 0, 0, 0, 1, 700, 1000)
    row = rates.disk_io(before, after, 1.0)
    assert row.util_pct == pytest.approx(100.0)  # 1000 ms busy in 1 s, across the wrap
    assert row.aqu_sz == pytest.approx(2.0)
    # A small drop in the same field is no wrap: the device was reset.
    reset = DiskCounters(8, 0, "sda", 200, 0, 1600, 20, 0, 0, 0, 0, 1, 2**32 - 400, 2**32)
    assert rates.disk_io(before, reset, 1.0).util_pct is None


# ----------------------------------------------------------------- random damage (hypothesis)

REAL_DISKSTATS = (CORPUS / "proc-diskstats" / "prometheus-procfs__proc_diskstats").read_text()
REAL_STAT = (SYSSTAT / "root1" / "proc" / "stat").read_text()


@st.composite
def damaged(draw, text: str) -> str:
    """``text`` after a few random edits of the kinds a bad read or a bad file makes."""
    data = bytearray(text.encode())
    for _ in range(draw(st.integers(1, 6))):
        if not data:
            break
        at = draw(st.integers(0, len(data) - 1))
        edit = draw(st.sampled_from(["cut", "insert", "overwrite", "truncate", "repeat-line", "digit"]))
        if edit == "cut":
            del data[at : at + draw(st.integers(1, 40))]
        elif edit == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=12))
        elif edit == "overwrite":
            chunk = draw(st.binary(min_size=1, max_size=8))
            data[at : at + len(chunk)] = chunk
        elif edit == "truncate":
            del data[at:]
        elif edit == "repeat-line":
            start = data.rfind(b"\n", 0, at) + 1
            end = data.find(b"\n", at)
            data[start:start] = data[start : (end + 1 if end >= 0 else len(data))]
        else:
            data[at : at + 1] = str(draw(st.integers(0, 9))).encode()
    return bytes(data).decode("utf-8", "replace")


def all_rates_sane(row) -> bool:
    values = [getattr(row, f) for f in rates.DISK_RATE_FIELDS]
    return all(v is None or (math.isfinite(v) and v >= 0) for v in values)


REAL_DISKS = {d.name: d for d in parse_diskstats(REAL_DISKSTATS)[0]}
REAL_CPUS, _ = parse_stat(REAL_STAT)


@settings(max_examples=100, deadline=None)
@given(damaged(REAL_DISKSTATS))
def test_damaged_diskstats_never_raises_nor_gives_a_negative_rate(text: str) -> None:
    disks, notes = parse_diskstats(text)
    assert all(isinstance(n, str) for n in notes)
    # The caching parser agrees with a fresh parse whatever came before.
    cached = DiskstatsParser()
    cached.parse(REAL_DISKSTATS)
    assert cached.parse(text) == (disks, notes)
    original = REAL_DISKS
    for disk in disks:
        if disk.name in original:
            assert all_rates_sane(rates.disk_io(original[disk.name], disk, 1.0))
            assert all_rates_sane(rates.disk_io(disk, original[disk.name], 1.0))


def cpu_shares_sane(rows) -> bool:
    fields = ("usr", "nice", "sys", "iowait", "irq", "soft", "steal", "guest", "gnice", "idle")
    values = [getattr(r, f) for r in rows for f in fields]
    sums = [sum(getattr(r, f) for f in fields) for r in rows if r.idle is not None]
    in_range = all(v is None or 0.0 <= v <= 100.0 + 1e-9 for v in values)
    return in_range and all(s <= 100.0 + 1e-6 for s in sums)


@settings(max_examples=100, deadline=None)
@given(damaged(REAL_STAT))
def test_damaged_stat_never_raises_nor_gives_shares_outside_0_100(text: str) -> None:
    stat, notes = parse_stat(text)
    assert all(isinstance(n, str) for n in notes)
    original = REAL_CPUS
    assert cpu_shares_sane(rates.cpu_usages(original, stat))
    assert cpu_shares_sane(rates.cpu_usages(stat, original))
    assert cpu_shares_sane(rates.cpu_usages(None, stat))
    for before, after in ((original, stat), (stat, original)):
        vm = rates.vm_stat(before, after, None, None, None, 1.0, 4.0, since_boot=False)
        shares = [vm.us, vm.sy, vm.id, vm.wa, vm.st]
        assert all(v is None or 0.0 <= v <= 100.0 + 1e-9 for v in shares)


@pytest.fixture(scope="module")
def damage_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("damage-root")
    shutil.copytree(SYSSTAT / "root1" / "proc", root / "proc")
    shutil.copytree(SYSSTAT / "root1" / "sys" / "block", root / "sys" / "block")
    return root


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(diskstats=damaged(REAL_DISKSTATS), stat=damaged(REAL_STAT))
def test_sampler_never_raises_on_damaged_files(damage_root: Path, diskstats: str, stat: str) -> None:
    proc = damage_root / "proc"
    (proc / "diskstats").write_text(REAL_DISKSTATS)
    (proc / "stat").write_text(REAL_STAT)
    sampler = Sampler(damage_root)
    sampler.sample()
    (proc / "diskstats").write_text(diskstats)
    (proc / "stat").write_text(stat)
    snapshot = sampler.sample()
    assert all(all_rates_sane(d) for d in snapshot.disks)
    assert cpu_shares_sane(snapshot.cpus)
    # And back to the good files: the damaged sample is a usable reference too.
    (proc / "diskstats").write_text(REAL_DISKSTATS)
    (proc / "stat").write_text(REAL_STAT)
    recovered = sampler.sample()
    assert all(all_rates_sane(d) for d in recovered.disks)
    assert cpu_shares_sane(recovered.cpus)
