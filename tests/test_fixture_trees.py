"""Fixture trees must not loop: pytest and setuptools walk them following links."""

from __future__ import annotations

import os
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"


def test_no_symlink_in_tests_data_points_at_its_own_ancestor():
    loops = []
    for dirpath, dirnames, filenames in os.walk(DATA):
        here = os.path.realpath(dirpath)
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            if os.path.islink(path):
                target = os.path.realpath(path)
                if here == target or here.startswith(target + os.sep):
                    loops.append(os.path.relpath(path, DATA))
    assert loops == [], f"symlinks that loop back to an ancestor: {loops}"


def test_every_fixture_directory_survives_a_clone():
    # git drops empty directories, and a missing sys/block/<disk>/<part>
    # directory silently turns a partition into a disk.
    empty = [os.path.relpath(d, DATA) for d, dirs, files in os.walk(DATA) if not dirs and not files]
    assert empty == [], f"empty directories (add a .keep file): {empty}"
