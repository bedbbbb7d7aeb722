"""One benchmark from start to stored result, shared by the screen and ``raidtop bench``.

:func:`plan_run` checks the target (guards), picks the engine and builds the
command: everything the confirm dialog shows. :func:`execute` records the
tuning in force, runs fio, logs the command in the action log (kind ``fio``),
stores the result (partial ones too) and removes the test file. A
:class:`Batch` lets another thread cancel a single run, a repeat or a sweep.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from raidtop.actions.action_log import ActionLog
from raidtop.actions.fio.command import FioCommand, build_command, find_fio, fio_missing_message, fio_version
from raidtop.actions.fio.guards import BenchTarget, check_target
from raidtop.actions.fio.history import BenchHistory, StoredRun, new_group_id
from raidtop.actions.fio.presets import Preset, PresetSet
from raidtop.actions.fio.runner import FioRunner, ProgressPoint, RunOutcome
from raidtop.actions.fio.stack import TuningState, capture_tuning
from raidtop.collect.source import Root, as_root


class FioMissing(Exception):
    """fio is not installed; ``str()`` names the package to install."""


@dataclass(frozen=True, slots=True)
class BenchPlan:
    """A checked, ready-to-run benchmark: what the confirm dialog shows."""

    command: FioCommand
    fio_version: str | None
    tuning: TuningState
    """The stack as found when planning (recorded again at the start of each run)."""

    @property
    def preset(self) -> Preset:
        """The preset being run."""
        return self.command.preset

    @property
    def target(self) -> BenchTarget:
        """The checked target."""
        return self.command.target

    @property
    def title(self) -> str:
        """The dialog title."""
        return f"Run fio preset {self.preset.name} on {self.target.path}?"

    @property
    def details(self) -> str:
        """Preset, target, stack and engine in a few lines."""
        target = self.target
        if target.kind == "directory":
            where = f"directory on {target.device or 'no block device'}"
            where += f"; test file {os.path.basename(target.test_file or '')} ({self.command.size}), removed afterwards"
        else:
            why = "created by raidtop's lab" if target.lab else "allowed by your override"
            where = f"raw device {target.device}, {why}"
        stack = " → ".join(f"{d.name} [{d.scheduler or '-'}]" for d in self.tuning.devices) or "unknown"
        lines = [
            f"Preset:  {self.preset.name}: {self.preset.description or self.preset.summary} ({self.preset.summary})",
            f"Target:  {target.path} ({where})",
            f"Stack:   {stack}",
            f"Runtime: {self.command.runtime_s} s, engine {self.command.engine}, {self.fio_version or 'fio'}",
        ]
        if self.command.engine_note:
            lines.append(f"Note:    {self.command.engine_note}")
        if any(a.sync_running for a in self.tuning.arrays):
            lines.append("Note:    an md sync is running: results will differ from an idle array")
        return "\n".join(lines)

    @property
    def warning(self) -> str:
        """What the run destroys, if anything."""
        if self.target.kind == "device" and self.preset.writes:
            return f"fio writes straight to {self.target.path}: everything stored on it is destroyed."
        return ""


@dataclass(frozen=True, slots=True)
class RunRecord:
    """One executed run: how fio ended and, when there was a result, the stored row."""

    outcome: RunOutcome
    stored: StoredRun | None

    @property
    def message(self) -> str | None:
        """Why the run is partial or failed."""
        return self.outcome.message


class Batch:
    """A cancellable series of runs; :meth:`cancel` is safe from any thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._runner: FioRunner | None = None
        self._stopped = False

    @property
    def stopped(self) -> bool:
        """True once cancelled: no further run starts."""
        return self._stopped

    def attach(self, runner: FioRunner) -> None:
        """Track the run in progress (cancelled at once if the batch already is)."""
        with self._lock:
            self._runner = runner
            stopped = self._stopped
        if stopped:
            runner.cancel()

    def cancel(self) -> None:
        """Stop the run in progress (fio gets SIGINT) and every run after it."""
        with self._lock:
            self._stopped = True
            runner = self._runner
        if runner is not None:
            runner.cancel()


