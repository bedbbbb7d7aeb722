"""What each key of the Benchmarks screen does (the ``action_*`` methods and their dialogs).

Mixed into :class:`~raidtop.screens.bench.screen.BenchScreen`, which owns the
bindings. Nothing here blocks: a key opens a dialog or starts a worker, and
every run goes through :class:`ConfirmDialog` with the exact fio command.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from raidtop.actions.fio.command import fio_missing_message
from raidtop.actions.fio.prefs import BenchPrefs
from raidtop.actions.fio.presets import next_runtime
from raidtop.actions.fio.session import Batch
from raidtop.screens.dialogs import AskDialog, ConfirmDialog, FormDialog, InputLine
from raidtop.screens.bench.messages import Job
from raidtop.widgets.shown_text import PlainStatic
from raidtop.widgets.text_table import TextTable

if TYPE_CHECKING:
    from raidtop.screens.bench.screen import BenchScreen

    _Base = BenchScreen
else:
    _Base = object

MAX_PASSES = 100


def _passes_problem(text: str) -> str | None:
    """Why ``text`` is no pass count, or ``None``."""
    return (
        None if text.isdigit() and 1 <= int(text) <= MAX_PASSES else f"give a number of passes from 1 to {MAX_PASSES}"
    )


def target_dialog(current: str, override: str) -> FormDialog:
    """Ask for the target (a directory or a block device) and an optional raw-device override."""
    return FormDialog(
        [
            InputLine(
                "Benchmark target: a directory (fio writes a test file there) or a block device",
                current,
                "/srv/bench or /dev/loop7",
                "bench-target-input",
            ),
            InputLine(
                "Raw device not created by raidtop's lab? Type its name here to allow fio to destroy its data:",
                override,
                "e.g. loop7 (leave empty for directories and lab devices)",
                "bench-override-input",
            ),
        ],
        width=84,
    )


class BenchKeys(_Base):
    """The Benchmarks screen's key actions."""

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """While fio runs only Stop is offered; while idle Stop is hidden."""
        if action == "cancel_run":
            return self.job is not None
        if action in ("run_selected", "run_preset", "repeat", "sweep", "target") and self.job is not None:
            return False
        return True

    def _selected_preset(self) -> str | None:
        return self.query_one("#bench-presets", TextTable).cursor_key

    def _can_start(self) -> bool:
        if not self._loaded:
            return False
        if self.fio is None:
            self.notify(fio_missing_message(), severity="error", timeout=10)
            return False
        if self.job is not None:
            self.notify("a benchmark is running: x stops it", severity="warning")
            return False
        if not self.prefs.target:
            self.notify("choose a target first: press t", severity="warning")
            return False
        return True

    def action_run_selected(self) -> None:
        """Enter: run the highlighted preset; in the history, open a repeat's or sweep's passes."""
        if self.focused is self.query_one("#bench-table", TextTable):
            run = self._selected_run()
            if self.view == "results" and run is not None and run.group_id:
                self.action_view("group")
            return
        name = self._selected_preset()
        if name is not None and self._can_start():
            self._plan(name, "single")

    def action_run_preset(self, index: int) -> None:
        """Run the preset listed at ``index`` (0-based)."""
        if self.presets is None or not 0 <= index < len(self.presets.presets):
            return
        self.query_one("#bench-presets", TextTable).cursor_row = index
        if self._can_start():
            self._plan(self.presets.presets[index].name, "single")

    def action_repeat(self) -> None:
        """Ask for a pass count, then run the highlighted preset that many times."""
        name = self._selected_preset()
        if name is None or not self._can_start():
            return

        def chosen(count: str | None) -> None:
            if count is not None:
                self._plan(name, "repeat", int(count))

        self.app.push_screen(
            AskDialog(
                f"Repeat {name}: how many passes? (tuning guides use 5)",
                value="5",
                validate=_passes_problem,
                input_type="integer",
                width=60,
                input_id="bench-count-input",
            ),
            chosen,
        )

    def action_sweep(self) -> None:
        """Plan the highlighted preset, then ask which knob to sweep."""
        name = self._selected_preset()
        if name is not None and self._can_start():
            self._plan(name, "sweep")

    def _confirm(self, job: Job) -> None:
        plan = job.plan
        details = plan.details
        if job.mode == "repeat":
            details += f"\nRepeat: {job.passes} passes, then mean ± stddev"
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

    def _start(self, job: Job) -> None:
        if self.job is not None:
            return
        self.job = job
        self.batch = Batch()
        self._pass_index = 0
        self._new_pass = True
        self.live_points.clear()
        self.query_one("#bench-now", PlainStatic).update("starting fio…")
        self._update_title()
        self._update_live_title()
        self.refresh_bindings()
        self._execute(job, self.batch)

    def action_cancel_run(self) -> None:
        """Stop fio (SIGINT): the partial result is stored and marked."""
        if self.batch is not None:
            self.batch.cancel()
            self.notify("stopping fio: the partial result will be kept", timeout=4)

    def action_target(self) -> None:
        """Ask for the target; it is remembered in the config directory."""

        def chosen(answer: tuple[str, str] | None) -> None:
            if answer is None or not answer[0]:  # an empty target keeps the current one
                return
            path, override = answer
            self.override = override
            self.prefs = BenchPrefs(path, self.prefs.runtime_s)
            self._save_prefs(self.prefs)
            self.stack_names = []
            self.query_one("#bench-disks", TextTable).set_rows([], "reading the device stack…")
            self._load_stack(path)
            self._update_title()

        self.app.push_screen(target_dialog(self.prefs.target or "", self.override), chosen)

    def action_runtime(self) -> None:
        """Cycle the default runtime (presets with their own runtime keep it)."""
        current = self.prefs.runtime_s or (self.presets.default_runtime_s if self.presets else 15)
        self.prefs = BenchPrefs(self.prefs.target, next_runtime(current))
        self._save_prefs(self.prefs)
        self._show_presets()
        self.notify(f"runs last {self.prefs.runtime_s} s (an explicit preset runtime wins)", timeout=3)

    def action_mark_baseline(self) -> None:
        """Make the highlighted run its preset's baseline and show the comparison."""
        run = self._selected_run()
        if run is None:
            self.notify("highlight a run in the history first", severity="warning")
            return
        if run.partial:
            self.notify("a partial run makes a poor baseline; marked anyway", severity="warning")
        self.baseline_preset = run.preset
        self._set_baseline(run.id)

    def action_view(self, view: str) -> None:
        """Show the history, the comparison or the passes of the highlighted group."""
        if view == "group":
            run = self._selected_run()
            if run is not None and run.group_id:
                self.group_id = run.group_id
        if view == "compare":
            run = self._selected_run()
            if run is not None and any(r.baseline and r.preset == run.preset for r in self.runs):
                self.baseline_preset = run.preset
        self.view = view
        self._show_table()

    def action_export(self) -> None:
        """Export the runs in view as CSV and JSON."""
        if self.view == "compare" and (baseline := self._baseline()) is not None:
            runs = [baseline] + [r for r in self.runs if r.preset == baseline.preset and r.id != baseline.id]
        elif self.view == "group":
            runs = [r for r in self.runs if r.group_id == self.group_id]
        else:
            runs = list(self.runs)
        if not runs:
            self.notify("nothing to export", severity="warning")
            return
        self._export(runs, time.strftime(f"bench-{self.view}-%Y%m%d-%H%M%S"))

    leave_when_stopped = False
    """True once the user chose to stop fio and go back: the screen leaves when the run ends."""

    def running_work(self) -> list[str]:
        """What quitting now would stop (asked about first)."""
        return [f"fio: {self.job.plan.command.display}"] if self.job is not None else []

    def action_back(self) -> None:
        """Leave for the dashboard; while fio runs, ask, stop it, and leave once its result is stored."""
        if self.job is None:
            self.app.pop_screen()
            return

        def answered(yes: bool | None) -> None:
            if yes and self.batch is not None:
                self.leave_when_stopped = True
                self.batch.cancel()
                self.notify("stopping fio: the partial result is kept, then back to the dashboard", timeout=4)

        self.app.push_screen(
            ConfirmDialog(
                "Stop the running benchmark and go back?",
                self.job.plan.command.display,
                "fio gets SIGINT; its partial result is stored and marked.",
            ),
            answered,
        )
