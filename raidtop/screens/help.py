"""The help screen: every key, generated from the live bindings so it stays true."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from raidtop.widgets.text_table import Column, Row, TextTable


def describe_key(key: str) -> str:
    """A binding's keys as a user types them (``question_mark,f1`` → ``? / F1``)."""
    names = {"question_mark": "?", "plus": "+", "minus": "-", "equals_sign": "=", "underscore": "_",
             "escape": "Esc", "enter": "Enter", "tab": "Tab", "shift+tab": "Shift+Tab",
             "ctrl+p": "Ctrl+P", "up": "↑", "down": "↓", "pageup": "PgUp", "pagedown": "PgDn",
             "home": "Home", "end": "End", "S": "Shift+S"}
    parts = [k.strip() for k in key.split(",")]
    return " / ".join(names.get(p, p.upper() if p.startswith("f") and p[1:].isdigit() else p) for p in parts)


class HelpScreen(ModalScreen[None]):
    """Lists every binding of the app and the screen below, with what it does."""

    BINDINGS = [Binding("escape,q,question_mark,f1", "dismiss", "Close help", id="help-close")]
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll {
        width: 90; max-width: 100%; height: 90%; border: round $primary; background: $surface; padding: 0 1;
    }
    HelpScreen #help-table { height: auto; }
    HelpScreen .help-intro { color: $text-muted; }
    """

    def __init__(self, sections: list[tuple[str, list[Binding]]]) -> None:
        super().__init__()
        self._sections = sections

    def compose(self) -> ComposeResult:
        rows: list[Row] = []
        for title, bindings in self._sections:
            rows.append(Row(f"section-{title}", (title, "", ""), ("accent", None, None)))
            for binding in bindings:
                rows.append(Row(binding.id or binding.action, (describe_key(binding.key), binding.description, binding.tooltip or ""), ("good", None, "dim")))
        with VerticalScroll():
            yield Static("Every key raidtop knows. All of them are also in the command palette (Ctrl+P).", classes="help-intro")
            table = TextTable([Column("key", "Key", 16, "left"), Column("what", "Action", 26, "left"), Column("more", "Details", 44, "left")], id="help-table")
            yield table
        self._rows = rows

    def on_mount(self) -> None:
        table = self.query_one(TextTable)
        table.set_rows(self._rows)
        table.styles.height = len(self._rows) + 1
        table.focus()

    def action_dismiss(self) -> None:
        self.dismiss(None)
