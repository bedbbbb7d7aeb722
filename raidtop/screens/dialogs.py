"""Small modal dialogs: filter input, the notes list, one-line questions and job reports."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static

from raidtop.widgets.shown_text import PlainStatic, content


class FilterDialog(ModalScreen[str | None]):
    """Ask for a device filter; Enter applies, Esc cancels, empty clears."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="filter-cancel")]
    DEFAULT_CSS = """
    FilterDialog { align: center middle; }
    FilterDialog > Vertical { width: 60; max-width: 100%; height: auto; border: round $primary; background: $surface; padding: 0 1; }
    FilterDialog Label { color: $text-muted; }
    """

    def __init__(self, current: str) -> None:
        super().__init__()
        self._current = current

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Show devices whose name, model, serial or by-id contains:")
            yield Input(value=self._current, placeholder="e.g. nvme, sd, md (empty: all)", id="filter-input")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip())

    def action_cancel(self) -> None:
        self.dismiss(None)


class NotesScreen(ModalScreen[None]):
    """Everything the last sample could not read, one sentence each."""

    BINDINGS = [Binding("escape,n,q", "dismiss", "Close notes", id="notes-close")]
    DEFAULT_CSS = """
    NotesScreen { align: center middle; }
    NotesScreen > VerticalScroll { width: 100; max-width: 100%; height: 70%; border: round $warning; background: $surface; padding: 0 1; }
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

    def action_dismiss(self) -> None:
        self.dismiss(None)


class AskDialog(ModalScreen[str | None]):
    """Ask for one line of text; Enter answers, Esc cancels."""

    BINDINGS = [Binding("escape", "cancel", "Cancel", id="ask-cancel")]
    DEFAULT_CSS = """
    AskDialog { align: center middle; }
    AskDialog > Vertical { width: 70; max-width: 100%; height: auto; border: round $primary; background: $surface; padding: 0 1; }
    AskDialog Label { color: $text-muted; }
    """

    def __init__(self, question: str, placeholder: str = "") -> None:
        super().__init__()
        self._question = question
        self._placeholder = placeholder

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(content(self._question))
            yield Input(placeholder=self._placeholder, id="ask-input")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip())

    def action_cancel(self) -> None:
        self.dismiss(None)


class ReportDialog(ModalScreen[None]):
    """A finished job's report: a title, a block of literal text (a table) and a line saying where it was kept."""

    BINDINGS = [Binding("escape,enter,q", "close", "Close", id="report-close", tooltip="Back to the screen")]
    DEFAULT_CSS = """
    ReportDialog { align: center middle; }
    ReportDialog > Vertical { width: 110; max-width: 100%; height: auto; max-height: 90%; border: round $primary; background: $surface; padding: 0 1; }
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


from raidtop.screens.confirm import ConfirmDialog  # noqa: E402,F401  (moved here by the bench helper)
