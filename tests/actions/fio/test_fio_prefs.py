"""The remembered Benchmarks choices: written through the one atomic writer, read bounded.

Real files, symlinks and FIFOs in a temporary directory; a sentinel file
outside raidtop's own must keep its content.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from raidtop.actions.fio.prefs import BenchPrefs, load_prefs, save_prefs


def test_saved_choices_come_back_and_the_file_is_private(tmp_path: Path):
    path = tmp_path / "raidtop" / "bench.json"
    save_prefs(BenchPrefs("/srv/bench", 30), path)
    assert load_prefs(path) == BenchPrefs("/srv/bench", 30)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [p.name for p in path.parent.iterdir()] == ["bench.json"]  # no temporary file left behind


def test_a_symlink_planted_at_the_prefs_file_is_replaced_not_written_through(tmp_path: Path):
    sentinel = tmp_path / "precious"
    sentinel.write_text("keep me\n")
    path = tmp_path / "bench.json"
    path.symlink_to(sentinel)
    save_prefs(BenchPrefs("/srv/bench", 15), path)
    # The link's target is never opened for writing: the file replaces the link.
    assert sentinel.read_text() == "keep me\n"
    assert not path.is_symlink() and load_prefs(path).target == "/srv/bench"


def test_a_fifo_in_place_of_the_prefs_file_gives_the_defaults_without_hanging(tmp_path: Path):
    path = tmp_path / "bench.json"
    os.mkfifo(path)
    # Before: read_text() opened the FIFO blocking and the screen's load worker waited forever.
    assert load_prefs(path) == BenchPrefs()
    assert stat.S_ISFIFO(path.lstat().st_mode)  # left as it was


def test_a_damaged_or_huge_prefs_file_gives_the_defaults(tmp_path: Path):
    path = tmp_path / "bench.json"
    path.write_text('{"target": 7, "runtime_s": true}')
    assert load_prefs(path) == BenchPrefs()
    path.write_text('{"target": "' + "x" * 100_000 + '"}')
    assert load_prefs(path) == BenchPrefs()
