"""The benchmark flow: plan in a worker, confirm the exact fio command, run fio in a worker, report.

:class:`BenchRun` is an invisible widget mounted in the Benchmarks screen,
shaped like :class:`~raidtop.screens.member_flow.MemberFlow`: it owns the
running job and its :class:`~raidtop.actions.fio.session.Batch`, plans and runs
in thread workers, and posts nested messages (Started, Progress,
PassFinished, Finished) that bubble to the screen, which draws them. A
refusal is its own notification.
"""

from __future__ import annotations

from collections.abc import Callable

from textual import on, work
from textual.message import Message
from textual.widget import Widget

from raidtop.actions.action_log import ActionLog
from raidtop.actions.fio.compare import SWEEP_KNOBS, SweepStep, run_sweep, sweep_devices, sweep_values
from raidtop.actions.fio.guards import TargetRefused
from raidtop.actions.fio.prefs import BenchPrefs
from raidtop.actions.fio.presets import PresetSet
from raidtop.actions.fio.process import KILL_AFTER_S, ProgressPoint
from raidtop.actions.fio.session import BenchPlan, Batch, FioMissing, RunRecord, execute, plan_run, run_repeat
from raidtop.actions.fio.store import RunStore
from raidtop.screens.bench.job import Job
from raidtop.screens.dialogs import ConfirmDialog, SweepDialog
from raidtop.model.units import counted


