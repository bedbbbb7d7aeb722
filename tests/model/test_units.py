"""The one duration and one size formatter: cells and sentences, at every unit step."""

from __future__ import annotations

import pytest

from raidtop.model.units import DASH, counted, duration, non_iec, parse_duration, rate, size


@pytest.mark.parametrize(
    ("seconds", "cell", "coarse", "spoken"),
    [
        (None, DASH, DASH, DASH),
        (0, "0s", "0s", "0.0 s"),
        (3.21, "3s", "3s", "3.2 s"),
        (59.7, "1m00s", "59s", "59.7 s"),
        (64, "1m04s", "1m", "1 min 04 s"),
        (750, "12m30s", "12m", "12 min 30 s"),
        (7620, "2h07m", "2h07m", "2 h 07 min"),
        (273600, "3d04h", "3d04h", "3 d 04 h"),
    ],
)
def test_duration_in_both_registers(seconds, cell, coarse, spoken):
    assert duration(seconds) == cell
    assert duration(seconds, coarse=True) == coarse
    assert duration(seconds, spoken=True) == spoken


def test_a_coarse_measurement_says_so():
    assert duration(12.0, spoken=True, resolution_s=30.0) == "≤ 12.0 s"
    assert duration(2.0, spoken=True, resolution_s=0.05) == "2.0 s"
    assert duration(600, spoken=True, resolution_s=30.0) == "10 min 00 s"


@pytest.mark.parametrize(
    ("n_bytes", "cell", "spoken"),
    [
        (None, DASH, "?"),
        (512, "0KiB", "512 B"),
        (512 * 1024, "512KiB", "512 KiB"),
        (64 << 20, "64.0MiB", "64 MiB"),
        (3 << 29, "1.5GiB", "1.5 GiB"),
        (5 << 40, "5.0TiB", "5 TiB"),
        (2048 << 50, "2048.0PiB", "2048 PiB"),
    ],
)
def test_size_in_both_registers(n_bytes, cell, spoken):
    assert size(n_bytes) == cell
    assert size(n_bytes, spoken=True) == spoken


@pytest.mark.parametrize(
    ("typed", "seconds"),
    [("30", 30.0), ("0.5", 0.5), (".5", 0.5), ("5s", 5.0), ("2m", 120.0), ("1.5h", 5400.0), ("1d", 86400.0)],
)
def test_one_duration_grammar_for_options_and_the_replays_jump(typed: str, seconds: float):
    from raidtop.cli.options import seconds as option_seconds
    from raidtop.live.replay_position import parse_jump

    assert parse_duration(typed) == seconds
    assert option_seconds(0, 10**6)(typed) == seconds  # record --duration, --interval, ...
    assert parse_jump(f"+{typed}", 0.0, 10.0**6, 100.0) == 100.0 + seconds  # the replay's j
    assert parse_jump(typed, 50.0, 10.0**6, 500.0) == 50.0 + seconds  # j without a sign: from the start


@pytest.mark.parametrize("typed", ["", "5x", "5 s s", "inf", "nan", "1e3", "-5", "+5", "5S", "٥", "9" * 40, "5ms"])
def test_what_is_no_duration_is_refused_by_every_path(typed: str):
    import argparse

    from raidtop.cli.options import seconds as option_seconds
    from raidtop.live.replay_position import parse_jump

    assert parse_duration(typed) is None
    with pytest.raises(argparse.ArgumentTypeError):
        option_seconds(0, 10**6)(typed)
    assert parse_jump(f"+{typed}", 0.0, 10.0**6, 100.0) is None


def test_a_count_takes_the_singular_only_for_one():
    assert [counted(n, "array") for n in (0, 1, 2)] == ["0 arrays", "1 array", "2 arrays"]
    assert counted(1, "pass", "passes") == "1 pass" and counted(3, "pass", "passes") == "3 passes"


def test_no_module_makes_a_plural_by_hand():
    # "1 arrays", "Results history (1 runs)": every count goes through counted().
    import re
    from pathlib import Path

    import raidtop

    package = Path(raidtop.__file__).parent
    by_hand = re.compile(
        r"""\{['"]s['"] if |['"]{2} if [^}]*else ['"]s['"]\}"""
        r"""|\{(len\([^()]*\)|[a-z_.]+)\} (runs|readings|steps|passes|arrays|disks)\b"""
    )
    found = [
        f"{path.relative_to(package)}:{number}"
        for path in sorted(package.rglob("*.py"))
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if by_hand.search(line)
    ]
    assert found == []


@pytest.mark.parametrize(
    ("kib_s", "cell", "spoken"),
    [
        (None, DASH, "?"),
        (980, "980KiB/s", "980 KiB/s"),
        (10_239, "10239KiB/s", "10239 KiB/s"),
        (20 * 1024, "20.0MiB/s", "20 MiB/s"),
        (259_783, "253.7MiB/s", "253.7 MiB/s"),
        (3 << 20, "3072.0MiB/s", "3072 MiB/s"),
        (12 << 20, "12.0GiB/s", "12 GiB/s"),
    ],
)
def test_rate_in_both_registers(kib_s, cell, spoken):
    assert rate(kib_s) == cell
    assert rate(kib_s, spoken=True) == spoken


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("rkB/s", ["kB/s"]),  # iostat's header: its kB are KiB, so raidtop writes rKiB/s
        ("1000K/s", ["0K"]),
        ("12.3 MB/s", ["MB/s"]),
        ("a 64 MB disk", ["MB"]),
        ("1.5G", ["5G"]),
        ("rkb_s", ["rkb_s"]),
        ("swpd_kb", ["_kb"]),
        ("read_MBps", ["MBps"]),
        ("rKiB/s 12.3MiB/s 1.5 GiB rkib_s swpd_kib read_b_s size_bytes 31.2k IOPS", []),
    ],
)
def test_non_iec_finds_every_unit_outside_the_convention(text, found):
    assert non_iec(text) == found


def test_every_formatter_keeps_the_convention():
    values = [0, 1, 512, 1000, 1024, 10**6, 3 << 29, 10**12, 5 << 40]
    shown = [size(v) for v in values] + [size(v, spoken=True) for v in values]
    shown += [rate(v) for v in values] + [rate(v, spoken=True) for v in values]
    assert [s for s in shown if non_iec(s)] == []
