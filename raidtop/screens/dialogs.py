"""Every modal dialog raidtop shows: confirm a change, ask for lines of text, the notes list.

One dialog per shape, so a change to how raidtop asks (focus, Esc, literal
text) is made once: :class:`ConfirmDialog` before anything that changes the
system, :class:`AskDialog` for one line, :class:`FormDialog` for several
lines asked together, :class:`NotesScreen` for the sample's notes, and
:class:`SweepDialog` for picking a knob and its values, :class:`CommandDialog`
for commands to run by hand, :class:`ReportDialog` for a finished job's report.
Every text a caller passes in is shown literally (no markup, control characters replaced).
"""

from __future__ import annotations

from typing import Any
from collections.abc import Callable, Sequence

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, RadioButton, RadioSet, Static

from raidtop.model.frozen import frozen_dataclass
from raidtop.screens.copying import copy_binding, copy_shown
from raidtop.widgets.shown_text import PlainStatic, content


CANCEL_KEYS = "n,escape"
"""Keys that answer no in every confirmation (a dialog with a text field keeps only Esc)."""
CONFIRM_KEYS = "y"
"""The key that answers yes in every confirmation (a dialog with a text field takes Enter instead).

Enter is not among them: it presses the focused button, and a confirmation opens with Cancel
focused, so an Enter meant for the previous dialog, or pressed twice, never changes the system."""


def answer_buttons(
    go: str, *, letters: bool = True, prefix: str = "confirm", extra: Sequence[Button] = ()
) -> Horizontal:
    """The one row of answer buttons every question ends with: Cancel, then ``go``, each naming its keys.

    ``letters`` is False where a text field takes typed letters: only Esc and
    Enter answer there. The buttons are ``#{prefix}-no`` and ``#{prefix}-run``.
    """
    cancel_keys, go_keys = ("n/Esc", "y") if letters else ("Esc", "Enter")
    return Horizontal(
        *extra,
        Button(f"Cancel ({cancel_keys})", id=f"{prefix}-no", variant="default"),
        Button(f"{go} ({go_keys})", id=f"{prefix}-run", variant="warning"),
        classes="answer-buttons",
    )


