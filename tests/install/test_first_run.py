"""A newcomer's first ``make run`` in a fresh clone: nothing but the dashboard.

The Makefile's own commands run in a copy of the checkout's files (what a
clone holds) with no venv: it creates ``.venv``, installs raidtop into it and
starts raidtop (``ARGS=--version``, so it exits instead of drawing the UI).
Everything printed on the way is what a user reads before the first frame;
a page of setuptools deprecation warnings (the old license table) once was
all of it.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from raidtop import __version__
from tests.install.test_wheel import PROJECT, user_env

pytestmark = pytest.mark.wheel
WARNING = re.compile(r"warn|deprecat|!!", re.IGNORECASE)


def fresh_clone(dest: Path) -> Path:
    """The files a clone of this checkout holds (tracked, and new files not ignored), copied to ``dest``."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=PROJECT,
        capture_output=True,
        check=True,
        timeout=60,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = PROJECT / name
        if source.is_file():  # a file deleted but not yet committed is not in the clone either
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name, follow_symlinks=False)
    return dest


@pytest.mark.skipif(shutil.which("make") is None or shutil.which("git") is None, reason="needs make and git")
def test_first_make_run_prints_no_warning_before_the_ui(tmp_path):
    clone = fresh_clone(tmp_path / "raidtop")
    make = ["make", "run", "ARGS=--version", f"PYTHON={sys.executable}"]
    env = user_env(tmp_path)
    # make echoes its commands (one sets PYTHONWARNINGS): those lines are the Makefile's, not output.
    echoed = set(
        subprocess.run(
            [*make[:1], "-n", *make[1:]], cwd=clone, capture_output=True, text=True, env=env
        ).stdout.splitlines()
    )
    result = subprocess.run(make, cwd=clone, capture_output=True, text=True, timeout=600, env=env)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-3000:]
    assert (clone / ".venv" / "bin" / "raidtop").exists()  # the install happened here, not elsewhere
    assert __version__ in result.stdout  # and raidtop itself ran last
    warnings = [line for line in output.splitlines() if WARNING.search(line) and line not in echoed]
    assert warnings == [], "\n".join(warnings)
