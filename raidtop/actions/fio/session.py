"""One benchmark from start to stored result, shared by the screen and ``raidtop bench``.

:func:`plan_run` checks the target (guards), picks the engine and builds the
command: everything the confirm dialog shows. :func:`execute` checks that
the result can be stored, opens and locks the target (:func:`open_target`),
records the tuning in force, runs fio on the descriptor it opened, logs the
command in the action log (kind ``fio``), stores the result (partial ones
too) and removes what it created. A :class:`Batch` lets another thread cancel
a single run, a repeat or a sweep.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from collections.abc import Callable

from raidtop.model.frozen import frozen_dataclass
from raidtop.actions.action_log import ActionLog
from raidtop.actions.fio.command import FioCommand, build_command, find_fio, fio_missing_message, fio_version
from raidtop.actions.fio.guards import BenchTarget, TargetRefused, check_target, test_file_bytes
from raidtop.actions.fio.opened import OpenTarget, open_device_target, open_directory_target
from raidtop.actions.fio.presets import Preset, PresetSet, check_job
from raidtop.actions.fio.process import FioRunner, ProgressPoint, RunOutcome
from raidtop.actions.fio.stack import TuningState, capture_tuning, device_number
from raidtop.actions.fio.store import HistoryUnavailable, RunStore, StoredRun, new_group_id
from raidtop.collect.source import Root, as_root


class FioMissing(Exception):
    """fio is not installed; ``str()`` names the package to install."""


@frozen_dataclass
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
            if target.real_path:
                where = f"which is {target.real_path}; "
            else:
                where = ""
            where += f"directory on {target.device or 'no block device'}"
            where += (
                f"; test file {target.test_file} ({self.command.size}) in a directory raidtop makes, removed afterwards"
            )
        else:
            why = "created by raidtop's lab" if target.lab else "allowed by your override"
            where = f"raw device {target.device}, {why}"
        stack = " → ".join(f"{d.name} [{d.scheduler or '-'}]" for d in self.tuning.devices) or "unknown"
        lines = [
            f"Preset:  {self.preset.name}: {self.preset.description or self.preset.summary} ({self.preset.summary})",
            f"Target:  {target.path} ({where})",
            f"Handoff: {self.handoff}",
            f"Stack:   {stack}",
            f"Runtime: {self.command.runtime_s} s, engine {self.command.engine}, {self.fio_version or 'fio'}",
        ]
        if self.command.engine_note:
            lines.append(f"Note:    {self.command.engine_note}")
        if any(a.sync_running for a in self.tuning.arrays):
            lines.append("Note:    an md sync is running: results will differ from an idle array")
        return "\n".join(lines)

    @property
    def handoff(self) -> str:
        """How the command above reaches fio: the one argument raidtop swaps, and for what.

        fio runs exactly the command shown except ``--filename``, which names
        a descriptor raidtop holds (its number is known only once opened).
        """
        target = self.target
        shown = target.shown_filename
        if target.kind == "directory":
            fio_name = f"/proc/self/fd/N/{os.path.basename(shown)}"
            how = f"N is raidtop's locked descriptor on the private {os.path.basename(os.path.dirname(shown))}"
        else:
            fio_name, how = "/proc/self/fd/N", "N is raidtop's exclusive descriptor on the device"
        return (
            f"fio runs the command above with --filename={fio_name} in place of the --filename shown; "
            f"{how}: the same file, and a link planted since cannot redirect it"
        )

    @property
    def warning(self) -> str:
        """What the run destroys, if anything."""
        if self.target.kind == "device" and self.preset.writes:
            return f"fio writes straight to {self.target.path}: everything stored on it is destroyed."
        return ""


@frozen_dataclass
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
        self._finished = threading.Event()

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

    def finish(self) -> None:
        """Say the series is over and its results are stored (the worker's last step)."""
        self._finished.set()

    def wait_finished(self, timeout: float) -> bool:
        """Wait until :meth:`finish`; True if it came within ``timeout`` seconds.

        Leaving raidtop cancels a running series and then waits here, so the
        partial result is stored and the test file removed before the process ends.
        """
        return self._finished.wait(timeout)

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
    default_runtime_s: int | None = None,
    size: str | None = None,
    allow_raw_device: str | None = None,
    fio: str | None = None,
    root: Root | str = "/",
    registry: Path | None = None,
) -> BenchPlan:
    """Check the target and build the command; raises TargetRefused or FioMissing.

    ``runtime_s`` overrides every preset's runtime (``bench --runtime``);
    ``default_runtime_s`` only stands in for presets without their own (the screen's ``u``).
    """
    file_size = presets.size_of(preset, size)
    runtime = presets.runtime_of(preset, runtime_s, default=default_runtime_s)
    problem = check_job(preset, runtime)
    if problem:
        raise TargetRefused(problem)
    wanted = test_file_bytes(file_size)
    fio = fio or find_fio()
    if fio is None:
        raise FioMissing(fio_missing_message())
    target = check_target(target_path, size=wanted, allow_raw_device=allow_raw_device, root=root, registry=registry)
    command = build_command(preset, target, runtime_s=runtime, size=file_size, fio=fio)
    return BenchPlan(command, fio_version(fio), capture_tuning(target.path, root))


