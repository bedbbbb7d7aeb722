"""The Sampler, on a whole machine's tree damaged file by file, turns each damage into a note.

What it could still read stays on show.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from raidtop.collect import rates
from raidtop.collect.cpustat import parse_stat
from raidtop.collect.sampler import Sampler
from raidtop.model.snapshot import DiskCounters, Snapshot
from tests.collect.corpus_files import SYSSTAT, hwmon_root


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
