"""Sweep one queue knob: one fio run per value, the original value written back whatever happens.

Each value is written through the tuning session (:mod:`raidtop.actions.tuning`),
the one path that changes kernel attributes: it validates the value against
what the device offers, writes without creating or following a link, reads it
back, logs a ``tune`` line with ``by="fio sweep"`` and keeps the undo history.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from raidtop.model.frozen import frozen_dataclass
from raidtop.actions.action_log import ActionLog
from raidtop.actions.fio.session import Batch, BenchPlan, RunRecord, execute, open_target
from raidtop.actions.fio.guards import TargetRefused
from raidtop.actions.fio.store import RunStore, StoredRun, new_group_id
from raidtop.actions.fio.process import ProgressPoint
from raidtop.actions.fio.stack import TuningState
from raidtop.actions.tuning import TuningError, TuningSession, session_for
from raidtop.collect.source import Root, as_root

SWEEP_KNOBS = ("scheduler", "read_ahead_kb")
"""Queue settings a sweep may vary."""
DEFAULT_READ_AHEAD_KB = (128, 512, 2048, 8192)
"""read_ahead_kb values a sweep tries when the user gives none."""


def sweep_devices(tuning: TuningState, knob: str) -> list[str]:
    """The devices a sweep of ``knob`` changes.

    read_ahead_kb acts at the top of the stack (the target or the
    filesystem's device). A scheduler acts where requests are queued: the
    target when it offers a choice, otherwise (md, dm offer only ``none``)
    the devices right under it. Backing devices under a loop device, usually
    the host's own disk, are never touched.
    """
    top = [d for d in tuning.devices if d.role == "target"]
    if knob == "read_ahead_kb":
        return [d.name for d in top if d.read_ahead_kb is not None]
    if knob != "scheduler":
        raise ValueError(f"cannot sweep {knob!r}; choose one of {', '.join(SWEEP_KNOBS)}")
    if top and len(top[0].schedulers) > 1:
        return [top[0].name]
    return [d.name for d in tuning.devices if d.depth == 1 and d.role in ("member", "slave") and len(d.schedulers) > 1]


def sweep_values(tuning: TuningState, knob: str, devices: list[str]) -> tuple[str, ...]:
    """For a scheduler sweep: every scheduler all ``devices`` offer; else the default read-ahead list."""
    if knob == "read_ahead_kb":
        return tuple(str(v) for v in DEFAULT_READ_AHEAD_KB)
    offered = [d.schedulers for d in tuning.devices if d.name in devices]
    if not offered:
        return ()
    return tuple(s for s in offered[0] if all(s in other for other in offered[1:]))


@frozen_dataclass
class SweepStep:
    """One value of a sweep and the run made with it."""

    value: str
    record: RunRecord | None
    error: str | None = None
    """Why the value was skipped (the kernel refused it)."""


@frozen_dataclass
class SweepOutcome:
    """A finished (or interrupted) sweep."""

    knob: str
    devices: tuple[str, ...]
    original: dict[str, str | None]
    steps: tuple[SweepStep, ...]
    group_id: str
    restore_errors: tuple[str, ...] = ()
    """One sentence per device whose original value could not be written back."""

    @property
    def runs(self) -> list[StoredRun]:
        """The stored run of every step that produced one."""
        return [s.record.stored for s in self.steps if s.record is not None and s.record.stored is not None]


def run_sweep(
    plan: BenchPlan,
    history: RunStore,
    knob: str,
    values: Iterable[str | int],
    *,
    devices: list[str] | None = None,
    batch: Batch | None = None,
    log: ActionLog | None = None,
    on_point: Callable[[ProgressPoint], None] | None = None,
    on_step: Callable[[SweepStep], None] | None = None,
    root: Root | str = "/",
    run: Callable[..., RunRecord] = execute,
    session: TuningSession | None = None,
) -> SweepOutcome:
    """Run ``plan`` once per value of ``knob`` and restore the original value afterwards.

    Every write goes through the tuning session (``session``; by default the
    process-wide one for ``root`` and ``log``): validated, read back, logged
    with ``by="fio sweep"`` and undoable from the Tuning screen. The restore
    sits in ``finally`` as an undo-all of the knob: a cancel, a failed run or an
    exception (a KeyboardInterrupt in ``raidtop bench``) all leave the knob as
    found, and the log shows the sweep's changes closed.
    """
    if knob not in SWEEP_KNOBS:
        raise ValueError(f"cannot sweep {knob!r}; choose one of {', '.join(SWEEP_KNOBS)}")
    root = as_root(root)
    batch = batch or Batch()
    session = session or session_for(root, log)
    devices = devices if devices is not None else sweep_devices(plan.tuning, knob)
    if not devices:
        raise ValueError(f"no device in the stack of {plan.target.path} has a {knob} to sweep")
    texts = [str(v) for v in values]
    original = {dev: _current(session, dev, knob) for dev in devices}
    group = new_group_id()
    steps: list[SweepStep] = []
    restore_errors: list[str] = []
    try:
        opened = open_target(plan, root) if run is execute else None
    except TargetRefused as exc:
        # Nothing written yet: no knob changed, no fio started.
        return SweepOutcome(
            knob, tuple(devices), original, (SweepStep(texts[0] if texts else "", None, str(exc)),), group, ()
        )
    try:
        for index, value in enumerate(texts, start=1):
            if batch.stopped:
                break
            refused = next(
                (r for r in (session.set(dev, knob, value, by="fio sweep") for dev in devices) if not r.ok), None
            )
            if refused is not None:
                step = SweepStep(value, None, f"{knob}={value} refused: {refused.message}")
            else:
                extra = {"opened": opened} if opened is not None else {}
                record = run(
                    plan,
                    history,
                    batch=batch,
                    log=log,
                    on_point=on_point,
                    group_id=group,
                    group_kind="sweep",
                    pass_no=index,
                    label=f"{knob}={value}",
                    root=root,
                    **extra,
                )
                step = SweepStep(value, record)
            steps.append(step)
            if on_step is not None:
                on_step(step)
    finally:
        for dev, before in original.items():
            if before is None:
                continue
            result = session.apply(session.plan(dev, knob, before, undo_all=True), by="fio sweep: restore")
            if not result.ok:
                restore_errors.append(f"{dev}: could not restore {knob}={before}: {result.message}")
        if opened is not None:
            opened.close()
    return SweepOutcome(knob, tuple(devices), original, tuple(steps), group, tuple(restore_errors))


def _current(session: TuningSession, device: str, knob: str) -> str | None:
    try:
        found = session.knob(device, knob)
    except TuningError:
        return None
    return None if found is None else found.value
