"""Undo: which changes can still be reverted, and the plans that revert them.

A change is undone by writing its old value back (and the old values of what
changed with it, such as nr_requests after a scheduler switch). The history
lives in the session for this process and in the action log for every
process, so ``raidtop tune --undo`` can revert a change another raidtop made.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from raidtop.model.frozen import frozen_dataclass
from raidtop.actions.action_log import LoggedAction
from raidtop.actions.tuning.changes import ChangeResult, Plan, Refusal
from raidtop.actions.tuning.knobs import SPECS, Knob


@dataclass
class Touched:
    """Knobs written in a session, in first-write order."""

    order: list[tuple[str, str]] = field(default_factory=list)

    def add(self, key: tuple[str, str]) -> None:
        """Remember ``(target, attr)`` once."""
        if key not in self.order:
            self.order.append(key)


def is_request(attr: str) -> bool:
    """True for an attribute written to ask md for an action (never undone or kept)."""
    spec = SPECS.get(attr)
    return spec is not None and spec.request


def close_undone(
    stack: list[ChangeResult], target: str, attr: str, undo_of: float | None, undo_all: bool
) -> list[ChangeResult]:
    """The undo stack after an undo: one change closed, or every change of the knob for undo-all."""
    if undo_all:
        return [c for c in stack if (c.target, c.attr) != (target, attr)]
    return [c for c in stack if c.time != undo_of]


def changes_from_log(entries: Iterable[LoggedAction]) -> list[ChangeResult]:
    """Logged changes that took effect and were not undone since, oldest first.

    This lets ``raidtop tune --undo`` revert a change made by another raidtop process.
    """
    stack: list[ChangeResult] = []
    for entry in entries:
        d = entry.details
        status = str(d.get("status"))
        target, attr = str(d.get("device")), str(d.get("attribute"))
        if is_request(attr):
            continue
        if d.get("undo_of") is not None or d.get("undo_all"):
            if status in ("ok", "unchanged"):
                stack = close_undone(stack, target, attr, d.get("undo_of"), bool(d.get("undo_all")))
            continue
        if status not in ("ok", "mismatch"):
            continue
        side = tuple(tuple(s) for s in d.get("side_effects") or () if isinstance(s, list) and len(s) == 3)
        stack.append(
            ChangeResult(
                entry.time,
                target,
                attr,
                d.get("old"),
                str(d.get("new")),
                entry.command,
                status,
                entry.result,
                d.get("readback"),
                side,
            )
        )
    return stack


@frozen_dataclass(slots=False)
class Restore:
    """One value an undo writes back; the session plans it like any change."""

    target: str
    attr: str
    value: str
    undo_of: float | None = None
    undo_all: bool = False


def undo_restores(change: ChangeResult) -> list[Restore] | Refusal:
    """What puts ``change``'s knob (and what changed with it) back as it was: its own value first."""
    if change.old is None:
        return Refusal(change.target, change.attr, f"{change.target} {change.attr}: the old value was unreadable")
    restores = [Restore(change.target, change.attr, change.old, undo_of=change.time)]
    # Writing a side effect back may be a no-op; apply() then writes nothing.
    restores += [
        Restore(change.target, attr, before, undo_of=change.time)
        for attr, before, _after in change.side_effects
        if before is not None
    ]
    return restores


def changed_since(change: ChangeResult, now: Knob | None) -> str | None:
    """The warning an undo carries when the knob no longer holds what raidtop set."""
    expected = change.readback if change.readback is not None else change.new
    if now is None or now.value == expected:
        return None
    return (
        f"{change.target} {change.attr} was changed since "
        f"(now {now.value}, raidtop set {expected}); undo restores {change.old}."
    )


def undo_all_restores(touched: Touched, start: dict[tuple[str, str], str | None]) -> list[Restore]:
    """Every knob in ``touched`` back to its ``start`` value, schedulers first (a switch resets nr_requests)."""
    keys = sorted(touched.order, key=lambda key: key[1] != "scheduler")
    return [
        Restore(target, attr, value, undo_all=True)
        for target, attr in keys
        if (value := start.get((target, attr))) is not None
    ]


def needed_for_undo_all(plans: list[Plan | Refusal]) -> list[Plan | Refusal]:
    """The undo-all plans worth running, in order.

    A plan already at its start value is dropped, except nr_requests of a
    device whose scheduler is switched first: apply() re-reads it and writes
    only if the switch moved it.
    """
    kept: list[Plan | Refusal] = []
    switching: set[str] = set()
    for plan in plans:
        if isinstance(plan, Plan) and plan.noop and not (plan.attr == "nr_requests" and plan.target in switching):
            continue
        if isinstance(plan, Plan) and plan.attr == "scheduler":
            switching.add(plan.target)
        kept.append(plan)
    return kept
