"""Boot the VM once and run every real-md scenario in it (guest_driver.py).

One boot and one guest Python process serve all scenarios: a boot costs
5-15 s and a Python start with raidtop's imports 5-10 s under TCG, so one
boot per scenario would spend most of the time budget on start-ups.
"""

from __future__ import annotations

import json
import os
import shlex
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .guest_python import raidtop_python, reach_interpreter_script
from .vm import GuestResult, VmImage, run_in_guest

#: Wall seconds for the whole boot; the scenarios take ~3 min quiet.
RUN_TIMEOUT_S = 540.0
#: The guest's hostname: the dashboard and the demo's recording show it.
GUEST_HOSTNAME = "realmd-vm"


@dataclass
class ScenarioRun:
    """The outcome of one boot that ran the scenarios."""

    guest: GuestResult
    meta: dict[str, Any]
    results: dict[str, dict[str, Any]]
    """Scenario name -> what guest_driver wrote for it."""
    wall_s: float
    selected: list[str] = field(default_factory=list)

    @property
    def results_dir(self) -> Path:
        """Host folder holding everything the guest wrote."""
        return self.guest.results_dir


def selected_scenarios() -> list[str]:
    """Scenario names from ``REALMD_SCENARIOS`` (comma-separated), or [] for all."""
    value = os.environ.get("REALMD_SCENARIOS", "")
    return [name.strip() for name in value.split(",") if name.strip()]


def guest_script(names: list[str]) -> str:
    """The bash script that runs guest_driver with the right interpreter."""
    python = raidtop_python()
    return (
        reach_interpreter_script(python)
        + f"echo {GUEST_HOSTNAME} > /proc/sys/kernel/hostname\n"
        + f"exec {shlex.quote(str(python))} -m tests.realmd.guest_driver {shlex.join(names)}\n"
    )


def run_scenarios(image: VmImage, results_dir: Path, names: list[str] | None = None) -> ScenarioRun:
    """Boot, run ``names`` (default: all) in one guest process, load their results."""
    names = selected_scenarios() if names is None else names
    started = time.monotonic()
    guest = run_in_guest(guest_script(names), timeout=RUN_TIMEOUT_S, results_dir=results_dir, image=image)
    wall = time.monotonic() - started
    meta_path = guest.results_dir / "meta.json"
    meta = json.loads(meta_path.read_text()) if meta_path.exists() else {}
    results = {}
    for path in guest.results_dir.glob("*.json"):
        if path.name in ("meta.json", "ui.json"):
            continue
        document = json.loads(path.read_text())
        results[document["scenario"]] = document
    return ScenarioRun(guest, meta, results, wall, meta.get("scenarios", names))
