"""The Tuning screen: change queue and md settings safely, with undo, a log and persistent rules.

Left, the devices and arrays; right, the highlighted target's knobs (current
value, what is allowed, the value at start, the equivalent command); below,
what the highlighted knob does, the running sync with its ETA, filesystem
alignment hints for arrays, and the changes made in this session.

Every change goes: value dialog (validated as you type) → ConfirmDialog with
the exact command → write, read back, log → notification. Without root the
screen shows everything and, instead of writing, the command to run with sudo.
All reads and writes go through :mod:`raidtop.actions.tuning`; sysfs is fast
enough to read on each sample.
"""

from __future__ import annotations

import time
from typing import Callable

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, Footer, Input, Label, OptionList, Static, TextArea
from textual.widgets.option_list import Option

from raidtop.actions.alignment import alignment_hint
from raidtop.actions.tuning import (
    CHOICE_MEANINGS,
    GLOBAL_TARGET,
    SPEED_KNOBS,
    ChangeResult,
    Knob,
    Plan,
    Refusal,
    Target,
    TuningError,
    TuningSession,
    parent_disk,
    session_for,
    shell_command,
)
from raidtop.actions.tuning_eta import EtaPrediction
from raidtop.actions.tuning_rules import (
    default_paths,
    install_command,
    save_question,
    save_text,
    settings_from_knobs,
    sysctl_conf,
    udev_rules,
)
from raidtop.collect.mdsysfs import read_md_sysfs
from raidtop.format import DASH
from raidtop.mdview import duration, speed
from raidtop.model import Snapshot
from raidtop.model_md import MdArray
from raidtop.screens.dialogs import ConfirmDialog
from raidtop.widgets.panel import Panel
from raidtop.widgets.shown_text import PlainStatic, content
from raidtop.widgets.text_table import Column, Row, TextTable

KNOB_COLUMNS = [
    Column("attr", "Setting", 18, "left"),
    Column("current", "Current", 22, "left"),
    Column("allowed", "Allowed", 27, "left"),
    Column("start", "At start", 11, "left"),
    Column("command", "Command", 60, "left"),
]
TARGET_COLUMNS = [Column("name", "Device", 8, "left"), Column("detail", "What", 15, "left")]
CHANGE_COLUMNS = [
    Column("time", "Time", 9, "left"),
    Column("device", "Device", 9, "left"),
    Column("attr", "Setting", 17, "left"),
    Column("old", "Old", 13, "left"),
    Column("new", "New", 13, "left"),
    Column("result", "Result", 70, "left"),
]


def describe_prediction(p: EtaPrediction) -> str:
    """One line: the predicted rate and ETA against the current ones."""
    caveat = " (best case)" if p.optimistic else ""
    spread = f" ({p.uncertainty})" if p.uncertainty else ""
    return (f"{p.array} {p.action}: {speed(p.observed_kib_s)} now, ETA {duration(p.current_eta_s)} → "
            f"{speed(p.predicted_kib_s)}, ETA {duration(p.eta_s)}{spread}{caveat}; {p.basis}")


def knob_row(knob: Knob, sudo: bool) -> Row:
    """A knob as a table row; a changed value stands out, read-only knobs are dim."""
    command = shell_command(knob.target, knob.attr, knob.value, sudo=sudo) if knob.writable and knob.value else "read-only"
    start = DASH if knob.start is None else knob.start
    if not knob.writable:
        tones = ("dim",) * 5
    else:
        tones = (None, "accent" if knob.changed else None, "dim", "dim", "dim")
    return Row(knob.attr, (knob.attr, knob.shown, knob.allowed.describe(), start, command), tones)


def change_row(index: int, result: ChangeResult) -> Row:
    """One attempted change for the session's change table."""
    tone = {"ok": "good", "unchanged": "dim", "mismatch": "warn"}.get(result.status, "crit")
    label = result.attr + (" (undo)" if result.is_undo else "")
    words = "ok" if result.status == "ok" else result.message
    return Row(str(index), (time.strftime("%H:%M:%S", time.localtime(result.time)), result.target, label,
                            result.old or DASH, result.new or DASH, words), ("dim", None, None, "dim", None, tone))


# ---------------------------------------------------------------- dialogs