class ConfirmDialog(ModalScreen[bool]):
    """Asks before a change; ``True`` only when the user chooses to go ahead.

    ``command`` is shown verbatim so the user sees exactly what will run;
    ``warning`` (data loss, a raw device) is shown in the error colour; ``go``
    names the button that goes ahead ("Run it", "Quit", "Write it"). y goes
    ahead, n or Esc cancels, in every confirmation raidtop shows; Enter presses
    the focused button, which is Cancel until Tab moves the focus.
    """

    BINDINGS = [
        Binding(CANCEL_KEYS, "answer(False)", "Cancel", id="confirm-cancel"),
        Binding(CONFIRM_KEYS, "answer(True)", "Go ahead", id="confirm-yes"),
        copy_binding("confirm-copy", "the exact command"),
    ]
    DEFAULT_CSS = """
    ConfirmDialog { align: center middle; }
    ConfirmDialog > Vertical {
        width: 90; max-width: 100%; height: auto; border: thick $warning; background: $surface; padding: 1 2;
    }
    ConfirmDialog #confirm-title { text-style: bold; color: $text-warning; }
    ConfirmDialog #confirm-command { background: $panel; color: $text-primary; padding: 0 1; margin: 1 0; }
    ConfirmDialog #confirm-details { color: $text-muted; }
    ConfirmDialog #confirm-warning { color: $text-error; text-style: bold; margin-top: 1; }
    ConfirmDialog .answer-buttons { height: auto; margin-top: 1; align-horizontal: right; }
    ConfirmDialog Button { margin-left: 2; }
    """

    def __init__(self, title: str, command: str, details: str = "", warning: str = "", *, go: str = "Run it") -> None:
        super().__init__()
        self._title = title
        self._command = command
        self._details = details
        self._warning = warning
        self._go = go

    def compose(self) -> ComposeResult:
        with Vertical():
            # Titles and commands name devices and paths: literal, controls replaced.
            yield Label(content(self._title), id="confirm-title")
            yield Static(content(self._command, multiline=True), id="confirm-command")
            if self._details:
                yield Static(content(self._details, multiline=True), id="confirm-details")
            if self._warning:
                yield Static(content(self._warning, multiline=True), id="confirm-warning")
            yield answer_buttons(self._go, extra=(Button("Copy command (C)", id="confirm-copy", variant="default"),))

    def on_mount(self) -> None:
        # Cancel has focus: Enter alone never changes the system; Tab to the go-ahead button and Enter does.
        self.query_one("#confirm-no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "confirm-copy":
            self.action_copy_shown()
            return
        self.dismiss(event.button.id == "confirm-run")

    def action_answer(self, answer: bool) -> None:
        """Close with the user's answer."""
        self.dismiss(answer)

    def action_copy_shown(self) -> None:
        """Copy the exact command to the clipboard (the dialog stays open)."""
        copy_shown(self.app, "the command", self._command, multiline=True)


@frozen_dataclass(slots=False)
class InputLine:
    """One labelled input line of a :class:`FormDialog`."""

    label: str
    value: str = ""
    placeholder: str = ""
    id: str | None = None
    type: str = "text"
    """Textual's Input type: ``text``, ``integer`` or ``number`` (what may be typed)."""


class FormDialog(ModalScreen[Any]):
    """Ask for one or more lines at once; Enter in any line answers, Esc cancels (``None``).

    The answer is the tuple of lines, each stripped. ``validate`` gets that
    tuple and returns a sentence saying what is wrong, or ``None``; while it
    objects the dialog stays open and says why, so nothing typed is lost.
    """

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="ask-cancel")]
    DEFAULT_CSS = """
    FormDialog { align: center middle; }
    FormDialog > Vertical {
        width: 70; max-width: 100%; height: auto; border: round $primary; background: $surface; padding: 0 1;
    }
    FormDialog Label { color: $text-muted; width: 100%; }
    FormDialog Label.-spaced { margin-top: 1; }
    """

    def __init__(
        self,
        lines: Sequence[InputLine],
        *,
        validate: Callable[[tuple[str, ...]], str | None] | None = None,
        width: int = 70,
    ) -> None:
        super().__init__()
        self._lines = tuple(lines)
        self._validate = validate
        self._width = width

    def compose(self) -> ComposeResult:
        spaced = len(self._lines) > 1  # several questions read apart only with a blank line between
        with Vertical():
            for line in self._lines:
                yield Label(content(line.label), classes="-spaced" if spaced else "")
                yield Input(value=line.value, placeholder=line.placeholder, type=line.type, id=line.id)  # type: ignore[arg-type]

    def on_mount(self) -> None:
        self.query_one(Vertical).styles.width = self._width

    def on_input_submitted(self, event: Input.Submitted) -> None:
        answers = tuple(field.value.strip() for field in self.query(Input))
        problem = self._validate(answers) if self._validate else None
        if problem:
            self.notify(problem, severity="warning")
            return
        self.dismiss(self._answer(answers))

    def _answer(self, answers: tuple[str, ...]) -> Any:
        return answers

    def action_cancel(self) -> None:
        """Close without an answer."""
        self.dismiss(None)


class AskDialog(FormDialog):
    """Ask for one line of text; Enter answers it (stripped; empty is an answer), Esc cancels.

    ``validate`` gets the line and returns a sentence saying what is wrong,
    or ``None``; ``input_type="integer"`` lets only digits be typed.
    """

    def __init__(
        self,
        question: str,
        placeholder: str = "",
        *,
        value: str = "",
        validate: Callable[[str], str | None] | None = None,
        input_type: str = "text",
        width: int = 70,
        input_id: str = "ask-input",
    ) -> None:
        check = (lambda answers: validate(answers[0])) if validate else None
        super().__init__([InputLine(question, value, placeholder, input_id, input_type)], validate=check, width=width)

    def _answer(self, answers: tuple[str, ...]) -> str:
        return answers[0]


class NotesScreen(ModalScreen[None]):
    """Everything the last sample could not read, one sentence each."""

    BINDINGS = [Binding("escape,n,q", "dismiss", "Close notes", id="notes-close")]
    DEFAULT_CSS = """
    NotesScreen { align: center middle; }
    NotesScreen > VerticalScroll {
        width: 100; max-width: 100%; height: 70%; border: round $warning; background: $surface; padding: 0 1;
    }
    """

    def __init__(self, notes: tuple[str, ...]) -> None:
        super().__init__()
        self._notes = notes

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            if not self._notes:
                yield Static("Every source was read in the last sample.")
            for note in self._notes:
                # A note quotes paths and kernel errors: literal text, several lines allowed.
                yield Static(content(f"• {note}", multiline=True))

    async def action_dismiss(self, result: object = None) -> None:
        """Close the notes (they return nothing, whatever a binding passes)."""
        self.dismiss(None)


