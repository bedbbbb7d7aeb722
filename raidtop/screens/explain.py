"""The Explain dialog: formulas and raw counter deltas behind a row's numbers.

It follows the live samples (the app hands the top screen each snapshot) and
its title says which sample its figures are from; when the row's subject
goes away, the last figures stay and the title says so.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from raidtop.widgets.shown_text import content

from raidtop.presentation.explain import Explanation
from raidtop.screens.copying import copy_binding, copy_shown, explanation_text
from raidtop.model.snapshot import Snapshot
from raidtop.widgets.text_table import Column, Row, TextTable


Build = Callable[[Snapshot], Explanation | None]


def explanation_for(panel: str | None, table: str | None, key: str | None) -> Build | None:
    """What the highlighted row of a dashboard panel explains.

    A function of the snapshot, so the explanation follows live samples.
    """
    from raidtop.presentation import explain

    if table == "member-table" and key:
        # A member row explains that member's disk; its array if the disk has no counters.
        array, _, member = key.partition("/")
        return lambda s: explain.explain_disk(s, member) or explain.explain_array(s, array)
    if panel == "disks" and key:
        return lambda s: explain.explain_disk(s, key)
    if panel == "cpu" and key:
        return lambda s: explain.explain_cpu(s, "all" if key == "all" else int(key))
    if panel == "vm":
        return explain.explain_vm
    if panel == "arrays" and key:
        return lambda s: explain.explain_array(s, key.partition("/")[0])
    return None


class ExplainScreen(ModalScreen[None]):
    """Shows one :class:`~raidtop.presentation.explain.Explanation`."""

    BINDINGS = [
        Binding("escape,x,q", "dismiss", "Close", id="explain-close"),
        copy_binding("explain-copy", "the formulas and their numbers, as text"),
    ]
    DEFAULT_CSS = """
    ExplainScreen { align: center middle; }
    ExplainScreen > VerticalScroll {
        width: 110; max-width: 100%; height: 80%; border: round $primary; background: $surface; padding: 0 1;
    }
    ExplainScreen #explain-title { text-style: bold; color: $text-primary; }
    ExplainScreen #explain-table { height: auto; }
    ExplainScreen .explain-caveat { color: $text-warning; margin-top: 1; }
    """

    def __init__(
        self,
        explanation: Explanation,
        rebuild: Callable[[Snapshot], Explanation | None] | None = None,
        taken_at: float | None = None,
    ) -> None:
        """``rebuild`` makes the explanation again from a newer snapshot; ``taken_at`` is its sample's time."""
        super().__init__()
        self.explanation = explanation
        self._rebuild = rebuild
        self.taken_at = taken_at
        self._gone = False
        self._caveats = list(explanation.caveats)  # as shown

    def _title(self) -> str:
        when = "" if self.taken_at is None else time.strftime("%H:%M:%S", time.localtime(self.taken_at))
        if not when:
            return self.explanation.title
        if self._gone:
            return f"{self.explanation.title} · figures of {when}; the row is gone"
        live = ", live" if self._rebuild is not None else ""
        return f"{self.explanation.title} · figures of {when}{live}"

    def compose(self) -> ComposeResult:
        with VerticalScroll() as frame:
            frame.border_subtitle = "C copies as text · Esc closes"
            yield Static(content(self._title()), id="explain-title")
            yield TextTable(
                # Formula and deltas give up width on narrow terminals, so the result stays in view.
                [
                    Column("name", "Value", 10, "left"),
                    Column("formula", "Formula", 44, "left", min_width=18),
                    Column("numbers", "With this interval's deltas", 36, "left", min_width=14),
                    Column("result", "=", 12),
                ],
                id="explain-table",
            )
            for caveat in self.explanation.caveats:
                yield Static(content(caveat, multiline=True), classes="explain-caveat")

    def on_mount(self) -> None:
        self._show_rows()
        # Not scrolled to the table: on a short terminal that hid the title, which says whose figures these are.
        self.query_one(TextTable).focus(scroll_visible=False)

    def _show_rows(self) -> None:
        table = self.query_one(TextTable)
        rows = [
            Row(line.name, (line.name, line.formula, line.numbers, line.result), ("accent", None, "dim", "good"))
            for line in self.explanation.lines
        ]
        table.set_rows(rows)
        table.styles.height = len(rows) + 1

    def apply_snapshot(self, snap: Snapshot) -> None:
        """Explain the same row again from ``snap``."""
        if self._rebuild is None:
            return
        fresh = self._rebuild(snap)
        self._gone = fresh is None
        if fresh is not None:
            self.explanation, self.taken_at = fresh, snap.time
            self._show_rows()
            self._show_caveats()
        self.query_one("#explain-title", Static).update(content(self._title()))

    def _show_caveats(self) -> None:
        """The caveats of the figures shown (an array's notes age with them: "degraded 5s")."""
        shown = list(self.query(".explain-caveat").results(Static))
        caveats = list(self.explanation.caveats)
        if len(shown) != len(caveats):
            for widget in shown:
                widget.remove()
            frame = self.query_one(VerticalScroll)
            frame.mount_all(Static(content(c, multiline=True), classes="explain-caveat") for c in caveats)
        else:
            for widget, before, caveat in zip(shown, self._caveats, caveats):
                if caveat != before:
                    widget.update(content(caveat, multiline=True))
        self._caveats = caveats

    def action_copy_shown(self) -> None:
        """Copy what the dialog shows, as text (for a ticket or a class's notes)."""
        copy_shown(self.app, "the explanation", explanation_text(self.explanation, self._title()), multiline=True)

    async def action_dismiss(self, result: object = None) -> None:
        """Close (this screen returns nothing, whatever a binding passes)."""
        self.dismiss(None)
