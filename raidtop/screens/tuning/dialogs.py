"""The Tuning screen's own dialogs: a knob's new value, the change log, and making changes permanent.

Confirmations use :class:`~raidtop.screens.dialogs.ConfirmDialog`, commands to
run by hand :class:`~raidtop.screens.dialogs.CommandDialog`. Saving a file runs
in a thread worker: the dialog only shows the result.
"""

from __future__ import annotations

from collections.abc import Callable

from textual import on, work
from textual.worker import get_current_worker
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, OptionList, Static, TextArea
from textual.widgets.option_list import Option

from raidtop.actions.tuning import CHOICE_MEANINGS, Knob
from raidtop.actions.tuning.rules import SaveResult, install_command, save_question, save_text
from raidtop.screens.dialogs import ConfirmDialog, answer_buttons
from raidtop.screens.tuning.rows import LOG_COLUMNS
from raidtop.widgets.panel import Panel
from raidtop.widgets.shown_text import PlainStatic, content
from raidtop.widgets.text_table import Row, TextTable


class ChangeDialog(ModalScreen[str | None]):
    """Asks for a knob's new value: a list for choices, an input for numbers, checked as you go.

    ``preview(text)`` returns (error, lines): the refusal, or what will run and
    what it predicts. It reads sysfs, so it runs in an exclusive thread worker:
    a burst of keystrokes leaves one preview running, and only the newest
    answer is shown. The dialog returns the text the user chose, or ``None``.
    """

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="change-cancel", tooltip="Close without changing anything")]
    DEFAULT_CSS = """
    ChangeDialog { align: center middle; }
    ChangeDialog > Vertical {
        width: 96; max-width: 100%; height: auto; max-height: 90%;
        border: thick $primary; background: $surface; padding: 1 2;
    }
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
            yield PlainStatic(
                f"Now: {knob.shown}    Allowed: {knob.allowed.describe()}"
                + (f" ({knob.allowed.note})" if knob.allowed.note else ""),
                id="change-now",
            )
            if knob.allowed.choices:
                meanings = CHOICE_MEANINGS.get(knob.attr, {})
                options = OptionList(
                    *(
                        Option(content(f"{choice:<14} {meanings.get(choice, '')}".rstrip()), id=choice)
                        for choice in knob.allowed.choices
                    ),
                    id="change-choices",
                )
                yield options
            else:
                hint = knob.allowed.describe() + (f" {knob.spec.unit}" if knob.spec.unit else "")
                yield Input(value=knob.value or "", placeholder=hint, id="change-input")
            yield PlainStatic("", id="change-error")
            yield PlainStatic("", id="change-preview")
            yield answer_buttons("Continue", letters=False, prefix="change")

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

    def _update(self, text: str, *, finish: bool = False) -> None:
        """Check ``text`` in a worker; with ``finish``, close with it when it is allowed."""
        self._check(text, finish)

    @work(thread=True, exclusive=True, group="change-preview", exit_on_error=False)
    def _check(self, text: str, finish: bool) -> None:
        error, lines = self._preview(text)
        if not get_current_worker().is_cancelled:
            self.post_message(self._Checked(text, error, lines, finish))

    class _Checked(Message):
        def __init__(self, text: str, error: str | None, lines: list[str], finish: bool) -> None:
            super().__init__()
            self.text, self.error, self.lines, self.finish = text, error, lines, finish

    @on(_Checked)
    def _show(self, message: _Checked) -> None:
        text, error, lines, finish = message.text, message.error, message.lines, message.finish
        if not self.is_attached or text != self._text():
            return  # closed meanwhile, or the user typed on: a newer check is under way
        self.query_one("#change-error", Static).update(error or "")
        self.query_one("#change-preview", Static).update("\n".join(lines))
        if finish and error is None:
            self.dismiss(text)

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

    @on(Button.Pressed, "#change-run")
    def _continue(self) -> None:
        self._finish()

    @on(Button.Pressed, "#change-no")
    def _cancel_button(self) -> None:
        self.dismiss(None)

    def _finish(self) -> None:
        self._update(self._text(), finish=True)

    def action_cancel(self) -> None:
        """Close without a value."""
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
            yield TextTable(LOG_COLUMNS, id="tuning-log-table")

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
    PersistDialog > VerticalScroll {
        width: 110; max-width: 100%; height: 90%; border: thick $primary; background: $surface; padding: 0 1;
    }
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
            for kind, title in (
                ("udev", "udev rules (block devices and md arrays)"),
                ("sysctl", "sysctl.d (md speed limits)"),
            ):
                yield Label(content(title), classes="persist-title")
                yield TextArea(self._texts[kind], read_only=True, id=f"persist-{kind}-text", show_line_numbers=False)
                with Horizontal():
                    yield Input(self._paths[kind], id=f"persist-{kind}-path")
                    yield Button("Save", id=f"persist-{kind}-save", variant="primary")
            yield Static(
                "Files under /etc, or that exist, are written only after you confirm them by name.",
                classes="persist-hint",
            )
            yield PlainStatic("", id="persist-status")

    @on(Button.Pressed)
    def _save_pressed(self, event: Button.Pressed) -> None:
        kind = (event.button.id or "").split("-")[1]
        if kind in self._texts:
            self.save(kind)

    def save(self, kind: str) -> None:
        """Save one text, asking first when the path needs it (both decided in a worker)."""
        self._write(kind, self.query_one(f"#persist-{kind}-path", Input).value.strip(), False)

    def _ask(self, kind: str, path: str, question: str) -> None:
        def answered(yes: bool | None) -> None:
            if yes:
                self._write(kind, path, True)

        self.app.push_screen(
            ConfirmDialog(f"Write {path}?", f"write {path}", details=question, go="Write it"), callback=answered
        )

    @work(thread=True, group="tuning-save", exit_on_error=False)
    def _write(self, kind: str, path: str, confirmed: bool) -> None:
        # Resolving links, asking whether the file exists, writing and fsyncing: never on the UI thread.
        question = save_question(path) if path and not confirmed else None
        if question:
            self.post_message(self._Asking(kind, path, question))
            return
        self.post_message(self._Saved(kind, save_text(path, self._texts[kind], confirmed=confirmed)))

    class _Asking(Message):
        def __init__(self, kind: str, path: str, question: str) -> None:
            super().__init__()
            self.kind, self.path, self.question = kind, path, question

    class _Saved(Message):
        def __init__(self, kind: str, result: SaveResult) -> None:
            super().__init__()
            self.kind, self.result = kind, result

    @on(_Asking)
    def _asking(self, message: _Asking) -> None:
        self._ask(message.kind, message.path, message.question)

    @on(_Saved)
    def _saved(self, message: _Saved) -> None:
        kind, result = message.kind, message.result
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