class ChangeDialog(ModalScreen[str | None]):
    """Asks for a knob's new value: a list for choices, an input for numbers, checked as you go.

    ``preview(text)`` returns (error, lines): the refusal, or what will run and
    what it predicts. The dialog returns the text the user chose, or ``None``.
    """

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="change-cancel", tooltip="Close without changing anything")]
    DEFAULT_CSS = """
    ChangeDialog { align: center middle; }
    ChangeDialog > Vertical { width: 96; max-width: 100%; height: auto; max-height: 90%; border: thick $primary; background: $surface; padding: 1 2; }
    ChangeDialog #change-title { text-style: bold; color: $text-primary; }
    ChangeDialog #change-summary { color: $text-muted; }
    ChangeDialog #change-now { margin-top: 1; }
    ChangeDialog OptionList { height: auto; max-height: 8; margin-top: 1; }
    ChangeDialog Input { margin-top: 1; }
    ChangeDialog #change-error { color: $text-error; margin-top: 1; }
    ChangeDialog #change-preview { color: $text-muted; margin-top: 1; }
    ChangeDialog Horizontal { height: auto; margin-top: 1; align-horizontal: right; }
    ChangeDialog Button { margin-left: 2; }
    """

    def __init__(self, knob: Knob, preview: Callable[[str], tuple[str | None, list[str]]]) -> None:
        super().__init__()
        self.knob = knob
        self._preview = preview

    def compose(self) -> ComposeResult:
        knob = self.knob
        with Vertical():
            yield Label(content(f"Change {knob.target} {knob.attr}"), id="change-title")
            yield PlainStatic(knob.spec.summary, id="change-summary")
            yield PlainStatic(f"Now: {knob.shown}    Allowed: {knob.allowed.describe()}"
                         + (f" ({knob.allowed.note})" if knob.allowed.note else ""), id="change-now")
            if knob.allowed.choices:
                meanings = CHOICE_MEANINGS.get(knob.attr, {})
                options = OptionList(*(Option(content(f"{choice:<14} {meanings.get(choice, '')}".rstrip()), id=choice)
                                       for choice in knob.allowed.choices), id="change-choices")
                yield options
            else:
                hint = knob.allowed.describe() + (f" {knob.spec.unit}" if knob.spec.unit else "")
                yield Input(value=knob.value or "", placeholder=hint, id="change-input")
            yield PlainStatic("", id="change-error")
            yield PlainStatic("", id="change-preview")
            with Horizontal():
                yield Button("Cancel (Esc)", id="change-cancel-button", variant="default")
                yield Button("Continue (Enter)", id="change-continue", variant="primary")

    def on_mount(self) -> None:
        if self.knob.allowed.choices:
            options = self.query_one(OptionList)
            if self.knob.value in self.knob.allowed.choices:
                options.highlighted = self.knob.allowed.choices.index(self.knob.value)
            options.focus()
        else:
            self.query_one(Input).focus()
        self._update(self._text())

    def _text(self) -> str:
        if self.knob.allowed.choices:
            options = self.query_one(OptionList)
            index = options.highlighted
            return "" if index is None else str(options.get_option_at_index(index).id)
        return self.query_one(Input).value

    def _update(self, text: str) -> bool:
        error, lines = self._preview(text)
        self.query_one("#change-error", Static).update(error or "")
        self.query_one("#change-preview", Static).update("\n".join(lines))
        return error is None

    @on(Input.Changed)
    def _typed(self, event: Input.Changed) -> None:
        self._update(event.value)

    @on(OptionList.OptionHighlighted)
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self._update(str(event.option.id))

    @on(Input.Submitted)
    @on(OptionList.OptionSelected)
    def _submitted(self) -> None:
        self._finish()

    @on(Button.Pressed, "#change-continue")
    def _continue(self) -> None:
        self._finish()

    @on(Button.Pressed, "#change-cancel-button")
    def _cancel_button(self) -> None:
        self.dismiss(None)

    def _finish(self) -> None:
        text = self._text()
        if self._update(text):
            self.dismiss(text)

    def action_cancel(self) -> None:
        """Close without a value."""
        self.dismiss(None)


