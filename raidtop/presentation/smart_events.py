"""SmartWarning events and rebuild risks, derived once per sample from Snapshot.smart.

:func:`smart_warnings` compares each disk's verdict with the last verdict
known for that disk; :class:`HealthTracker` keeps that memory between
samples and is handed to the Sampler as its ``judgement``
(:func:`raidtop.presentation.judgement.judged_sampler`), which applies it
after deriving md events.

When a SmartWarning fires:

* a verdict's rank (:data:`~raidtop.model.smart.VERDICT_RANK`) rose: ok →
  watch, ok → failing, watch → failing;
* the first verdict raidtop learns for a disk is already ``watch`` or
  ``failing``: as DegradedArray on the first reading of a degraded array, a
  user who starts raidtop on a dying disk is told at once;
* never for a better verdict (failing → ok), a first ``ok``, or an
  ``unknown`` reading (standby, not read, smartctl failed): unknown is no
  news, so it neither warns nor makes the next known verdict look new;
* a different drive under the same name (another serial) starts afresh.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from raidtop.collect.md.level import natural_key
from raidtop.model.snapshot import Snapshot
from raidtop.model.md import MdArray, MdEvent
from raidtop.model.smart import VERDICT_RANK, SmartHealth
from raidtop.presentation.rebuild_risk import rebuild_risks

Known = dict[str, tuple[str | None, str]]
"""disk -> (serial, last known verdict)."""


def arrays_on_disk(disk: str, arrays: Sequence[MdArray], disk_of: Mapping[str, tuple[str, ...]]) -> list[str]:
    """The arrays with a member on ``disk``, in natural order."""
    names = [a.name for a in arrays if any(disk in disk_of.get(m.name, (m.name,)) for m in a.members)]
    return sorted(names, key=natural_key)


def smart_warnings(
    known: Mapping[str, tuple[str | None, str]],
    smart: Mapping[str, SmartHealth],
    disk_of: Mapping[str, tuple[str, ...]],
    arrays: Sequence[MdArray],
    time: float,
) -> tuple[list[MdEvent], Known]:
    """SmartWarning events for disks whose verdict worsened, and the new last-known verdicts.

    One event per disk: ``array`` is the first array it serves (empty when it
    serves none), ``member`` the disk, ``detail`` the change and its reasons.
    """
    events: list[MdEvent] = []
    after: Known = dict(known)
    for disk in sorted(smart, key=natural_key):
        health = smart[disk]
        rank = VERDICT_RANK.get(health.verdict, -1)
        if rank < 0:
            continue
        before = known.get(disk)
        if before is not None and before[0] is not None and health.serial is not None and before[0] != health.serial:
            before = None
        old_verdict = before[1] if before is not None else "unknown"
        after[disk] = (health.serial, health.verdict)
        if rank <= VERDICT_RANK.get(old_verdict, -1) or rank == 0:
            continue
        served = arrays_on_disk(disk, arrays, disk_of)
        why = "; ".join(r.text for r in health.reasons) or "no reason given"
        change = f"{old_verdict} → {health.verdict}" if before is not None else health.verdict
        also = f" (also in {', '.join(served[1:])})" if len(served) > 1 else ""
        events.append(MdEvent(time, served[0] if served else "", "SmartWarning", disk, f"{change}: {why}{also}"))
    return events, after


class HealthTracker:
    """Remembers verdicts between samples; adds SmartWarning events and rebuild risks to each snapshot."""

    def __init__(self) -> None:
        self._known: Known = {}

    def apply(self, snap: Snapshot) -> Snapshot:
        """``snap`` with SmartWarning events appended and ``rebuild_risks`` filled."""
        if not snap.smart:
            return snap
        events, self._known = smart_warnings(self._known, snap.smart, snap.smart_disk_of, snap.arrays, snap.time)
        risks = rebuild_risks(snap.arrays, snap.smart, snap.smart_disk_of)
        if not events and not risks:
            return snap
        return replace(snap, events=snap.events + tuple(events), rebuild_risks=risks)

    def reset(self) -> None:
        """Forget what was known (a new baseline)."""
        self._known = {}
