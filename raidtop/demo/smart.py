"""SMART readings for the demo's simulated disks, and the key that makes one go bad.

Every member of the simulated array reads as a healthy SATA disk. ``B`` on
the dashboard (demo only) gives one survivor (never the highlighted member) 8 pending sectors, the reading
Backblaze found to predict failure (judged by raidtop/presentation/smart_rules.py
like a real disk), so a teacher can show the rebuild-risk banner: fail a
member (``f``) and the array's last copy sits on that disk.
Nothing here runs smartctl; the readings are made up and say so in their
model name.
"""

from __future__ import annotations

import time
from dataclasses import replace

from raidtop.demo.simulator import SimulatedArray
from raidtop.model.smart import SmartAttribute, SmartHealth
from raidtop.presentation.smart_rules import judge

PENDING = 8
"""Pending sectors a disk gets when it goes bad."""
_HOURS = 21_304
CAPACITY_BYTES = SimulatedArray.component_kib * 1024
"""Each simulated disk is exactly as large as the simulated array's component (its model name says so too)."""
DESKTOP_INDEX = 2
"""The demo's third disk is a desktop model: SCT ERC supported but off (the audit's erc-mismatch)."""


def healthy(disk: str, index: int, read_at: float) -> SmartHealth:
    """A healthy simulated SATA disk."""
    attributes = (
        SmartAttribute(1, "Raw_Read_Error_Rate", 200, 200, 51, 0, "0", True),
        SmartAttribute(5, "Reallocated_Sector_Ct", 200, 200, 140, 0, "0", True),
        SmartAttribute(9, "Power_On_Hours", 71, 71, 0, _HOURS + index, str(_HOURS + index), False),
        SmartAttribute(187, "Reported_Uncorrect", 100, 100, 0, 0, "0", False),
        SmartAttribute(188, "Command_Timeout", 100, 100, 0, 0, "0 0 0", False),
        SmartAttribute(194, "Temperature_Celsius", 114, 103, 0, 36, "36 (Min/Max 19/47)", False),
        SmartAttribute(197, "Current_Pending_Sector", 200, 200, 0, 0, "0", False),
        SmartAttribute(198, "Offline_Uncorrectable", 100, 253, 0, 0, "0", False),
        SmartAttribute(199, "UDMA_CRC_Error_Count", 200, 200, 0, 0, "0", False),
    )
    return judge(
        SmartHealth(
            disk=disk,
            read_at=read_at,
            state="read",
            verdict="ok",
            protocol="ATA",
            model="DEMO simulated 1GiB disk",
            serial=f"DEMO{index:04d}",
            firmware="DM01",
            capacity_bytes=CAPACITY_BYTES,
            rotation_rate=7200,
            passed=True,
            exit_status=0,
            temperature_c=36.0,
            power_on_hours=_HOURS + index,
            reallocated_sectors=0,
            reported_uncorrect=0,
            command_timeouts=0,
            pending_sectors=0,
            offline_uncorrectable=0,
            udma_crc_errors=0,
            last_self_test="completed without error",
            last_self_test_passed=True,
            attributes=attributes,
            sct_erc_supported=True,
            sct_erc_read_ds=0 if index == DESKTOP_INDEX else 70,
            sct_erc_write_ds=0 if index == DESKTOP_INDEX else 70,
            write_cache_enabled=True,
        )
    )


def gone_bad(health: SmartHealth) -> SmartHealth:
    """``health`` with :data:`PENDING` pending sectors, judged by the same rules as a real disk."""
    attributes = tuple(
        replace(a, value=100, raw_value=PENDING, raw_string=str(PENDING)) if a.id == 197 else a
        for a in health.attributes
    )
    return judge(replace(health, pending_sectors=PENDING, attributes=attributes, read_at=time.time()))


class DemoSmart:
    """The simulated disks' SMART readings; :meth:`reading` is the sampler's SMART source in the demo."""

    def __init__(self, sim: SimulatedArray) -> None:
        self.sim = sim
        self._bad: set[str] = set()
        self._readings: dict[str, SmartHealth] = {}

    def reading(self) -> tuple[dict[str, SmartHealth], dict[str, tuple[str, ...]]]:
        """SMART per simulated disk, and each member's disk (itself); called from the sampler thread."""
        names = [m.name for m in (*self.sim.members, *self.sim.retired)]
        readings = dict(self._readings)
        for index, name in enumerate(names):
            if name not in readings:
                readings[name] = healthy(name, index, time.time())
            if name in self._bad and readings[name].verdict == "ok":
                readings[name] = gone_bad(readings[name])
        self._readings = readings
        return dict(readings), {name: (name,) for name in names}

    def go_bad(self, highlighted: str | None = None) -> str:
        """Give a healthy survivor other than ``highlighted`` 8 pending sectors; say what happened and what next.

        Never the highlighted member: the next key, ``f``, fails that one, and
        the story is a degraded array whose last copy sits on the bad disk.
        """
        survivors = [m.name for m in self.sim.members if m.roles == ["in_sync"] and m.name not in self._bad]
        others = [name for name in survivors if name != highlighted]
        if not others:
            return "no healthy survivor left to make go bad (z starts the demo over)"
        bad = others[0]
        self._bad = self._bad | {bad}
        array = self.sim.name
        if highlighted in survivors:
            nxt = f"Now fail {highlighted} (highlighted: f)"
        else:
            nxt = f"Now fail another member of {array} (highlight it, f)"
        return (
            f"{bad} now has {PENDING} pending sectors: SMART calls it failing. {nxt}: {array} is then degraded "
            f"and the red banner says its last copy of the data sits on {bad}."
        )
