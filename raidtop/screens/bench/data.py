"""The Benchmarks screen's stored things: presets, fio, the remembered target, the results history.

:class:`BenchData` is an invisible widget mounted in the Benchmarks screen. It
owns the results store and the files it reads and writes, and every worker
that touches them (loading, the target's device stack, baselines, exports,
the remembered choices). Each worker ends by posting one of its messages,
which bubble to the screen; a worker never touches a widget.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual import on, work
from textual.message import Message
from textual.notifications import SeverityLevel
from textual.widget import Widget

from raidtop.actions.fio.command import find_fio
from raidtop.actions.fio.compare import write_exports
from raidtop.actions.fio.prefs import BenchPrefs, load_prefs, save_prefs
from raidtop.actions.fio.presets import PresetSet, load_presets
from raidtop.actions.fio.stack import TuningState, capture_tuning
from raidtop.actions.fio.store import RunStore, StoredRun
from raidtop.config import xdg_dir
from raidtop.model.units import counted

AUTO: Any = object()
"""Sentinel: find fio on PATH."""


class BenchData(Widget):
    """Loads and stores what the Benchmarks screen shows, in thread workers.

    Args:
        history: the results store.
        presets_file: presets.toml to read (default: the config directory's).
        fio_path: the fio to run; :data:`AUTO` finds it on PATH, ``None`` means there is none.
        prefs_file: where the target and runtime are remembered.
    """

    DEFAULT_CSS = "BenchData { display: none; }"

    class Loaded(Message):
        """Presets, fio and the remembered choices are known."""

        def __init__(self, presets: PresetSet, fio: str | None, prefs: BenchPrefs) -> None:
            super().__init__()
            self.presets = presets
            self.fio = fio
            self.prefs = prefs

    class HistoryLoaded(Message):
        """The stored runs, oldest first (and which run, view and group to show)."""

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

    class _Notice(Message):
        def __init__(self, text: str, severity: SeverityLevel = "information") -> None:
            super().__init__()
            self.text = text
            self.severity: SeverityLevel = severity

    def __init__(
        self,
        history: RunStore,
        *,
        presets_file: Path | None = None,
        fio_path: str | None = AUTO,
        prefs_file: Path | None = None,
        **kwargs,
    ) -> None:
        super().__init__(**kwargs)
        self.history = history
        self._presets_file = presets_file
        self._fio_arg = fio_path
        self._prefs_file = prefs_file

    @on(_Notice)
    def _notice(self, message: _Notice) -> None:
        message.stop()
        self.notify(message.text, severity=message.severity, timeout=8)

    def load(self) -> None:
        """Read the presets, find fio, read the remembered choices, then the history and the target's stack."""
        self._load()

    @work(thread=True, exit_on_error=False, group="bench-load")
    def _load(self) -> None:
        presets = load_presets(self._presets_file)
        fio = find_fio() if self._fio_arg is AUTO else self._fio_arg
        prefs = load_prefs(self._prefs_file)
        self.post_message(self.Loaded(presets, fio, prefs))
        self._load_history_now()
        if prefs.target:
            self._load_stack_now(prefs.target)

    def _load_history_now(self, select: int | None = None, view: str | None = None, group: str | None = None) -> None:
        try:
            runs = self.history.runs(limit=500)
        except Exception as exc:  # noqa: BLE001 - sqlite3.Error, OSError: show it, keep the screen usable
            self.post_message(self._Notice(f"results history unreadable: {exc}", "error"))
            runs = []
        self.post_message(self.HistoryLoaded(runs, select, view, group))

    @work(thread=True, exit_on_error=False, group="bench-db")
    def reload_history(self, select: int | None = None, view: str | None = None, group: str | None = None) -> None:
        """Read the stored runs again; show run ``select`` in ``view`` (and ``group``)."""
        self._load_history_now(select, view, group)

    def _load_stack_now(self, target: str) -> None:
        try:
            tuning = capture_tuning(target)
        except Exception:  # noqa: BLE001 - a vanished device: the panel just stays empty
            tuning = None
        self.post_message(self.StackLoaded(target, tuning))

    @work(thread=True, exit_on_error=False, group="bench-stack")
    def load_stack(self, target: str) -> None:
        """Find the block devices under ``target``."""
        self._load_stack_now(target)

    @work(thread=True, exit_on_error=False, group="bench-db")
    def set_baseline(self, run_id: int) -> None:
        """Make run ``run_id`` its preset's baseline, then show the comparison."""
        stored = self.history.set_baseline(run_id)
        self._load_history_now(select=run_id, view="compare")
        if stored is not None:
            self.post_message(self._Notice(f"run #{run_id} is now the baseline of {stored.preset}"))

    @work(thread=True, exit_on_error=False, group="bench-export")
    def export(self, runs: list[StoredRun], stem: str) -> None:
        """Write ``runs`` as CSV and JSON under the data directory."""
        try:
            csv_path, json_path = write_exports(runs, xdg_dir("data") / "exports", stem)
        except OSError as exc:
            self.post_message(self._Notice(f"export failed: {exc}", "error"))
            return
        self.post_message(self._Notice(f"exported {counted(len(runs), 'run')} to {csv_path} and {json_path.name}"))

    @work(thread=True, exit_on_error=False, group="bench-prefs")
    def save_prefs(self, prefs: BenchPrefs) -> None:
        """Remember the target and runtime."""
        try:
            save_prefs(prefs, self._prefs_file)
        except OSError as exc:
            self.post_message(self._Notice(f"could not remember the target: {exc}", "warning"))
