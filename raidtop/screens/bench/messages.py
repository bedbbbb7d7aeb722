"""What the Benchmarks screen's workers tell it, and the job a confirm dialog is asked about.

Workers run in threads and reach the screen only through ``post_message``;
each message carries plain data the screen shows without further I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from raidtop.actions.fio.prefs import BenchPrefs
from raidtop.actions.fio.presets import PresetSet
from raidtop.actions.fio.process import ProgressPoint
from raidtop.actions.fio.session import BenchPlan, RunRecord
from raidtop.actions.fio.stack import TuningState
from raidtop.actions.fio.store import StoredRun


@dataclass(frozen=True)
class Job:
    """What the confirm dialog is asked about: one run, a repeat or a sweep."""

    mode: str
    """``single``, ``repeat`` or ``sweep``."""
    plan: BenchPlan
    passes: int = 1
    knob: str | None = None
    values: tuple[str, ...] = ()
    devices: tuple[str, ...] = ()

    def pass_label(self, index: int) -> str:
        """What the live panel calls pass ``index`` (0-based)."""
        if self.mode == "repeat":
            return f"pass {index + 1}/{self.passes}"
        if self.mode == "sweep" and index < len(self.values):
            return f"{self.knob}={self.values[index]} ({index + 1}/{len(self.values)})"
        return ""


class Loaded(Message):
    """Presets, fio and the remembered choices are known."""

    def __init__(self, presets: PresetSet, fio: str | None, prefs: BenchPrefs) -> None:
        super().__init__()
        self.presets = presets
        self.fio = fio
        self.prefs = prefs


class HistoryLoaded(Message):
    """The stored runs, oldest first."""

    def __init__(
        self, runs: list[StoredRun], select: int | None = None, view: str | None = None, group: str | None = None
    ) -> None:
        super().__init__()
        self.runs = runs
        self.select = select
        self.view = view
        self.group = group


class StackLoaded(Message):
    """The target's device stack (for the iostat rows)."""

    def __init__(self, target: str, tuning: TuningState | None) -> None:
        super().__init__()
        self.target = target
        self.tuning = tuning


class Planned(Message):
    """A run was checked and its command built: ask the user."""

    def __init__(self, mode: str, plan: BenchPlan, passes: int = 1) -> None:
        super().__init__()
        self.mode = mode
        self.plan = plan
        self.passes = passes


class Refused(Message):
    """The run may not start; ``text`` says why."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


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


class BatchFinished(Message):
    """The single run, repeat or sweep is over."""

    def __init__(self, job: Job, last_id: int | None, group: str | None, problems: tuple[str, ...]) -> None:
        super().__init__()
        self.job = job
        self.last_id = last_id
        self.group = group
        self.problems = problems


class Notice(Message):
    """Something to tell the user from a worker."""

    def __init__(self, text: str, severity: str = "information") -> None:
        super().__init__()
        self.text = text
        self.severity = severity