class SweepDialog(ModalScreen[tuple[str, list[str]] | None]):
    """Choose the knob to sweep and its values (prefilled with what the devices offer).

    ``defaults`` maps each knob, in the order offered, to the devices that
    have it and the values to prefill; a knob no device has is shown disabled.
    """

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="bench-sweep-cancel", tooltip="Do not sweep")]
    DEFAULT_CSS = """
    SweepDialog { align: center middle; }
    SweepDialog > Vertical {
        width: 84; max-width: 100%; height: auto; border: round $primary; background: $surface; padding: 0 1;
    }
    SweepDialog Label { color: $text-muted; }
    SweepDialog RadioSet { width: 100%; }
    """

    def __init__(self, preset: str, defaults: dict[str, tuple[list[str], list[str]]]) -> None:
        super().__init__()
        self._preset = preset
        self._defaults = defaults
        self._knobs = list(defaults)
        self._knob = next((k for k in self._knobs if defaults[k][0]), self._knobs[0] if self._knobs else "")

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(content(f"Sweep {self._preset}: one run per value; the original value is restored afterwards"))
            with RadioSet(id="bench-sweep-knob"):
                for knob in self._knobs:
                    devices = self._defaults[knob][0]
                    where = f" on {', '.join(devices)}" if devices else " (no device offers it)"
                    yield RadioButton(
                        content(f"{knob}{where}"), value=knob == self._knob, name=knob, disabled=not devices
                    )
            yield Label("Values (space-separated), Enter to continue:")
            yield Input(value=" ".join(self._defaults.get(self._knob, ([], []))[1]), id="bench-sweep-values")

    @on(RadioSet.Changed)
    def _knob_changed(self, event: RadioSet.Changed) -> None:
        self._knob = event.pressed.name or self._knob
        self.query_one("#bench-sweep-values", Input).value = " ".join(self._defaults.get(self._knob, ([], []))[1])

    def on_input_submitted(self, event: Input.Submitted) -> None:
        values = event.value.split()
        if len(values) < 2:
            self.notify("a sweep needs at least two values", severity="warning")
            return
        self.dismiss((self._knob, values))

    def action_cancel(self) -> None:
        """Close without sweeping."""
        self.dismiss(None)


class CommandDialog(ModalScreen[None]):
    """Shows commands to run by hand (without root), with why."""

    BINDINGS = [
        Binding("escape,enter,q", "close", "Close", id="command-close", tooltip="Close this message"),
        copy_binding("command-copy", "the commands"),
    ]
    DEFAULT_CSS = """
    CommandDialog { align: center middle; }
    CommandDialog > Vertical {
        width: 96; max-width: 100%; height: auto; border: thick $warning; background: $surface; padding: 1 2;
    }
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
            yield Button("Close (Esc) · C copies the commands", id="command-close-button")

    def on_button_pressed(self) -> None:
        self.dismiss(None)

    def action_close(self) -> None:
        """Close the message."""
        self.dismiss(None)

    def action_copy_shown(self) -> None:
        """Copy the commands, one a line, to run them by hand."""
        copy_shown(self.app, "the commands", "\n".join(self._commands), multiline=True)


class ReportDialog(ModalScreen[None]):
    """A finished job's report: a title, a block of literal text (a table) and a line saying where it was kept."""

    BINDINGS = [Binding("escape,enter,q", "close", "Close", id="report-close", tooltip="Back to the screen")]
    DEFAULT_CSS = """
    ReportDialog { align: center middle; }
    ReportDialog > Vertical {
        width: 110; max-width: 100%; height: auto; max-height: 90%; border: round $primary; background: $surface;
        padding: 0 1;
    }
    ReportDialog #report-body { background: $panel; color: $text-primary; padding: 0 1; }
    ReportDialog #report-where { color: $text-muted; }
    """

    def __init__(self, title: str, body: str, where: str = "") -> None:
        super().__init__()
        self._title = title
        self._body = body
        self._where = where

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(content(self._title), classes="title")
            # Tables quote paths and device names: literal text, several lines allowed.
            yield PlainStatic(self._body, id="report-body")
            yield PlainStatic(self._where, id="report-where")

    def action_close(self) -> None:
        self.dismiss(None)
