"""The Tuning screen: change queue and md settings safely, with undo, a log and persistent rules.

Left, the devices and arrays; right, the highlighted target's knobs (current
value, what is allowed, the value at start, the equivalent command); below,
what the highlighted knob does, the running sync with its ETA, filesystem
alignment hints for arrays, and the changes made in this session.

Every change goes: value dialog (validated as you type) → ConfirmDialog with
the exact command → write, read back, log → notification. Without root the
screen shows everything and, instead of writing, the command to run with sudo.
All reads and writes go through :mod:`raidtop.actions.tuning` in thread
workers (reads: one exclusive worker per refresh; writes: apply, undo) that
post a message; the screen only renders messages.
"""

from __future__ import annotations


from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from raidtop.actions.alignment import alignment_hint
from raidtop.actions.tuning import (
    GLOBAL_TARGET,
    Knob,
    Target,
    TuningSession,
    session_for,
    shell_command,
)
from raidtop.presentation.format import DASH
from raidtop.presentation.md import duration, speed
from raidtop.model.snapshot import Snapshot
from raidtop.model.md import MdArray
from raidtop.screens.tuning.flow import TuningChangeFlow
from raidtop.screens.tuning.reads import TuningReader, TuningView
from raidtop.screens.tuning.rows import CHANGE_COLUMNS, KNOB_COLUMNS, TARGET_COLUMNS, change_row, knob_row
from raidtop.widgets.panel import Panel
from raidtop.widgets.shown_text import PlainStatic, content
from raidtop.widgets.text_table import Row, TextTable
from raidtop.widgets.key_footer import KeyFooter
from raidtop.screens.host import screen_host


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
        Binding(
            "c",
            "change",
            "Change",
            id="tuning-change",
            tooltip="Change the highlighted setting (Enter does the same); asks before writing",
        ),
        Binding("u", "undo", "Undo", id="tuning-undo", tooltip="Revert the last change of this session (asks first)"),
        Binding(
            "U",
            "undo_all",
            "Undo all",
            id="tuning-undo-all",
            tooltip="Put every setting changed in this session back to its value at start (asks first)",
        ),
        Binding("L", "change_log", "Change log", id="tuning-log", tooltip="Every tuning change raidtop logged"),
        Binding(
            "g",
            "generate_rules",
            "Make permanent",
            id="tuning-rules",
            tooltip="Generate udev rules and a sysctl.d snippet for the changes in effect",
        ),
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

    def __init__(
        self, device: str | None = None, array: str | None = None, *, session: TuningSession | None = None
    ) -> None:
        super().__init__()
        self._wanted = array or device
        self._session = session
        self.target_name: str | None = None
        """The device, array or ``raid`` whose knobs are shown."""
        self._snapshot: Snapshot | None = None
        self._targets: list[Target] = []
        self._knobs: list[Knob] = []
        self._view: TuningView | None = None

    @property
    def session(self) -> TuningSession:
        """The tuning session (created on first use from the app's root)."""
        if self._session is None:
            self._session = session_for(screen_host(self).config.root)
        return self._session

    def compose(self) -> ComposeResult:
        # The title names the device: a /sys/block name is anyone's text.
        yield PlainStatic(" Tuning", id="tuning-title")
        yield Static(
            " You are not root: everything is shown, but changes need root. raidtop shows the "
            "command to run with sudo instead of writing.",
            id="tuning-banner",
        )
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
                    with details, VerticalScroll(id="tuning-details"):
                        yield PlainStatic("", id="detail-summary")
                        yield PlainStatic("", id="detail-command", classes="detail-command")
                        yield PlainStatic("", id="detail-notes", classes="detail-muted")
                        yield PlainStatic("", id="detail-warning", classes="detail-warning")
                    array_panel = Panel(id="tuning-array-panel")
                    array_panel.border_title = "Sync and alignment"
                    with array_panel, VerticalScroll(id="tuning-array"):
                        yield PlainStatic("", id="array-sync", classes="detail-accent")
                        yield PlainStatic("", id="array-effect")
                        yield PlainStatic("", id="array-align-title", classes="detail-heading")
                        yield PlainStatic("", id="array-align", classes="detail-command")
                        yield PlainStatic("", id="array-align-notes", classes="detail-muted")
        changes = Panel(id="tuning-changes-panel")
        changes.border_title = "Changes this session"
        with changes:
            yield TextTable(CHANGE_COLUMNS, id="tuning-changes")
        yield KeyFooter()
        yield TuningReader(self.session, id="tuning-reader")
        yield TuningChangeFlow(self.session, self._arrays, id="tuning-flow")

    def on_mount(self) -> None:
        self.set_class(self.session.needs_sudo, "-not-root")
        self._snapshot = screen_host(self).live.latest
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
        return list(self._view.arrays) if self._view is not None else []

    def refresh_view(self) -> None:
        """Re-read the knobs in a thread worker; :meth:`_render_view` paints what it read."""
        # Until a read has chosen the target, each read resolves the wanted device itself.
        wanted = self._wanted if self.target_name is None else None
        self.query_one(TuningReader).read(self._snapshot, self.target_name, wanted)

    @on(TuningReader.Read)
    def _read_done(self, message: TuningReader.Read) -> None:
        view = message.view
        if view.asked != self.target_name:
            return  # the user moved on while this was read; a newer read is under way
        if self._wanted is not None or self.target_name is None:
            self._wanted = None
            for notice in view.notices:
                if notice.timeout is None:
                    self.notify(notice.text, title="Tuning", severity=notice.severity)
                else:
                    self.notify(notice.text, title="Tuning", severity=notice.severity, timeout=notice.timeout)
        self.target_name = view.target
        self._view = view
        self._render_view()

    def _render_view(self) -> None:
        """Paint every table and text from the last read."""
        view = self._view
        if view is None:
            return
        session = self.session
        self._targets = list(view.targets)
        targets = self.query_one("#tuning-targets", TextTable)
        target_rows = [Row(t.name, (t.name, t.detail), (None, "dim")) for t in self._targets]
        if self.target_name and self.target_name not in {t.name for t in self._targets}:
            target_rows.append(Row(self.target_name, (self.target_name, "gone?"), ("crit", "dim")))
        targets.set_rows(target_rows, "no tunable devices under /sys/block")
        if self.target_name:
            targets.move_cursor_to_key(self.target_name)
        knob_table = self.query_one("#tuning-knobs", TextTable)
        title = self.query_one("#tuning-title", Static)
        self._knobs = list(view.knobs)
        if view.error is None:
            target = next((t for t in self._targets if t.name == self.target_name), None)
            title.update(f" Tuning  {self.target_name}  {target.detail if target else ''}".rstrip())
            placeholder = "this device exposes no tunable settings"
        else:
            title.update(f" Tuning  {self.target_name}: {view.error}")
            placeholder = view.error
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
        lines = [
            f"Allowed: {knob.allowed.describe()}" + (f" ({knob.allowed.note})" if knob.allowed.note else ""),
            f"At start: {knob.start if knob.start is not None else DASH}" + ("   (changed)" if knob.changed else ""),
        ]
        notes.update("\n".join(lines))
        warning.update(
            "Changing it to write through can lose data on power failure; see the confirmation."
            if knob.attr == "write_cache"
            else ""
        )

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
        limits = self._view.limits if self._view is not None else {}
        if target == GLOBAL_TARGET:
            followers = [name for name, limit in limits.items() if limit.local_min is None or limit.local_max is None]
            lines.append("arrays following these limits: " + (", ".join(followers) or "none"))
        elif shown:
            for limit in (limits[a.name] for a in shown if a.name in limits):
                low = f"{limit.effective.min}" + (" (system)" if limit.local_min is None else "")
                high = f"{limit.effective.max}" + (" (system)" if limit.local_max is None else "")
                lines.append(f"limits {low} – {high} KiB/s")
        sync_text = "\n".join(lines)
        effects = [e for e in self.session.effects.effects() if target == GLOBAL_TARGET or e.array == target]
        effect_text = "\n".join(e.summary(speed) for e in effects[-3:])
        if target != GLOBAL_TARGET:
            shown_array = next((a for a in arrays if a.name == target), None)
            if shown_array is not None:
                hint = alignment_hint(shown_array)
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
            self.target_name, self._wanted = key, None
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

    # -------------------------------------------------------------- changing: the flow plans, confirms and writes

    @on(TuningChangeFlow.Written)
    def _written(self) -> None:
        self.refresh_view()

    def action_change(self) -> None:
        """Ask for a new value of the highlighted knob."""
        knob = self._highlighted_knob()
        if knob is not None:
            self.query_one(TuningChangeFlow).change(knob)

    def action_undo(self) -> None:
        """Revert the last change of this session (after confirmation)."""
        self.query_one(TuningChangeFlow).undo()

    def action_undo_all(self) -> None:
        """Put every changed knob back to its value at start (after confirmation)."""
        self.query_one(TuningChangeFlow).undo_all()

    def action_change_log(self) -> None:
        """Show the tuning change log (read in a worker)."""
        self.query_one(TuningChangeFlow).show_log()

    def action_generate_rules(self) -> None:
        """Generate udev rules and a sysctl.d snippet for the changes in effect (built in a worker)."""
        self.query_one(TuningChangeFlow).make_permanent()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Hide undo when there is nothing to undo, and the rules when nothing changed."""
        if action in ("undo", "undo_all"):
            return bool(self.session.undoable)
        if action == "generate_rules":
            return any(r.changed_system for r in self.session.results)
        return True

    def action_back(self) -> None:
        """Return to the dashboard."""
        self.app.pop_screen()
