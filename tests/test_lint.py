"""The project's gates: ruff (lint and format) and mypy, under pyproject.toml's own configuration.

``make test`` runs these with the suite, so a finding fails the build the
same way a broken test does. The tools are pinned in pyproject.toml's test
extra: a new release's new rules are adopted deliberately, not by surprise.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def run(*argv: str) -> subprocess.CompletedProcess[str]:
    """Run one of the venv's tools at the project's top, where it finds pyproject.toml."""
    return subprocess.run([str(BIN / argv[0]), *argv[1:]], cwd=PROJECT, capture_output=True, text=True, timeout=600)


def test_ruff_finds_nothing() -> None:
    result = run("ruff", "check", "--no-cache", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_leaves_every_file_as_it_is() -> None:
    result = run("ruff", "format", "--check", "--no-cache", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_finds_nothing_in_the_package() -> None:
    # The package list ([tool.mypy] packages) and every setting come from pyproject.toml.
    result = run("mypy", "--no-incremental")
    assert result.returncode == 0, result.stdout[-20000:] + result.stderr
