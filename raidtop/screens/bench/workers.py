"""The Benchmarks screen's thread workers: everything that blocks, off the UI thread.

Loading presets and fio, the SQLite store, the target's device stack,
planning, fio itself, exports and the remembered choices all run here. A
worker never touches a widget: it posts a message from
:mod:`raidtop.screens.bench.messages` and the screen shows it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import work
from textual.message import Message

from raidtop.actions.action_log import ActionLog
from raidtop.actions.fio.command import find_fio
from raidtop.actions.fio.compare import SweepStep, run_sweep, write_exports
from raidtop.actions.fio.guards import TargetRefused
from raidtop.actions.fio.prefs import BenchPrefs, load_prefs, save_prefs
from raidtop.actions.fio.presets import PresetSet, load_presets
from raidtop.actions.fio.process import ProgressPoint
from raidtop.actions.fio.session import Batch, FioMissing, execute, plan_run, run_repeat
from raidtop.actions.fio.stack import capture_tuning
from raidtop.actions.fio.store import RunStore, StoredRun
from raidtop.config import xdg_dir
from raidtop.screens.bench.messages import (
    BatchFinished,
    HistoryLoaded,
    Job,
    Loaded,
    Notice,
    PassFinished,
    Planned,
    Progress,
    Refused,
    StackLoaded,
)

AUTO: Any = object()
"""Sentinel: find fio on PATH."""


class BenchWorkers:
    """Mixed into the Benchmarks screen: its workers, which post messages and touch no widget."""

    history: RunStore
    presets: PresetSet | None
    prefs: BenchPrefs
    fio: str | None
    override: str
    _presets_file: Path | None
    _fio_arg: str | None
    _log: ActionLog | None
    _prefs_file: Path | None

    if TYPE_CHECKING:  # the Screen this is mixed into provides it; a stub here would shadow it

        def post_message(self, message: Message) -> bool: ...

    @work(thread=True, exit_on_error=False, group="bench-load")
    def _load(self) -> None:
        presets = load_presets(self._presets_file)
        fio = find_fio() if self._fio_arg is AUTO else self._fio_arg
        prefs = load_prefs(self._prefs_file)
        self.post_message(Loaded(presets, fio, prefs))
        self._load_history_now()
        if prefs.target:
            self._load_stack_now(prefs.target)

    def _load_history_now(self, select: int | None = None, view: str | None = None, group: str | None = None) -> None:
        try:
            runs = self.history.runs(limit=500)
        except Exception as exc:  # noqa: BLE001 - sqlite3.Error, OSError: show it, keep the screen usable
            self.post_message(Notice(f"results history unreadable: {exc}", "error"))
            runs = []
        self.post_message(HistoryLoaded(runs, select, view, group))

    @work(thread=True, exit_on_error=False, group="bench-db")
    def _reload_history(self, select: int | None = None, view: str | None = None, group: str | None = None) -> None:
        self._load_history_now(select, view, group)

    def _load_stack_now(self, target: str) -> None:
        try:
            tuning = capture_tuning(target)
        except Exception:  # noqa: BLE001 - a vanished device: the panel just stays empty
            tuning = None
        self.post_message(StackLoaded(target, tuning))

    @work(thread=True, exit_on_error=False, group="bench-stack")
    def _load_stack(self, target: str) -> None:
        self._load_stack_now(target)

    @work(thread=True, exit_on_error=False, group="bench-plan")
    def _plan(self, preset_name: str, mode: str, passes: int = 1) -> None:
        assert self.presets is not None
        preset = self.presets.get(preset_name)
        if preset is None:
            self.post_message(Refused(f"no preset {preset_name!r}"))
            return
        try:
            plan = plan_run(
                preset,
                self.prefs.target or "",
                presets=self.presets,
                runtime_s=self.prefs.runtime_s,
                allow_raw_device=self.override or None,
                fio=self.fio,
            )
        except (TargetRefused, FioMissing) as exc:
            self.post_message(Refused(str(exc)))
            return
        self.post_message(Planned(mode, plan, passes))

    @work(thread=True, exit_on_error=False, group="bench-run")
    def _execute(self, job: Job, batch: Batch) -> None:
        log = self._log or ActionLog()
        problems: list[str] = []
        last_id = group = None

        def on_point(point: ProgressPoint) -> None:
            self.post_message(Progress(point))

        try:
            if job.mode == "single":
                record = execute(job.plan, self.history, batch=batch, log=log, on_point=on_point)
                self.post_message(PassFinished(record))
                last_id = record.stored.id if record.stored else None
            elif job.mode == "repeat":
                records = run_repeat(
                    job.plan,
                    self.history,
                    job.passes,
                    batch=batch,
                    log=log,
                    on_point=on_point,
                    on_pass=lambda _n, rec: self.post_message(PassFinished(rec)),
                )
                stored = [r.stored for r in records if r.stored]
                last_id = stored[-1].id if stored else None
                group = stored[-1].group_id if stored else None
            else:

                def on_step(step: SweepStep) -> None:
                    self.post_message(PassFinished(step.record, step.error))

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
        self.post_message(BatchFinished(job, last_id, group, tuple(problems)))
        self._load_history_now(select=last_id, view="group" if group else "results", group=group)

    @work(thread=True, exit_on_error=False, group="bench-db")
    def _set_baseline(self, run_id: int) -> None:
        stored = self.history.set_baseline(run_id)
        self._load_history_now(select=run_id, view="compare")
        if stored is not None:
            self.post_message(Notice(f"run #{run_id} is now the baseline of {stored.preset}"))

    @work(thread=True, exit_on_error=False, group="bench-export")
    def _export(self, runs: list[StoredRun], stem: str) -> None:
        try:
            csv_path, json_path = write_exports(runs, xdg_dir("data") / "exports", stem)
        except OSError as exc:
            self.post_message(Notice(f"export failed: {exc}", "error"))
            return
        self.post_message(Notice(f"exported {len(runs)} runs to {csv_path} and {json_path.name}"))

    @work(thread=True, exit_on_error=False, group="bench-prefs")
    def _save_prefs(self, prefs: BenchPrefs) -> None:
        try:
            save_prefs(prefs, self._prefs_file)
        except OSError as exc:
            self.post_message(Notice(f"could not remember the target: {exc}", "warning"))
