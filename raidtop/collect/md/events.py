"""Derive ``mdadm --monitor``'s events by comparing two readings of md arrays.

Each event's sentence, severity, bell and colour are declared in
:mod:`raidtop.model.md_events`; this module detects them. Semantics follow
mdadm's Monitor.c (check_array), keyed by member name instead of descriptor
number because that is what both sysfs and mdstat show:

* **Fail**: a member that was in sync is faulty, out of sync, or gone.
* **FailSpare**: a spare (idle or being rebuilt onto) became faulty.
* **SpareActive**: a spare became in sync (a recovery onto it finished).
* **RebuildStarted / Rebuild20..80 / RebuildFinished**: a resync, recovery or
  reshape appeared, crossed a 20 % step, ended. mdadm names the step by the
  exact percent seen (Rebuild23); raidtop names the step crossed, so the
  UI has four fixed names. **CheckStarted / CheckFinished** replace these for
  check and repair, where mdadm would say Rebuild* too.
* **NewArray / DeviceDisappeared**: an array appeared (or started) or
  stopped/vanished. A stopping array raises DeviceDisappeared and nothing
  else, also on a tick caught mid-stop (array_state ``inactive``, members
  with no roles yet or already gone): its members are not failing.
* **SparesMissing**: mdadm compares with ``spares=`` in mdadm.conf, which
  raidtop does not read; here it means an idle spare was removed.

Where raidtop differs, and why:

* **ArrayFailed** is raidtop's own: an array went ``broken`` or lost more
  members than its level tolerates (raid5 with two missing, raid10 with
  both halves of a mirror, raid0/linear with any). mdadm 4.2 raises
  nothing for it, though it is the worst transition of all (writes fail
  with EIO); raidtop rings and raises the alert.
* **DegradedArray**: mdadm raises it only for an array seen for the first
  time; raidtop also raises it whenever an array goes from whole to degraded,
  because a dashboard runs long and a user wants the alert when it happens.
* A sync that ends in the same step as a Fail or FailSpare was interrupted,
  not finished: no RebuildFinished (mdadm would send one). A completed
  ``mdadm --replace`` is not such a failure: the replaced disk turns faulty
  because it was replaced, so its Fail follows RebuildFinished, says
  "loop17 replaced by loop19" and is marked expected (no bell).
* The first reading (``prev is None``) is a baseline: it only raises
  DegradedArray (and ArrayFailed) for arrays already in that state, not
  NewArray or RebuildStarted for everything that exists or runs at start-up.
* **SyncStalled** is raidtop's own: a running sync's completed count has
  not moved for :data:`raidtop.collect.md.eta.STALL_AFTER_S` with nothing
  (a limit of 0, a frozen sync, a read-only array) to explain it. mdadm
  has no such event; a hung member is what an admin most needs to hear of.
* raid0 and linear raise ArrayFailed when they lose a member, never
  DegradedArray: they have no degraded state.
* Check and repair get no milestones (mdadm sends Rebuild20.. for them,
  unable to tell them from a rebuild in mdstat): a check is routine
  maintenance that runs for hours on every array each month, its progress
  is on the row, and four notifications per array per month are noise.
* Members whose roles are unknown (mdstat alone, ambiguous counts) raise
  nothing except Fail when they turn faulty.
"""

from __future__ import annotations

from collections.abc import Sequence

from raidtop.model.frozen import frozen_dataclass
from raidtop.collect.md.level import NO_REDUNDANCY, natural_key
from raidtop.model.md import MdArray, MdEvent, MdMember, MdSync, MismatchVerdict
from raidtop.model.md_events import BELL_EVENTS, REBUILD_MILESTONES, rings_bell
from raidtop.model.units import counted

MILESTONES = REBUILD_MILESTONES
_BAD = ("degraded", "failed")
__all__ = ["BELL_EVENTS", "MILESTONES", "AlertState", "derive_events", "mismatch_verdict", "rings_bell"]


