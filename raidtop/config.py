"""Run-time settings: the CLI builds one Config and hands it to the app."""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

INTERVAL_STEPS = (0.5, 1.0, 2.0, 5.0, 10.0, 30.0)
CONFIG_FILE = "config.toml"
"""raidtop's settings file in its XDG config directory."""
_CONFIG_LIMIT = 64 * 1024
_MAX_MEMBERS = 1024


@dataclass(frozen=True)
class Config:
    """Everything the app needs to start."""

    root: Path = Path("/")
    interval: float = 1.0
    theme: str | None = None
    bell: bool = True
    """Ring the terminal bell on the events the md event table marks (raidtop.model.md_events.BELL_EVENTS)."""
    autostart_sampler: bool = True
    """Tests turn this off to feed snapshots by hand."""
    replay: Path | None = None
    """A recording to replay instead of reading the system."""
    demo: bool = False
    """Show a simulated array (and a recorded real rebuild) instead of the system."""
    demo_recording: bool = False
    """With ``demo``: play the rebuild recorded on a real kernel once (else it is held at its start)."""
    present: bool = False
    """With ``demo``: presenter mode (only the simulated array, a narration line, one key per step)."""
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


def md_expected_members(path: Path | None = None) -> tuple[dict[str, int], list[str]]:
    """``[md.expected_members]`` of the config file: array name or UUID -> members its owner expects.

    The rule for mirrors with empty slots by design (:mod:`raidtop.collect.md.sparse`)
    cannot tell a one-bay box's ``[24/1]`` from a loss; a stated count decides.
    Returns the mapping and a sentence per entry or file that could not be used.
    """
    path = path if path is not None else xdg_dir("config") / CONFIG_FILE
    try:
        with open(path, "rb") as handle:
            data = handle.read(_CONFIG_LIMIT + 1)
    except FileNotFoundError:
        return {}, []
    except OSError as exc:
        return {}, [f"{path}: cannot be read ({exc.strerror or exc}); expected member counts ignored"]
    if len(data) > _CONFIG_LIMIT:
        return {}, [f"{path}: larger than {_CONFIG_LIMIT // 1024} KiB; ignored"]
    try:
        doc = tomllib.loads(data.decode("utf-8", "replace"))
    except tomllib.TOMLDecodeError as exc:
        return {}, [f"{path}: not valid TOML ({exc}); ignored"]
    table = doc.get("md", {}).get("expected_members", {}) if isinstance(doc.get("md"), dict) else {}
    if not isinstance(table, dict):
        return {}, [f"{path}: [md.expected_members] must be a table of array = count; ignored"]
    out: dict[str, int] = {}
    notes = []
    for key, value in table.items():
        if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= _MAX_MEMBERS:
            out[str(key)] = value
        else:
            notes.append(
                f"{path}: md.expected_members.{str(key)[:40]} must be a whole number from 1 to {_MAX_MEMBERS}; ignored"
            )
    return out, notes
