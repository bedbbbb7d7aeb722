"""Each /proc parser, fed a damaged file, says what it could not read and keeps the rest.

A note, never an exception.
"""

from __future__ import annotations

import pytest

from raidtop.collect.cpustat import parse_stat
from raidtop.collect.diskstats import parse_diskstats
from raidtop.collect.memory import parse_loadavg, parse_meminfo, parse_pressure, parse_uptime, parse_vmstat

# Both ways of reading disks: the compiled parse and rates, and their Python twin alone.
pytestmark = pytest.mark.usefixtures("disk_code")

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
