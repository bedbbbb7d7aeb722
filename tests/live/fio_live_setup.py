"""Short fio presets and the skip-or-fail rule shared by the live fio tests."""

from __future__ import annotations

import os

import pytest

from raidtop.actions.fio.presets import parse_presets_toml

# Short runs and a small test file: the machine is shared and CI has minutes, not hours.
PRESETS = parse_presets_toml('runtime = 1\nsize = "16M"\n')


def require(condition: bool, reason: str) -> None:
    if not condition:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI must run this test: {reason}")
        pytest.skip(reason)


def preset(name: str):
    return PRESETS.get(name)