class BenchRun(Widget):
    """Plans, confirms and runs one benchmark at a time (a single run, a repeat or a sweep).

    Args:
        history: where each run's result is stored.
        log: the action log (default: the user's).
    """

    DEFAULT_CSS = "BenchRun { display: none; }"

    class Refused(Message):
        """The run may not start; ``text`` says why."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    class Started(Message):
        """The user confirmed ``job``; fio starts."""

        def __init__(self, job: Job) -> None:
            super().__init__()
            self.job = job

    class Progress(Message):
        """One per-second point of the running fio job."""

        def __init__(self, point: ProgressPoint) -> None:
            super().__init__()
            self.point = point

    class PassFinished(Message):
        """One run (or sweep step) ended."""

        def __init__(self, record: RunRecord | None, error: str | None = None) -> None:
            super().__init__()
            self.record = record
            self.error = error

    class Finished(Message):
        """The single run, repeat or sweep is over (its results are stored)."""

        def __init__(self, job: Job, last_id: int | None, group: str | None, problems: tuple[str, ...]) -> None:
            super().__init__()
            self.job = job
            self.last_id = last_id
            self.group = group
            self.problems = problems

    class _Planned(Message):
        def __init__(self, mode: str, plan: BenchPlan, passes: int) -> None:
            super().__init__()
            self.mode, self.plan, self.passes = mode, plan, passes

    class _Ran(Message):
        def __init__(self, job: Job, last_id: int | None, group: str | None, problems: tuple[str, ...]) -> None:
            super().__init__()
            self.job, self.last_id, self.group, self.problems = job, last_id, group, problems

    def __init__(self, history: RunStore, log: ActionLog | None = None, **kwargs) -> None:
        super().__init__(**kwargs)
        self.history = history
        self._log = log
        self.job: Job | None = None
        """The benchmark running now."""
        self._batch: Batch | None = None

    def running_work(self) -> list[str]:
        """What quitting now would stop (asked about first)."""
        return [f"fio: {self.job.plan.command.display}"] if self.job is not None else []

    def stop(self, notice: str) -> bool:
        """Stop fio (SIGINT; the partial result is stored and marked) and say ``notice``; False if none runs."""
        if self._batch is None:
            return False
        self._batch.cancel()
        self.notify(notice, timeout=4)
        return True

    def ask_to_stop(self, stopping: Callable[[], None]) -> None:
        """Ask whether to stop the running benchmark; on yes stop it and call ``stopping``."""
        if self.job is None:
            return

        def answered(yes: bool | None) -> None:
            if yes and self.stop("stopping fio: the partial result is kept, then back to the dashboard"):
                stopping()

        self.app.push_screen(
            ConfirmDialog(
                "Stop the running benchmark and go back?",
                self.job.plan.command.display,
                "fio gets SIGINT; its partial result is stored and marked.",
                go="Stop fio",
            ),
            answered,
        )

    def shutdown(self) -> None:
        """The screen is going away: fio runs in its own session and must not outlive raidtop."""
        if self._batch is not None:
            self._batch.cancel()
            # The worker stores the partial result and removes the test file after
            # fio stops; the process must not end before that (fio gets KILL_AFTER_S).
            self._batch.wait_finished(KILL_AFTER_S + 5)

    # -------------------------------------------------------------- plan and confirm

    def request(
        self,
        presets: PresetSet,
        preset_name: str,
        prefs: BenchPrefs,
        override: str,
        fio: str | None,
        mode: str,
        passes: int = 1,
    ) -> None:
        """Check ``preset_name`` on the target and build its command (in a worker), then ask the user."""
        self._plan(presets, preset_name, prefs, override, fio, mode, passes)

    @work(thread=True, exit_on_error=False, group="bench-plan")
    def _plan(
        self,
        presets: PresetSet,
        preset_name: str,
        prefs: BenchPrefs,
        override: str,
        fio: str | None,
        mode: str,
        passes: int,
    ) -> None:
        preset = presets.get(preset_name)
        if preset is None:
            self.post_message(self.Refused(f"no preset {preset_name!r}"))
            return
        try:
            plan = plan_run(
                preset,
                prefs.target or "",
                presets=presets,
                default_runtime_s=prefs.runtime_s,
                allow_raw_device=override or None,
                fio=fio,
            )
        except (TargetRefused, FioMissing) as exc:
            self.post_message(self.Refused(str(exc)))
            return
        self.post_message(self._Planned(mode, plan, passes))

    @on(Refused)
    def _refused(self, message: Refused) -> None:
        # Told here; the message still bubbles to the screen, like the other public ones.
        self.notify(message.text, title="Not started", severity="error", timeout=12)

    @on(_Planned)
    def _planned(self, message: _Planned) -> None:
        message.stop()
        plan = message.plan
        if message.mode != "sweep":
            self._confirm(Job(message.mode, plan, passes=message.passes))
            return
        defaults = {}
        for knob in SWEEP_KNOBS:
            devices = sweep_devices(plan.tuning, knob)
            defaults[knob] = (devices, list(sweep_values(plan.tuning, knob, devices)) if devices else [])
        if not any(devices for devices, _ in defaults.values()):
            self.notify(
                f"nothing to sweep: no device under {plan.target.path} has a scheduler or read_ahead_kb",
                severity="warning",
                timeout=8,
            )
            return

        def chosen(answer: tuple[str, list[str]] | None) -> None:
            if answer is not None:
                knob, values = answer
                self._confirm(Job("sweep", plan, knob=knob, values=tuple(values), devices=tuple(defaults[knob][0])))

        self.app.push_screen(SweepDialog(plan.preset.name, defaults), chosen)

    def _confirm(self, job: Job) -> None:
        plan = job.plan
        details = plan.details
        if job.mode == "repeat":
            details += f"\nRepeat: {counted(job.passes, 'pass', 'passes')}, then mean ± stddev"
        elif job.mode == "sweep":
            files = ", ".join(f"/sys/block/{d}/queue/{job.knob}" for d in job.devices)
            details += (
                f"\nSweep:   {job.knob} = {', '.join(job.values)} written to {files}; "
                "the original value is restored afterwards"
            )
        title = (
            plan.title
            if job.mode == "single"
            else f"{job.mode.capitalize()} fio preset {plan.preset.name} on {plan.target.path}?"
        )

        def answered(yes: bool | None) -> None:
            if yes:
                self._start(job)

        self.app.push_screen(ConfirmDialog(title, plan.command.display, details, plan.warning), answered)

    # -------------------------------------------------------------- run

    def _start(self, job: Job) -> None:
        if self.job is not None:
            return
        self.job = job
        self._batch = Batch()
        self.post_message(self.Started(job))
        self._execute(job, self._batch)

    @work(thread=True, exit_on_error=False, group="bench-run")
    def _execute(self, job: Job, batch: Batch) -> None:
        log = self._log or ActionLog()
        problems: list[str] = []
        last_id = group = None

        def on_point(point: ProgressPoint) -> None:
            self.post_message(self.Progress(point))

        try:
            if job.mode == "single":
                record = execute(job.plan, self.history, batch=batch, log=log, on_point=on_point)
                self.post_message(self.PassFinished(record))
                last_id = record.stored.id if record.stored else None
            elif job.mode == "repeat":
                records = run_repeat(
                    job.plan,
                    self.history,
                    job.passes,
                    batch=batch,
                    log=log,
                    on_point=on_point,
                    on_pass=lambda _n, rec: self._pass_finished(rec),
                )
                stored = [r.stored for r in records if r.stored]
                last_id = stored[-1].id if stored else None
                group = stored[-1].group_id if stored else None
            else:

                def on_step(step: SweepStep) -> None:
                    self.post_message(self.PassFinished(step.record, step.error))

                outcome = run_sweep(
                    job.plan,
                    self.history,
                    job.knob or "scheduler",
                    job.values,
                    devices=list(job.devices),
                    batch=batch,
                    log=log,
                    on_point=on_point,
                    on_step=on_step,
                )
                problems.extend(outcome.restore_errors)
                problems.extend(s.error for s in outcome.steps if s.error)
                runs = outcome.runs
                last_id = runs[-1].id if runs else None
                group = outcome.group_id if runs else None
        except Exception as exc:  # noqa: BLE001 - a bug or an OSError must end the run visibly, never silently
            problems.append(f"benchmark failed: {exc!r}")
        finally:
            batch.finish()
        self.post_message(self._Ran(job, last_id, group, tuple(problems)))

    def _pass_finished(self, record: RunRecord) -> None:
        self.post_message(self.PassFinished(record))

    @on(_Ran)
    def _ran(self, message: _Ran) -> None:
        message.stop()
        self.job = None
        self._batch = None
        self.post_message(self.Finished(message.job, message.last_id, message.group, message.problems))