def open_target(plan: BenchPlan, root: Root | str = "/") -> OpenTarget:
    """Open and lock the planned target for fio; raises :class:`TargetRefused` with a sentence.

    A directory must still be the one checked (same device and inode); a raw
    device must still be the device the guards approved (same ``st_rdev``).
    """
    target = plan.target
    if target.kind == "directory":
        return open_directory_target(target.path, test_file_bytes(plan.command.size or 0), target.identity)
    number = device_number(as_root(root), target.device) if target.device else None
    return open_device_target(target.path, number)


def check_storable(history: RunStore, log: ActionLog) -> None:
    """Raise :class:`TargetRefused` unless the result and the log line can be written (before fio runs)."""
    try:
        history.ensure_writable()
    except HistoryUnavailable as exc:
        raise TargetRefused(f"{exc}; fio was not started") from None
    try:
        log.path.parent.mkdir(parents=True, exist_ok=True)
        os.close(os.open(log.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644))
    except OSError as exc:
        raise TargetRefused(
            f"the action log {log.path} cannot be written ({exc.strerror or exc}); fio was not started"
        ) from None


def _refused(message: str) -> RunRecord:
    now = time.time()
    return RunRecord(RunOutcome(None, None, None, (), True, False, message, now, now), None)


def execute(
    plan: BenchPlan,
    history: RunStore,
    *,
    batch: Batch | None = None,
    log: ActionLog | None = None,
    on_point: Callable[[ProgressPoint], None] | None = None,
    group_id: str | None = None,
    group_kind: str | None = None,
    pass_no: int | None = None,
    label: str | None = None,
    opened: OpenTarget | None = None,
    root: Root | str = "/",
) -> RunRecord:
    """Run ``plan`` once and store what it produced (a partial result too).

    ``opened`` is a target a repeat or sweep holds open across its runs;
    without it the run opens (and afterwards cleans up) the target itself.
    A target that cannot be opened, or a history that cannot be written,
    gives a record with no result whose message says why; fio never starts.
    """
    log = log or ActionLog()
    own = opened is None
    try:
        check_storable(history, log)
        if opened is None:
            opened = open_target(plan, root)
    except TargetRefused as exc:
        return _refused(str(exc))
    try:
        tuning = capture_tuning(plan.target.path, root)
        runner = FioRunner(plan.command.argv_for(opened.fio_filename), on_point=on_point, pass_fds=opened.pass_fds)
        if batch is not None:
            batch.attach(runner)
        outcome = runner.run()
    finally:
        if own:
            opened.close()
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
    log.append(
        "fio",
        plan.command.display,
        "ok" if outcome.ok else (outcome.message or "failed"),
        preset=plan.preset.name,
        target=plan.target.path,
        fio_filename=opened.fio_filename,
        run_id=stored.id if stored else None,
        partial=outcome.partial,
    )
    return RunRecord(outcome, stored)


def run_repeat(
    plan: BenchPlan,
    history: RunStore,
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
    try:
        opened = open_target(plan, root)
    except TargetRefused as exc:
        return [_refused(str(exc))]
    # One open target for every pass: the lock is held throughout and the test file is laid out once.
    with opened:
        for number in range(1, passes + 1):
            if batch.stopped:
                break
            record = execute(
                plan,
                history,
                batch=batch,
                log=log,
                on_point=on_point,
                group_id=group,
                group_kind="repeat",
                pass_no=number,
                label=f"pass {number}/{passes}",
                opened=opened,
                root=root,
            )
            records.append(record)
            if on_pass is not None:
                on_pass(number, record)
            if not record.outcome.ok:
                break
    return records