class CommandDialog(ModalScreen[None]):
    """Shows commands to run by hand (without root), with why."""

    BINDINGS = [Binding("escape,enter,q", "close", "Close", id="command-close", tooltip="Close this message")]
    DEFAULT_CSS = """
    CommandDialog { align: center middle; }
    CommandDialog > Vertical { width: 96; max-width: 100%; height: auto; border: thick $warning; background: $surface; padding: 1 2; }
    CommandDialog #command-title { text-style: bold; color: $text-warning; }
    CommandDialog #command-text { background: $panel; color: $text-primary; padding: 0 1; margin: 1 0; }
    CommandDialog #command-details { color: $text-muted; }
    """

    def __init__(self, title: str, commands: list[str], details: str = "") -> None:
        super().__init__()
        self._title = title
        self._commands = commands
        self._details = details

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(content(self._title), id="command-title")
            yield PlainStatic("\n".join(self._commands), id="command-text")
            if self._details:
                yield PlainStatic(self._details, id="command-details")
            yield Button("Close (Esc)", id="command-close-button")

    def on_button_pressed(self) -> None:
        self.dismiss(None)

    def action_close(self) -> None:
        """Close the message."""
        self.dismiss(None)


class ChangeLogScreen(ModalScreen[None]):
    """Every tuning change raidtop logged (any session), newest first."""

    BINDINGS = [Binding("escape,q,L", "close", "Close log", id="tuning-log-close", tooltip="Back to the Tuning screen")]
    DEFAULT_CSS = """
    ChangeLogScreen { align: center middle; }
    ChangeLogScreen > Panel { width: 116; max-width: 100%; height: 80%; background: $surface; }
    """

    def __init__(self, rows: list[Row], path: str) -> None:
        super().__init__()
        self._rows = rows
        self._path = path

    def compose(self) -> ComposeResult:
        panel = Panel()
        panel.border_title = "Tuning change log"
        panel.border_subtitle = content(self._path)
        with panel:
            yield TextTable([Column("time", "Time", 20, "left"), Column("device", "Device", 9, "left"),
                             Column("attr", "Setting", 17, "left"), Column("old", "Old", 13, "left"),
                             Column("new", "New", 13, "left"), Column("result", "Result", 60, "left")],
                            id="tuning-log-table")

    def on_mount(self) -> None:
        table = self.query_one(TextTable)
        table.set_rows(self._rows, "no tuning changes logged yet")
        table.focus()

    def action_close(self) -> None:
        """Back to the Tuning screen."""
        self.dismiss(None)


class PersistDialog(ModalScreen[None]):
    """Shows the generated udev rules and sysctl snippet and saves them where the user says."""

    BINDINGS = [Binding("escape", "close", "Close", id="persist-close", tooltip="Close without saving more")]
    DEFAULT_CSS = """
    PersistDialog { align: center middle; }
    PersistDialog > VerticalScroll { width: 110; max-width: 100%; height: 90%; border: thick $primary; background: $surface; padding: 0 1; }
    PersistDialog .persist-title { text-style: bold; color: $text-primary; margin-top: 1; }
    PersistDialog .persist-hint { color: $text-muted; }
    PersistDialog TextArea { height: auto; max-height: 12; }
    PersistDialog Horizontal { height: auto; }
    PersistDialog Horizontal Input { width: 1fr; }
    PersistDialog #persist-status { color: $text-success; margin-top: 1; }
    """

    def __init__(self, udev_text: str, sysctl_text: str, udev_path: str, sysctl_path: str) -> None:
        super().__init__()
        self._texts = {"udev": udev_text, "sysctl": sysctl_text}
        self._paths = {"udev": udev_path, "sysctl": sysctl_path}

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            for kind, title in (("udev", "udev rules (block devices and md arrays)"), ("sysctl", "sysctl.d (md speed limits)")):
                yield Label(content(title), classes="persist-title")
                yield TextArea(self._texts[kind], read_only=True, id=f"persist-{kind}-text", show_line_numbers=False)
                with Horizontal():
                    yield Input(self._paths[kind], id=f"persist-{kind}-path")
                    yield Button("Save", id=f"persist-{kind}-save", variant="primary")
            yield Static("Files under /etc, or that exist, are written only after you confirm them by name.",
                         classes="persist-hint")
            yield PlainStatic("", id="persist-status")

    @on(Button.Pressed)
    def _save_pressed(self, event: Button.Pressed) -> None:
        kind = (event.button.id or "").split("-")[1]
        if kind in self._texts:
            self.save(kind)

    def save(self, kind: str) -> None:
        """Save one text, asking first when the path needs it."""
        path = self.query_one(f"#persist-{kind}-path", Input).value.strip()
        question = save_question(path) if path else None
        if question:
            self.app.push_screen(
                ConfirmDialog(f"Write {path}?", f"write {path}", details=question),
                callback=lambda yes: self._write(kind, path, bool(yes)) if yes else None,
            )
            return
        self._write(kind, path, False)

    def _write(self, kind: str, path: str, confirmed: bool) -> None:
        result = save_text(path, self._texts[kind], confirmed=confirmed)
        status = self.query_one("#persist-status", Static)
        if result.ok:
            status.update(f"{result.message}. To use it: {install_command(result.path, kind)}")
            self.notify(result.message, title="Saved", timeout=6)
        else:
            status.update(result.message)
            self.notify(result.message, title="Not saved", severity="error", timeout=8)

    def action_close(self) -> None:
        """Close the dialog."""
        self.dismiss(None)