def kernel_release(root: Root | str = "/") -> str | None:
    """The running kernel's release (``uname -r``)."""
    text = as_root(root).read_optional("/proc/sys/kernel/osrelease")
    return text.strip() if text else None


def plan_run(
    preset: Preset,
    target_path: str,
    *,
    presets: PresetSet,
    runtime_s: int | None = None,
    size: str | None = None,
    allow_raw_device: str | None = None,
    fio: str | None = None,
    root: Root | str = "/",
    registry: Path | None = None,
) -> BenchPlan:
    """Check the target and build the command; raises TargetRefused or FioMissing."""
    fio = fio or find_fio()
    if fio is None:
        raise FioMissing(fio_missing_message())
    file_size = presets.size_of(preset, size)
    target = check_target(target_path, size=file_size, allow_raw_device=allow_raw_device, root=root, registry=registry)
    command = build_command(preset, target, runtime_s=presets.runtime_of(preset, runtime_s), size=file_size, fio=fio)
    return BenchPlan(command, fio_version(fio), capture_tuning(target.path, root))


def execute(
    plan: BenchPlan,
    history: BenchHistory,
    *,
    batch: Batch | None = None,
    log: ActionLog | None = None,
    on_point: Callable[[ProgressPoint], None] | None = None,
    group_id: str | None = None,
    group_kind: str | None = None,
    pass_no: int | None = None,
    label: str | None = None,
    cleanup: bool = True,
    root: Root | str = "/",
) -> RunRecord:
    """Run ``plan`` once and store what it produced (a partial result too)."""
    tuning = capture_tuning(plan.target.path, root)
    runner = FioRunner(plan.command.argv, on_point=on_point)
    if batch is not None:
        batch.attach(runner)
    try:
        outcome = runner.run()
    finally:
        if cleanup:
            remove_test_file(plan.target)
    stored = None
    if outcome.json_text is not None and outcome.result is not None:
        stored = history.add(
            preset=plan.preset.name,
            target=plan.target.path,
            target_kind=plan.target.kind,
            started=outcome.started,
            duration_s=outcome.ended - outcome.started,
            runtime_s=plan.command.runtime_s,
            fio_json=outcome.json_text,
            tuning=tuning,
            fio_version=(outcome.result.fio_version or plan.fio_version),
            kernel=kernel_release(root),
            engine=plan.command.engine,
            engine_note=plan.command.engine_note,
            command=plan.command.display,
            partial=outcome.partial,
            message=outcome.message,
            group_id=group_id,
            group_kind=group_kind,
            pass_no=pass_no,
            label=label,
            points=outcome.points,
        )
    (log or ActionLog()).append(
        "fio",
        plan.command.display,
        "ok" if outcome.ok else (outcome.message or "failed"),
        preset=plan.preset.name,
        target=plan.target.path,
        run_id=stored.id if stored else None,
        partial=outcome.partial,
    )
    return RunRecord(outcome, stored)


def run_repeat(
    plan: BenchPlan,
    history: BenchHistory,
    passes: int,
    *,
    batch: Batch | None = None,
    log: ActionLog | None = None,
    on_point: Callable[[ProgressPoint], None] | None = None,
    on_pass: Callable[[int, RunRecord], None] | None = None,
    root: Root | str = "/",
) -> list[RunRecord]:
    """Run ``plan`` ``passes`` times as one runs-group (stops early when cancelled)."""
    batch = batch or Batch()
    group = new_group_id()
    records: list[RunRecord] = []
    for number in range(1, passes + 1):
        if batch.stopped:
            break
        record = execute(
            plan, history, batch=batch, log=log, on_point=on_point, group_id=group, group_kind="repeat",
            pass_no=number, label=f"pass {number}/{passes}", cleanup=number == passes or batch.stopped, root=root,
        )
        records.append(record)
        if on_pass is not None:
            on_pass(number, record)
        if not record.outcome.ok:
            break
    # A pass that stopped early may have left the test file behind.
    remove_test_file(plan.target)
    return records


def remove_test_file(target: BenchTarget) -> None:
    """Delete the test file a directory run wrote (never anything else)."""
    if target.kind == "directory" and target.test_file:
        try:
            os.unlink(target.test_file)
        except OSError:
            pass  # already gone, or the directory vanished: nothing left to clean
