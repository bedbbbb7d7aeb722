"""Run-time settings: the CLI builds one Config and hands it to the app."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

INTERVAL_STEPS = (0.5, 1.0, 2.0, 5.0, 10.0, 30.0)


@dataclass(frozen=True)
class Config:
    """Everything the app needs to start."""

    root: Path = Path("/")
    interval: float = 1.0
    theme: str | None = None
    bell: bool = True
    """Ring the terminal bell on Fail and DegradedArray."""
    autostart_sampler: bool = True
    """Tests turn this off to feed snapshots by hand."""
    replay: Path | None = None
    """A recording to replay instead of reading the system."""
    demo: bool = False
    """Show a simulated array (and a recorded real rebuild) instead of the system."""
    smart_interval: float = 600.0
    """Seconds between smartctl calls per disk; 0 turns SMART polling off."""


def xdg_dir(kind: str) -> Path:
    """raidtop's XDG directory of ``kind`` (config, state, data)."""
    env = {"config": "XDG_CONFIG_HOME", "state": "XDG_STATE_HOME", "data": "XDG_DATA_HOME"}[kind]
    default = {"config": ".config", "state": ".local/state", "data": ".local/share"}[kind]
    base = os.environ.get(env) or str(Path.home() / default)
    return Path(base) / "raidtop"


def next_interval(current: float, direction: int) -> float:
    """The next step up (+1) or down (-1) from ``current``."""
    if direction > 0:
        return next((s for s in INTERVAL_STEPS if s > current), INTERVAL_STEPS[-1])
    return next((s for s in reversed(INTERVAL_STEPS) if s < current), INTERVAL_STEPS[0])