# ---------------------------------------------------------------- the screen


class TuningScreen(Screen[None]):
    """Change scheduler, read-ahead, queue and md speed settings, with undo and a log.

    Args:
        device: a block device to preselect (the dashboard's highlighted disk).
        array: an md array to preselect (the highlighted array); wins over ``device``.
        session: the tuning session to use; by default the process-wide one for
            the app's root, so start values and undo survive closing the screen.
    """

    BINDINGS = [
        Binding("escape,q", "back", "Back", id="tuning-back", tooltip="Return to the dashboard"),
        Binding("c", "change", "Change", id="tuning-change",
                tooltip="Change the highlighted setting (Enter does the same); asks before writing"),
        Binding("u", "undo", "Undo", id="tuning-undo", tooltip="Revert the last change of this session (asks first)"),
        Binding("U", "undo_all", "Undo all", id="tuning-undo-all",
                tooltip="Put every setting changed in this session back to its value at start (asks first)"),
        Binding("L", "change_log", "Change log", id="tuning-log", tooltip="Every tuning change raidtop logged"),
        Binding("g", "generate_rules", "Make permanent", id="tuning-rules",
                tooltip="Generate udev rules and a sysctl.d snippet for the changes in effect"),
    ]
    DEFAULT_CSS = """
    TuningScreen #tuning-title { height: 1; background: $panel; color: $text-primary; text-style: bold; }
    TuningScreen #tuning-banner { height: auto; background: $panel; color: $text-warning; display: none; }
    TuningScreen.-not-root #tuning-banner { display: block; }
    TuningScreen #tuning-targets-panel { width: 26; }
    TuningScreen #tuning-knobs, TuningScreen #tuning-changes { scrollbar-size-horizontal: 0; }
    TuningScreen #tuning-right { width: 1fr; }
    TuningScreen #tuning-knobs-panel { height: 1fr; min-height: 8; }
    TuningScreen #tuning-lower { height: 13; }
    TuningScreen #tuning-details-panel { width: 1fr; }
    TuningScreen #tuning-array-panel { width: 52; display: none; }
    TuningScreen.-array #tuning-array-panel { display: block; }
    TuningScreen VerticalScroll { background: $surface; }
    TuningScreen .detail-command { background: $panel; color: $text-primary; }
    TuningScreen .detail-muted { color: $text-muted; }
    TuningScreen .detail-warning { color: $text-warning; }
    TuningScreen .detail-accent { color: $text-accent; }
    TuningScreen .detail-heading { color: $text-primary; text-style: bold; }
    TuningScreen #tuning-changes-panel { height: 7; }
    """

    def __init__(self, device: str | None = None, array: str | None = None, *,
                 session: TuningSession | None = None) -> None:
        super().__init__()
        self._wanted = array or device
        self._session = session
        self.target_name: str | None = None
        """The device, array or ``raid`` whose knobs are shown."""
        self._snapshot: Snapshot | None = None
        self._targets: list[Target] = []
        self._knobs: list[Knob] = []

    @property
    def session(self) -> TuningSession:
        """The tuning session (created on first use from the app's root)."""
        if self._session is None:
            config = getattr(self.app, "config", None)
            self._session = session_for(getattr(config, "root", "/"))
        return self._session

    def compose(self) -> ComposeResult:
        # The title names the device: a /sys/block name is anyone's text.
        yield PlainStatic(" Tuning", id="tuning-title")
        yield Static(" You are not root: everything is shown, but changes need root. raidtop shows the "
                     "command to run with sudo instead of writing.", id="tuning-banner")
        with Horizontal():
            targets = Panel(id="tuning-targets-panel")
            targets.border_title = "Devices"
            with targets:
                yield TextTable(TARGET_COLUMNS, id="tuning-targets")
            with Vertical(id="tuning-right"):
                knobs = Panel(id="tuning-knobs-panel")
                knobs.border_title = "Settings"
                knobs.border_subtitle = "Enter/c change · u undo · U undo all"
                with knobs:
                    yield TextTable(KNOB_COLUMNS, id="tuning-knobs")
                with Horizontal(id="tuning-lower"):
                    details = Panel(id="tuning-details-panel")
                    details.border_title = "Setting"
                    with details:
                        with VerticalScroll(id="tuning-details"):
                            yield PlainStatic("", id="detail-summary")
                            yield PlainStatic("", id="detail-command", classes="detail-command")
                            yield PlainStatic("", id="detail-notes", classes="detail-muted")
                            yield PlainStatic("", id="detail-warning", classes="detail-warning")
                    array_panel = Panel(id="tuning-array-panel")
                    array_panel.border_title = "Sync and alignment"
                    with array_panel:
                        with VerticalScroll(id="tuning-array"):
                            yield PlainStatic("", id="array-sync", classes="detail-accent")
                            yield PlainStatic("", id="array-effect")
                            yield PlainStatic("", id="array-align-title", classes="detail-heading")
                            yield PlainStatic("", id="array-align", classes="detail-command")
                            yield PlainStatic("", id="array-align-notes", classes="detail-muted")
        changes = Panel(id="tuning-changes-panel")
        changes.border_title = "Changes this session"
        with changes:
            yield TextTable(CHANGE_COLUMNS, id="tuning-changes")
        yield Footer()

    def on_mount(self) -> None:
        self.set_class(self.session.needs_sudo, "-not-root")
        dashboard = getattr(self.app, "dashboard", None)
        self._snapshot = getattr(dashboard, "last_snapshot", None)
        self._targets = self.session.targets()
        names = [t.name for t in self._targets]
        wanted = self._wanted
        if wanted is not None and wanted not in names:
            parent = parent_disk(self.session.root, wanted)
            try:
                self.session.knobs(parent or wanted)
                if parent:
                    self.notify(f"{wanted} is a partition: showing {parent}, whose queue it uses.", title="Tuning")
                    wanted = parent
            except TuningError as exc:
                self.notify(str(exc), title="Tuning", severity="warning", timeout=8)
                wanted = None
        self.target_name = wanted or (names[0] if names else None)
        self.watch(self.query_one("#tuning-targets", TextTable), "cursor_row", self._target_moved, init=False)
        self.watch(self.query_one("#tuning-knobs", TextTable), "cursor_row", self._knob_moved, init=False)
        self.refresh_view()
        self.query_one("#tuning-knobs", TextTable).focus()

    # -------------------------------------------------------------- data

    def apply_snapshot(self, snapshot: Snapshot) -> None:
        """Follow the live values: knobs, sync rate, ETA and the effect of recent changes."""
        self._snapshot = snapshot
        self.session.effects.observe(snapshot)
        self.refresh_view()

    def _arrays(self) -> list[MdArray]:
        if self._snapshot is not None:
            return list(self._snapshot.arrays)
        # No sample yet (or the app samples nothing): read md from sysfs directly.
        return read_md_sysfs(self.session.root)[0]

    def refresh_view(self) -> None:
        """Re-read the knobs and repaint every table and text."""
        session = self.session
        self._targets = session.targets()
        targets = self.query_one("#tuning-targets", TextTable)
        target_rows = [Row(t.name, (t.name, t.detail), (None, "dim")) for t in self._targets]
        if self.target_name and self.target_name not in {t.name for t in self._targets}:
            target_rows.append(Row(self.target_name, (self.target_name, "gone?"), ("crit", "dim")))
        targets.set_rows(target_rows, "no tunable devices under /sys/block")
        if self.target_name:
            targets.move_cursor_to_key(self.target_name)
        knob_table = self.query_one("#tuning-knobs", TextTable)
        title = self.query_one("#tuning-title", Static)
        try:
            self._knobs = session.knobs(self.target_name) if self.target_name else []
            target = next((t for t in self._targets if t.name == self.target_name), None)
            title.update(f" Tuning  {self.target_name}  {target.detail if target else ''}".rstrip())
            placeholder = "this device exposes no tunable settings"
        except TuningError as exc:
            self._knobs = []
            title.update(f" Tuning  {self.target_name}: {exc}")
            placeholder = str(exc)
        knob_table.set_rows([knob_row(k, session.needs_sudo) for k in self._knobs], placeholder)
        is_array = any(t.name == self.target_name and t.kind in ("md", "global") for t in self._targets)
        self.set_class(is_array, "-array")
        self._show_details()
        self._show_array()
        results = session.results
        self.query_one("#tuning-changes", TextTable).set_rows(
            [change_row(i, r) for i, r in reversed(list(enumerate(results)))],
            "no changes yet: highlight a setting and press Enter",
        )
        self.refresh_bindings()

    def _highlighted_knob(self) -> Knob | None:
        key = self.query_one("#tuning-knobs", TextTable).cursor_key
        return next((k for k in self._knobs if k.attr == key), None)

    def _show_details(self) -> None:
        knob = self._highlighted_knob()
        summary = self.query_one("#detail-summary", Static)
        command = self.query_one("#detail-command", Static)
        notes = self.query_one("#detail-notes", Static)
        warning = self.query_one("#detail-warning", Static)
        if knob is None:
            for widget in (summary, command, notes, warning):
                widget.update("")
            return
        self.query_one("#tuning-details-panel", Panel).border_title = content(f"{knob.target} {knob.attr}")
        summary.update(knob.spec.summary)
        if knob.writable and knob.value is not None:
            command.update(shell_command(knob.target, knob.attr, knob.value, sudo=self.session.needs_sudo))
        else:
            command.update(f"{knob.path} is read-only here")
        lines = [f"Allowed: {knob.allowed.describe()}" + (f" ({knob.allowed.note})" if knob.allowed.note else ""),
                 f"At start: {knob.start if knob.start is not None else DASH}"
                 + ("   (changed)" if knob.changed else "")]
        notes.update("\n".join(lines))
        warning.update("Changing it to write through can lose data on power failure; see the confirmation."
                       if knob.attr == "write_cache" else "")

    def _show_array(self) -> None:
        sync_text, effect_text, title, align, align_notes = "", "", "", "", ""
        target = self.target_name
        arrays = self._arrays() if self.has_class("-array") else []
        # The global limits move every syncing array that follows them; list just those.
        shown = [a for a in arrays if a.name == target] if target != GLOBAL_TARGET else [a for a in arrays if a.sync]
        lines = []
        for array in shown:
            sync = array.sync
            if sync is None:
                lines.append(f"{array.name}: no resync or rebuild running")
                continue
            eta = sync.eta_s if sync.eta_s is not None else sync.eta_s_kernel
            percent = DASH if sync.percent is None else f"{sync.percent:.1f}%"
            lines.append(f"{array.name} {sync.action} {percent} at {speed(sync.speed_kib_s)}, ETA {duration(eta)}")
        if target == GLOBAL_TARGET:
            followers = [name for name, limit in self.session.array_limits(a.name for a in arrays).items()
                         if limit.local_min is None or limit.local_max is None]
            lines.append("arrays following these limits: " + (", ".join(followers) or "none"))
        elif shown:
            for limit in self.session.array_limits(a.name for a in shown).values():
                low = f"{limit.effective.min}" + (" (system)" if limit.local_min is None else "")
                high = f"{limit.effective.max}" + (" (system)" if limit.local_max is None else "")
                lines.append(f"limits {low} – {high} K/s")
        sync_text = "\n".join(lines)
        effects = [e for e in self.session.effects.effects() if target == GLOBAL_TARGET or e.array == target]
        effect_text = "\n".join(e.summary(speed) for e in effects[-3:])
        if target != GLOBAL_TARGET:
            array = next((a for a in arrays if a.name == target), None)
            if array is not None:
                hint = alignment_hint(array)
                chunk = f"chunk {hint.chunk_kib}K" if hint.chunk_kib else "no chunk"
                data = f"{hint.data_disks} data disks" if hint.data_disks is not None else "data disks unknown"
                title = f"Filesystem alignment ({chunk}, {data})"
                align = "\n".join(c for c in (hint.ext4_command, hint.xfs_command) if c) or "nothing to align"
                align_notes = "; ".join(hint.notes)
        self.query_one("#array-sync", Static).update(sync_text or "no running sync")
        self.query_one("#array-effect", Static).update(effect_text)
        self.query_one("#array-align-title", Static).update(title)
        self.query_one("#array-align", Static).update(align)
        self.query_one("#array-align-notes", Static).update(align_notes)

    def _target_moved(self, _old: int, _new: int) -> None:
        key = self.query_one("#tuning-targets", TextTable).cursor_key
        if key is not None and key != self.target_name:
            self.target_name = key
            self.query_one("#tuning-knobs", TextTable).cursor_row = 0
            self.refresh_view()

    def _knob_moved(self, _old: int, _new: int) -> None:
        self._show_details()

    @on(TextTable.RowSelected, "#tuning-targets")
    def _target_chosen(self) -> None:
        self.query_one("#tuning-knobs", TextTable).focus()

    @on(TextTable.RowSelected, "#tuning-knobs")
    def _knob_chosen(self) -> None:
        self.action_change()

    # -------------------------------------------------------------- changing

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Hide undo when there is nothing to undo, and the rules when nothing changed."""
        if action in ("undo", "undo_all"):
            return bool(self.session.undoable)
        if action == "generate_rules":
            return any(r.changed_system for r in self.session.results)
        return True

    def _predictions(self, target: str, attr: str, value: str) -> list[EtaPrediction]:
        if attr not in SPEED_KNOBS:
            return []
        return self.session.predict(self._arrays(), target, attr, value)

    def _preview(self, knob: Knob, text: str) -> tuple[str | None, list[str]]:
        plan = self.session.plan(knob.target, knob.attr, text)
        if isinstance(plan, Refusal):
            return plan.message, []
        if plan.noop:
            return None, [f"{knob.attr} is already {plan.new}: nothing to change."]
        lines = [("Run with sudo: " if self.session.needs_sudo else "Will run: ")
                 + (plan.sudo_command if self.session.needs_sudo else plan.command), *plan.notes]
        lines += ["Predicted: " + describe_prediction(p) for p in self._predictions(knob.target, knob.attr, plan.new)]
        if plan.warning:
            lines.append("Warning: " + plan.warning)
        return None, lines

    def action_change(self) -> None:
        """Ask for a new value of the highlighted knob."""
        knob = self._highlighted_knob()
        if knob is None:
            return
        if not knob.writable:
            self.notify(f"{knob.target} {knob.attr} is read-only: the kernel does not allow changing it here.",
                        title="Read-only", severity="warning")
            return
        self.app.push_screen(ChangeDialog(knob, lambda text: self._preview(knob, text)),
                             callback=lambda value: self._value_chosen(knob, value))

    def _value_chosen(self, knob: Knob, value: str | None) -> None:
        if value is None:
            return
        plan = self.session.plan(knob.target, knob.attr, value)
        if isinstance(plan, Refusal):
            self.notify(plan.message, title="Refused", severity="error", timeout=8)
            return
        if plan.noop:
            self.notify(f"{knob.target} {knob.attr} is already {plan.new}; nothing written.", title="Unchanged")
            return
        if self.session.needs_sudo and not self.session.can_write(plan):
            self.app.push_screen(CommandDialog(
                f"Changing {plan.target} {plan.attr} needs root",
                [plan.sudo_command],
                "raidtop is not running as root, so it does not write. Run the command above, or restart "
                f"raidtop with sudo. (Or: sudo raidtop tune {plan.target} {plan.attr} {plan.new!r})",
            ))
            return
        predictions = self._predictions(plan.target, plan.attr, plan.new)
        details = [f"Writes {plan.new} to {plan.path} (now {plan.old}), reads it back and logs the change.",
                   *plan.notes, *("Predicted: " + describe_prediction(p) for p in predictions)]
        self.app.push_screen(
            ConfirmDialog(f"Change {plan.target} {plan.attr} to {plan.new}?", plan.command, "\n".join(details), plan.warning),
            callback=lambda yes: self._apply(plan, predictions) if yes else None,
        )

    def _apply(self, plan: Plan, predictions: list[EtaPrediction]) -> None:
        result = self.session.apply(plan)
        if result.changed_system and predictions:
            moved = {p.array for p in predictions}
            self.session.effects.start(result.time, plan.target, plan.attr, plan.new,
                                       [a for a in self._arrays() if a.name in moved], predictions)
        self._announce([result])
        self.refresh_view()

    def _announce(self, results: list[ChangeResult]) -> None:
        for result in results:
            if result.status == "unchanged" and result.is_undo:
                continue
            severity = "information" if result.ok else ("warning" if result.status == "mismatch" else "error")
            self.notify(result.message, title="Tuning", severity=severity, timeout=6 if result.ok else 10)
            if result.log_error:
                self.notify(result.log_error, title="Change log", severity="warning", timeout=10)

    def _confirm_plans(self, title: str, plans: list[Plan | Refusal], what: str) -> None:
        refused = [p for p in plans if isinstance(p, Refusal)]
        ready = [p for p in plans if isinstance(p, Plan)]
        if not ready:
            self.notify(refused[0].message if refused else "nothing to do", title=title, severity="warning")
            return
        if self.session.needs_sudo and not all(self.session.can_write(p) for p in ready):
            self.app.push_screen(CommandDialog(f"{title}: needs root", [p.sudo_command for p in ready if not p.noop]
                                               or [ready[0].sudo_command], "Run these commands with sudo."))
            return
        commands = [p.command + ("   # only if the scheduler switch moved it" if p.noop else "") for p in ready]
        details = [what, *(f"Refused: {p.message}" for p in refused)]
        warning = " ".join(p.warning for p in ready if p.warning)
        self.app.push_screen(
            ConfirmDialog(title, "\n".join(commands), "\n".join(details), warning),
            callback=lambda yes: self._run_plans(plans) if yes else None,
        )

    def _run_plans(self, plans: list[Plan | Refusal]) -> None:
        self._announce([self.session.apply(p) for p in plans])
        self.refresh_view()

    def action_undo(self) -> None:
        """Revert the last change of this session (after confirmation)."""
        changes = self.session.undoable
        if not changes:
            self.notify("Nothing to undo in this session.", title="Undo")
            return
        last = changes[-1]
        what = (f"Restores {last.target} {last.attr} to {last.old} (set to {last.new} at "
                f"{time.strftime('%H:%M:%S', time.localtime(last.time))}).")
        self._confirm_plans("Undo the last change?", self.session.plan_undo(last), what)

    def action_undo_all(self) -> None:
        """Put every changed knob back to its value at start (after confirmation)."""
        plans = self.session.plan_undo_all()
        if not plans:
            self.notify("Every setting is at its value at start.", title="Undo all")
            return
        self._confirm_plans("Undo every change of this session?", plans,
                            "Puts each setting changed in this session back to its value at start (schedulers first).")

    def action_change_log(self) -> None:
        """Show the tuning change log."""
        rows = []
        for i, entry in enumerate(reversed(self.session.logged_changes())):
            d = entry.details
            undo = " (undo)" if d.get("undo_of") is not None or d.get("undo_all") else ""
            tone = "good" if entry.result == "ok" else ("dim" if d.get("status") == "unchanged" else "warn")
            rows.append(Row(str(i), (time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(entry.time)), str(d.get("device")),
                                     f"{d.get('attribute')}{undo}", str(d.get("old")), str(d.get("new")), entry.result),
                            ("dim", None, None, "dim", None, tone)))
        self.app.push_screen(ChangeLogScreen(rows, str(self.session.log.path)))

    def action_generate_rules(self) -> None:
        """Generate udev rules and a sysctl.d snippet for the changes in effect."""
        knobs = self.session.net_changes()
        if not knobs:
            self.notify("No change of this session is in effect: nothing to make permanent.", title="Make permanent")
            return
        settings = settings_from_knobs(knobs)
        rules_path, sysctl_path = default_paths()
        self.app.push_screen(PersistDialog(udev_rules(settings, self.session.root), sysctl_conf(settings),
                                           str(rules_path), str(sysctl_path)))

    def action_back(self) -> None:
        """Return to the dashboard."""
        self.app.pop_screen()