def derive_events(prev: Sequence[MdArray] | None, cur: Sequence[MdArray], time: float) -> list[MdEvent]:
    """Events between two readings; ``prev=None`` for the first one."""
    events: list[MdEvent] = []
    if prev is None:
        for array in cur:
            events.extend(_bad_state_events(None, array, time))
        return events
    prev_by_name = {a.name: a for a in prev}
    cur_by_name = {a.name: a for a in cur}
    for name in sorted(prev_by_name.keys() - cur_by_name.keys(), key=natural_key):
        # An inactive array that vanishes was already reported when it stopped.
        if prev_by_name[name].health != "inactive":
            events.append(MdEvent(time, name, "DeviceDisappeared"))
    for array in cur:
        before = prev_by_name.get(array.name)
        if array.health == "inactive":
            if before is not None and before.health != "inactive":
                events.append(MdEvent(time, array.name, "DeviceDisappeared"))
        elif before is None or before.health == "inactive":
            events.append(MdEvent(time, array.name, "NewArray"))
            events.extend(_bad_state_events(None, array, time))
            if array.sync is not None and array.sync.running:
                # A new array usually starts its resync at once; mdadm reports it too.
                events.append(MdEvent(time, array.name, f"{_kind(array.sync)}Started"))
        else:
            events.extend(_array_events(before, array, time))
    return events


def _bad_state_events(prev: MdArray | None, cur: MdArray, time: float) -> list[MdEvent]:
    """DegradedArray when an array turns bad, ArrayFailed when it turns failed."""
    events = []
    # raid0 and linear have no degraded state: a lost member is a failed array, nothing less.
    if (prev is None or prev.health not in _BAD) and cur.health in _BAD and cur.level not in NO_REDUNDANCY:
        events.append(MdEvent(time, cur.name, "DegradedArray"))
    if (prev is None or prev.health != "failed") and cur.health == "failed":
        why = (
            "array_state broken: writes fail"
            if cur.state == "broken"
            else f"more members lost than {cur.level or 'its level'} tolerates"
        )
        events.append(MdEvent(time, cur.name, "ArrayFailed", None, why))
    return events


def _successor(old: MdMember, cur: MdArray) -> MdMember | None:
    """The member that took ``old``'s slot after ``mdadm --replace``, if ``old`` was being replaced."""
    if "want_replacement" not in old.roles or old.slot is None:
        return None
    for member in cur.members:
        if member.name != old.name and member.slot == old.slot and member.is_in_sync:
            return member
    return None


def _array_events(prev: MdArray, cur: MdArray, time: float) -> list[MdEvent]:
    name = cur.name
    failures: list[MdEvent] = []
    replaced: list[MdEvent] = []
    activated: list[MdEvent] = []
    cur_members = {m.name: m for m in cur.members}
    for old in prev.members:
        new = cur_members.get(old.name)
        if not old.role_known:
            if new is not None and new.is_faulty:
                failures.append(MdEvent(time, name, "Fail", old.name))
            continue
        if old.is_in_sync:
            if new is None or new.is_faulty or (new.role_known and not new.is_in_sync):
                successor = _successor(old, cur)
                if successor is None:
                    failures.append(MdEvent(time, name, "Fail", old.name))
                else:
                    replaced.append(
                        MdEvent(time, name, "Fail", old.name, f"{old.name} replaced by {successor.name}", True)
                    )
        elif old.is_faulty and new is not None and new.is_in_sync and cur.source == "dm-raid":
            # dm-raid only: `lvchange --refresh` brings a dead leg straight back in sync (md
            # would first remove it and re-add it as a spare); the leg is active again.
            activated.append(MdEvent(time, name, "SpareActive", old.name))
        elif not old.is_faulty and new is not None:
            if new.is_faulty:
                failures.append(MdEvent(time, name, "FailSpare", old.name))
            elif new.is_in_sync:
                activated.append(MdEvent(time, name, "SpareActive", old.name))

    events = failures + _bad_state_events(prev, cur, time)
    removed_spares = [m.name for m in prev.members if m.is_spare and m.slot is None and m.name not in cur_members]
    if removed_spares and cur.spare_count < prev.spare_count:
        member = removed_spares[0] if len(removed_spares) == 1 else None
        events.append(MdEvent(time, name, "SparesMissing", member))

    interrupted = bool(failures) or cur.health in ("failed", "inactive")
    finished, started, milestone = _sync_events(prev, cur, time, interrupted)
    return events + finished + replaced + activated + started + milestone


def _kind(sync: MdSync) -> str:
    return "Check" if sync.action in ("check", "repair") else "Rebuild"


