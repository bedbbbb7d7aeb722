"""The one duration and one size formatter: cells and sentences, at every unit step."""

from __future__ import annotations

import pytest

from raidtop.model.units import DASH, counted, duration, parse_duration, size


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
        (512, "0K", "512 B"),
        (512 * 1024, "512K", "512 KiB"),
        (64 << 20, "64.0M", "64 MiB"),
        (3 << 29, "1.5G", "1.5 GiB"),
        (5 << 40, "5.0T", "5 TiB"),
        (2048 << 50, "2048.0P", "2048 PiB"),
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
