"""The sampler's side of SMART: which readings a sample shows, and what the poller should ask next.

The poller (:mod:`raidtop.collect.smart.poller`) runs smartctl in its own
thread; this link never waits for it. Per sample it takes the poller's
latest published results (or, through the root, a recording's or the demo's),
maps every block device to the whole disks under it, and tells the poller
about new disks and about md members whose roles changed (those are asked
at once).
"""

from __future__ import annotations

from raidtop.model.disk_columns import DiskCounterColumns
from raidtop.collect.smart.poller import SmartPoller
from raidtop.collect.source import Root
from raidtop.collect.whole_disk import whole_disks
from raidtop.model.snapshot import RawSample
from raidtop.model.md import MdArray
from raidtop.model.smart import SmartHealth


class SmartLink:
    """Carries SMART readings into snapshots and device news to the poller."""

    def __init__(self, poller: SmartPoller | None) -> None:
        self.poller = poller
        """The SMART poller (None: SMART off, or a root that answers itself)."""
        # device name -> ((major, minor), the whole disks under it)
        self._whole: dict[str, tuple[tuple[int, int], tuple[str, ...]]] = {}
        self._disk_of: dict[str, tuple[str, ...]] = {}
        self._member_roles: dict[tuple[str, str], tuple[str, ...]] = {}

    def readings(
        self, root: Root, raw: RawSample, arrays: tuple[MdArray, ...], same_devices: bool, notes: list[str]
    ) -> tuple[dict[str, SmartHealth], dict[str, tuple[str, ...]]]:
        """This sample's SMART readings and device → whole-disk map; tells the poller what changed.

        ``same_devices``: the diskstats parser saw the same device list as last
        time, so the whole-disk map needs no sysfs walk.
        """
        smart = root.smart_answers(self.poller.results() if self.poller is not None else {})
        if self.poller is not None or smart:
            self._tell(root, raw, arrays, same_devices, notes)
        known = root.smart_disk_of()
        return smart, (self._disk_of if known is None else known)

    def _tell(
        self, root: Root, raw: RawSample, arrays: tuple[MdArray, ...], same_devices: bool, notes: list[str]
    ) -> None:
        """Whole disks are found by a sysfs walk once per device appearance (keyed
        by device number, like identities); the steady state compares the
        device list and the members' roles and does nothing else.
        """
        changed = not (same_devices and self._whole and len(raw.disks) == len(self._whole))
        if changed:
            whole = {}
            disks = DiskCounterColumns.of(raw.disks)
            for name, number in zip(disks.names, zip(disks.majors, disks.minors)):
                known = self._whole.get(name)
                whole[name] = known if known is not None and known[0] == number else (number, whole_disks(root, name))
            self._whole = whole
            self._disk_of = {name: disks for name, (_, disks) in whole.items() if disks}
        roles = {(a.name, m.name): m.roles for a in arrays for m in a.members}
        urgent: set[str] = set()
        if roles != self._member_roles:
            for key, value in roles.items():
                if self._member_roles.get(key) != value:
                    urgent.update(self._disk_of.get(key[1], ()))
            self._member_roles = roles
        poller = self.poller
        if poller is None:
            return  # a replay: the recorded results, no poller to tell
        if changed or urgent:
            poller.notice({d for disks in self._disk_of.values() for d in disks}, urgent)
        if poller.note:
            notes.append(poller.note)
