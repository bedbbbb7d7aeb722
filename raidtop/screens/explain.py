"""The Explain dialog: formulas and raw counter deltas behind a row's numbers."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from raidtop.widgets.shown_text import content

from raidtop.explain import Explanation
from raidtop.widgets.text_table import Column, Row, TextTable


class ExplainScreen(ModalScreen[None]):
    """Shows one :class:`~raidtop.explain.Explanation`."""

    BINDINGS = [Binding("escape,x,q", "dismiss", "Close", id="explain-close")]
    DEFAULT_CSS = """
    ExplainScreen { align: center middle; }
    ExplainScreen > VerticalScroll { width: 110; max-width: 100%; height: 80%; border: round $primary; background: $surface; padding: 0 1; }
    ExplainScreen #explain-title { text-style: bold; color: $text-primary; }
    ExplainScreen #explain-table { height: auto; }
    ExplainScreen .explain-caveat { color: $text-warning; margin-top: 1; }
    """

    def __init__(self, explanation: Explanation) -> None:
        super().__init__()
        self.explanation = explanation

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(content(self.explanation.title), id="explain-title")
            yield TextTable(
                # Formula and deltas give up width on narrow terminals, so the result stays in view.
                [Column("name", "Value", 10, "left"), Column("formula", "Formula", 44, "left", min_width=18),
                 Column("numbers", "With this interval's deltas", 36, "left", min_width=14), Column("result", "=", 12)],
                id="explain-table",
            )
            for caveat in self.explanation.caveats:
                yield Static(content(caveat, multiline=True), classes="explain-caveat")

    def on_mount(self) -> None:
        table = self.query_one(TextTable)
        rows = [Row(line.name, (line.name, line.formula, line.numbers, line.result), ("accent", None, "dim", "good"))
                for line in self.explanation.lines]
        table.set_rows(rows)
        table.styles.height = len(rows) + 1
        table.focus()

    def action_dismiss(self) -> None:
        self.dismiss(None)
