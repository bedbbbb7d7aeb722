"""Fixtures for UI tests: deterministic snapshots from recorded roots."""

from __future__ import annotations

from pathlib import Path

import pytest

from raidtop.collect.sampler import Sampler
from raidtop.collect.source import Root
from raidtop.config import Config
from raidtop.model.snapshot import Snapshot

DATA = Path(__file__).resolve().parent / "data" / "ui"


def two_root_snapshot() -> Snapshot:
    """Rates between sysstat's recorded root1 and root2 (31.17 s apart)."""
    sampler = Sampler(DATA / "root1", clock=lambda: 1_600_000_000.0)
    sampler.sample()
    sampler.root = Root(DATA / "root2")
    return sampler.sample()


@pytest.fixture
def sample_snapshot() -> Snapshot:
    return two_root_snapshot()


@pytest.fixture
def static_config() -> Config:
    """An app that samples nothing by itself: tests hand it snapshots."""
    return Config(root=DATA / "root1", autostart_sampler=False)


@pytest.fixture(autouse=True)
def utc_clock(monkeypatch):
    """Clock strings on screen must not depend on the machine's time zone."""
    import time

    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()
