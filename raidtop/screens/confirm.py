"""The confirmation every system change goes through: it shows the exact command."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Label, Static

from raidtop.widgets.shown_text import content


class ConfirmDialog(ModalScreen[bool]):
    """Asks before a change; ``True`` only when the user chooses to run it.

    ``command`` is shown verbatim so the user sees exactly what will run;
    ``warning`` (data loss, a raw device) is shown in the error colour.
    """

    BINDINGS = [
        Binding("escape,n", "answer(False)", "Cancel", id="confirm-cancel"),
        Binding("y", "answer(True)", "Run it", id="confirm-yes"),
    ]
    DEFAULT_CSS = """
    ConfirmDialog { align: center middle; }
    ConfirmDialog > Vertical { width: 90; max-width: 100%; height: auto; border: thick $warning; background: $surface; padding: 1 2; }
    ConfirmDialog #confirm-title { text-style: bold; color: $text-warning; }
    ConfirmDialog #confirm-command { background: $panel; color: $text-primary; padding: 0 1; margin: 1 0; }
    ConfirmDialog #confirm-details { color: $text-muted; }
    ConfirmDialog #confirm-warning { color: $text-error; text-style: bold; margin-top: 1; }
    ConfirmDialog Horizontal { height: auto; margin-top: 1; align-horizontal: right; }
    ConfirmDialog Button { margin-left: 2; }
    """

    def __init__(self, title: str, command: str, details: str = "", warning: str = "") -> None:
        super().__init__()
        self._title = title
        self._command = command
        self._details = details
        self._warning = warning

    def compose(self) -> ComposeResult:
        with Vertical():
            # Titles and commands name devices and paths: literal, controls replaced.
            yield Label(content(self._title), id="confirm-title")
            yield Static(content(self._command, multiline=True), id="confirm-command")
            if self._details:
                yield Static(content(self._details, multiline=True), id="confirm-details")
            if self._warning:
                yield Static(content(self._warning, multiline=True), id="confirm-warning")
            with Horizontal():
                yield Button("Cancel (n)", id="confirm-no", variant="default")
                yield Button("Run it (y)", id="confirm-run", variant="warning")

    def on_mount(self) -> None:
        # Cancel has focus: Enter alone never changes the system.
        self.query_one("#confirm-no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "confirm-run")

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)