def _sync_events(
    prev: MdArray, cur: MdArray, time: float, interrupted: bool
) -> tuple[list[MdEvent], list[MdEvent], list[MdEvent]]:
    before, after = prev.sync, cur.sync
    ran = before if before is not None and before.running else None
    runs = after if after is not None and after.running else None
    if ran is not None and runs is not None and ran.action == runs.action and not _went_back(ran, runs):
        return [], [], _progress_events(ran, runs, cur.name, time)  # the same sync, continuing
    finished: list[MdEvent] = []
    started: list[MdEvent] = []
    if ran is not None:
        restarted = runs is not None and ran.action == runs.action
        waiting = after is not None and not after.running
        if not (interrupted or restarted or waiting):
            detail = None
            if cur.mismatch_cnt:
                detail = f"mismatches found: {cur.mismatch_cnt} (on raid level {cur.level})"
            finished.append(MdEvent(time, cur.name, f"{_kind(ran)}Finished", None, detail))
    if runs is not None:
        started.append(MdEvent(time, cur.name, f"{_kind(runs)}Started"))
    return finished, started, []


def _progress_events(before: MdSync, after: MdSync, name: str, time: float) -> list[MdEvent]:
    """A continuing sync's news: it stalled, or a rebuild passed a milestone."""
    events: list[MdEvent] = []
    if after.stalled and not before.stalled:
        events.append(MdEvent(time, name, "SyncStalled", None, _stall_detail(after)))
    if _kind(after) == "Rebuild" and before.percent is not None and after.percent is not None:
        old_step, new_step = int(before.percent // 20), int(after.percent // 20)
        if new_step > old_step and 1 <= new_step <= len(MILESTONES):
            events.append(MdEvent(time, name, f"Rebuild{MILESTONES[new_step - 1]}"))
    return events


def _stall_detail(sync: MdSync) -> str:
    where = "" if sync.percent is None else f" at {sync.percent:.1f} %"
    since = "" if sync.stalled_s is None else f" for {sync.stalled_s:.0f} s"
    return f"{sync.action} has not moved{where}{since}"


def _went_back(before: MdSync, after: MdSync) -> bool:
    if before.done_kib is not None and after.done_kib is not None:
        return after.done_kib < before.done_kib
    if before.percent is not None and after.percent is not None:
        return after.percent < before.percent
    return False


@frozen_dataclass
class AlertState:
    """Which arrays have a raised degraded alert; it clears when they are whole again."""

    degraded: frozenset[str] = frozenset()

    def advance(self, arrays: Sequence[MdArray]) -> tuple[AlertState, list[str], list[str]]:
        """The next state, plus the names whose alert was just raised and just cleared.

        An array that vanished clears too: DeviceDisappeared is its own event.
        """
        now = frozenset(a.name for a in arrays if a.health in _BAD)
        raised = sorted(now - self.degraded, key=natural_key)
        cleared = sorted(self.degraded - now, key=natural_key)
        return AlertState(now), raised, cleared


# A raid1/raid10 count above this share of the array is more than swap and
# in-flight writes usually explain; below it, it is routine.
_MIRROR_NOTABLE_FRACTION = 0.001


def mismatch_verdict(
    level: str | None,
    mismatch_cnt: int | None,
    *,
    size_kib: int | None = None,
    last_sync_action: str | None = None,
) -> MismatchVerdict | None:
    """Say what ``mismatch_cnt`` means for this level, or ``None`` where it means nothing.

    On raid1/raid10 a non-zero count is usually harmless: pages of swap or of
    files being rewritten can reach the mirrors differently and are never read
    back in that state. On raid4/5/6 parity that does not match the data is a
    real inconsistency. The count is in 512-byte sectors.
    """
    if mismatch_cnt is None or level in NO_REDUNDANCY or level in (None, "container"):
        return None
    after = ""
    if last_sync_action not in (None, "none", "check", "repair"):
        after = f" (counted during a {last_sync_action}; a check gives a meaningful count)"
    if mismatch_cnt == 0:
        return MismatchVerdict("ok", f"No mismatches{after}.")
    sectors = counted(mismatch_cnt, "sector")
    differ = "differ" if mismatch_cnt != 1 else "differs"
    if level in ("raid1", "raid10", "multipath"):
        large = size_kib is not None and mismatch_cnt / 2 > size_kib * _MIRROR_NOTABLE_FRACTION
        if large:
            return MismatchVerdict(
                "warning",
                f"{sectors} {differ} between mirrors, more than swap or unfinished writes usually "
                f"explain on {level}; check whether this array holds swap, then run a repair{after}.",
            )
        return MismatchVerdict(
            "info",
            f"{sectors} {differ} between mirrors. On {level} this is normal when the array holds swap "
            f"or files rewritten while the check ran, and is not a sign of a failing disk{after}.",
        )
    return MismatchVerdict(
        "warning",
        f"{sectors} where parity does not match the data on {level}: run a repair, and check the "
        f"disks and memory if it comes back{after}.",
    )
