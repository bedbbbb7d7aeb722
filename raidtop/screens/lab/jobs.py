"""The Lab screen's jobs: what each would run (for its confirmation) and the thread workers that run them.

Reading the registry and sysfs, checking the machine, creating an array,
the RAID-level study and teardown all block, so they run here in thread
workers. :class:`LabJobs` is an invisible widget mounted in the Lab
screen; each worker ends by posting one of its messages, which bubble up to
the screen (``post_message`` is the one thread-safe way into the UI).
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable

from textual import work
from textual.message import Message
from textual.notifications import SeverityLevel
from textual.widget import Widget

from raidtop.actions.lab.commands import CommandEvent, LabCommandFailed
from raidtop.actions.lab.core import Lab, LabArrayView, LabError, LabUnavailable
from raidtop.actions.lab.preflight import LabEnvironment
from raidtop.actions.lab.spec import LabSpec, SpecError, human_size
from raidtop.actions.experiments.experiment import Control, ProgressEvent
from raidtop.actions.experiments.results import ExperimentResult, write_csv
from raidtop.actions.experiments.study import StudyParams, run_study
from raidtop.model.md import MdArray
from raidtop.screens.dialogs import ConfirmDialog
from raidtop.screens.lab.rows import LOG_ROWS, logged_to_event
from raidtop.model.units import counted

CHECKED_LEVELS = ["raid0", "raid1", "raid5", "raid6", "raid10"]
"""The md personalities the environment check asks the kernel about."""


def study_plan(params: StudyParams) -> str:
    """What the study will do, in commands, for its confirmation."""
    size = human_size(params.disk_size_bytes)
    disks = counted(params.disks, "disk") if params.disks is not None else "the level's minimum of disks"
    return (
        f"{counted(params.runs, 'run')}; in each, for level in {', '.join(params.levels)}:\n"
        f"  create the array ({disks} × {size}), wait for its initial sync\n"
        + ("  fill it: dd if=/dev/urandom of=/dev/md1NN bs=1M\n" if params.fill else "")
        + f"  fio --name=rand-read … --filename=/dev/md1NN --runtime={params.runtime_s}\n"
        f"  fio --name=rand-write … --filename=/dev/md1NN --runtime={params.runtime_s}\n"
        "  mdadm --fail, --remove one disk; add a fresh one; time the rebuild\n"
        + ("  again, with fio --name=rand-write running through the rebuild\n" if params.during_rebuild else "")
        + "  tear the array down"
    )


def teardown_commands(views: list[LabArrayView]) -> str:
    """What teardown will run for ``views``: stop each array, then detach and delete its images."""
    lines = [f"mdadm --stop /dev/{view.name}" for view in views]
    for view in views:
        for image in view.images:
            if image.loop:
                lines.append(f"losetup -d /dev/{image.loop}")
            lines.append(f"rm -f {shlex.quote(image.path)}")
    return "\n".join(lines) or "(registry only)"


class LabJobs(Widget):
    """Runs the Lab screen's blocking work in thread workers and reports through messages."""

    DEFAULT_CSS = "LabJobs { display: none; }"

    class Refreshed(Message):
        """The lab's arrays as a worker read them (``views`` None: keep the old ones, ``error`` says why)."""

        def __init__(
            self, views: list[LabArrayView] | None, history: list[CommandEvent] | None = None, error: str | None = None
        ) -> None:
            super().__init__()
            self.views = views
            self.history = history
            self.error = error

    class EnvironmentChecked(Message):
        """What this machine lacks for the lab."""

        def __init__(self, environment: LabEnvironment) -> None:
            super().__init__()
            self.environment = environment

    class JobDone(Message):
        """A create, teardown or study finished."""

        def __init__(
            self,
            title: str,
            text: str,
            severity: SeverityLevel = "information",
            study: ExperimentResult | None = None,
            csv_path: str | None = None,
        ) -> None:
            super().__init__()
            self.title = title
            self.text = text
            self.severity = severity
            self.study = study
            self.csv_path = csv_path

    class CommandLogged(Message):
        """A lab command started or ended (from whichever thread ran it)."""

        def __init__(self, event: CommandEvent) -> None:
            super().__init__()
            self.event = event

    class Started(Message):
        """The user confirmed a job; ``text`` says what is running."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    class Progress(Message):
        """A line of study progress."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def __init__(self, lab: Lab, *, read_only: bool, **kwargs) -> None:
        super().__init__(**kwargs)
        self.lab = lab
        self.read_only = read_only
        self.control: Control | None = None
        """The running study's control: cancelled when the screen goes away (it tears down, keeps what it measured)."""

    def on_mount(self) -> None:
        self.lab.runner.add_listener(self._command_from_thread)

    def on_unmount(self) -> None:
        self.lab.runner.remove_listener(self._command_from_thread)
        if self.control is not None:
            self.control.cancel()

    def _command_from_thread(self, event: CommandEvent) -> None:
        # Called from the worker that runs the command: post_message is the thread-safe way in.
        self.post_message(self.CommandLogged(event))

    # -------------------------------------------------------------- confirmations

    def ask_create(self, spec: LabSpec) -> None:
        """Show the commands that create ``spec``'s array; create it on yes."""
        details = (
            "md1NN is the first free md number from md100; loopA… are the loop devices losetup picks. "
            "The log below shows the real names as the commands run."
        )
        busy = f"creating {spec.level} on {spec.disks} × {human_size(spec.disk_size_bytes)}"
        self._ask(
            ConfirmDialog(f"Create a {spec.level} lab array?", "\n".join(self.lab.preview_create(spec)), details),
            busy,
            lambda: self.create(spec),
        )

    def ask_study(self, params: StudyParams) -> None:
        """Show what the study does; run it on yes."""
        self._ask(
            ConfirmDialog(
                "Run the RAID-level study?",
                study_plan(params),
                "Every command appears in the log below as it runs.",
                "fio writes to the lab's own arrays only; they are destroyed afterwards.",
            ),
            "study starting",
            lambda: self.study(params),
        )

    def ask_teardown(self, views: list[LabArrayView]) -> None:
        """Show what teardown stops, detaches and deletes; do it on yes."""
        details = (
            "Each device is checked against the kernel first: a loop number or md name that now "
            "belongs to something else is left alone and reported."
        )
        self._ask(
            ConfirmDialog(
                "Tear down the whole lab?",
                teardown_commands(views),
                details,
                "Everything stored on the lab's arrays is lost.",
            ),
            "tearing down the lab",
            self.teardown,
        )

    def _ask(self, dialog: ConfirmDialog, busy: str, start) -> None:
        def confirmed(answer: bool | None) -> None:
            if answer:
                self.post_message(self.Started(busy))
                start()

        self.app.push_screen(dialog, confirmed)

    # -------------------------------------------------------------- workers

    @work(thread=True, exclusive=True, group="lab-env", exit_on_error=False)
    def check_environment(self) -> None:
        """Find out what the machine lacks (mdadm, losetup, md personalities, root)."""
        self.post_message(self.EnvironmentChecked(self.lab.environment(CHECKED_LEVELS)))

    @work(thread=True, group="lab-refresh", exit_on_error=False)
    def read_views(self, md_arrays: Iterable[MdArray] | None, with_history: bool = False) -> None:
        """Read the registry (and the kernel's arrays when ``md_arrays`` is None) into views."""
        lab = self.lab
        history = None
        try:
            if md_arrays is None:
                from raidtop.collect.md.read import read_md

                md_arrays = read_md(lab.root).arrays
            if not self.read_only:
                # The timeline learns what the kernel did on its own (resync done, recovery finished).
                lab.observe_snapshot(md_arrays)
            if with_history:
                history = [logged_to_event(e) for e in lab.runner.log.read("lab")[-LOG_ROWS:]]
            views = lab.views(md_arrays)
        except Exception as exc:  # noqa: BLE001 - a damaged registry: say so, keep the screen alive
            self.post_message(self.Refreshed(None, history, str(exc)))
            return
        self.post_message(self.Refreshed(views, history))

    @work(thread=True, exclusive=True, group="lab-job", exit_on_error=False)
    def create(self, spec: LabSpec) -> None:
        """Create the array ``spec`` describes."""
        try:
            record = self.lab.create(spec)
        except (SpecError, LabUnavailable, LabError, LabCommandFailed, OSError) as exc:
            self.post_message(self.JobDone("Create failed", str(exc), "error"))
            return
        self.post_message(self.JobDone(f"created {record.name}", f"{record.level} /dev/{record.name} is building"))

    def _progress(self, event: ProgressEvent) -> None:
        # Called in the study's thread: messages are the way into the UI.
        self.post_message(self.Progress(event.line()))

    @work(thread=True, exclusive=True, group="lab-job", exit_on_error=False)
    def study(self, params: StudyParams) -> None:
        """Run the RAID-level study, then write its CSV next to the registry."""
        self.control = Control(self._progress)
        try:
            result = run_study(self.lab, params, self.control)
        except (SpecError, LabUnavailable, LabError, LabCommandFailed, OSError) as exc:
            self.post_message(self.JobDone("Study stopped", str(exc), "error"))
            return
        finally:
            self.control = None
        csv_file = self.lab.lab_dir / f"study-{result.experiment_id}.csv"
        csv_path: str | None = str(csv_file)
        try:
            write_csv(result, csv_file)
        except OSError:
            csv_path = None
        done = "stopped early; kept" if result.stopped else "done"
        self.post_message(
            self.JobDone(
                f"Study {done}",
                f"{len(result.rows)} level runs measured",
                study=result,
                csv_path=csv_path,
            )
        )

    @work(thread=True, exclusive=True, group="lab-job", exit_on_error=False)
    def teardown(self) -> None:
        """Stop every lab array, detach its loops, delete its images; report what was left."""
        try:
            report = self.lab.teardown()
        except Exception as exc:  # noqa: BLE001 - a damaged registry, say: report it, never crash the screen
            self.post_message(self.JobDone("Teardown failed", str(exc), "error"))
            return
        if report.clean:
            self.post_message(
                self.JobDone("Teardown done", f"{counted(len(report.done), 'step')}; nothing left behind")
            )
        else:
            self.post_message(self.JobDone("Teardown left things", "\n".join(report.kept), "warning"))
