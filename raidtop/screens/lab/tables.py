"""The Lab screen's tables: lab arrays, the highlighted one's members and timeline, the command log.

Mixed into :class:`~raidtop.screens.lab.screen.LabScreen`, which holds the state
(``_views``, ``_selected``, ``_log``, ``_busy``) and decides when to redraw.
"""

from __future__ import annotations

from raidtop.actions.lab.core import LabArrayView
from raidtop.actions.lab.timeline import format_rebuild
from raidtop.screens.lab.rows import array_row, log_row, member_rows, timeline_rows
from raidtop.widgets.panel import Panel
from raidtop.widgets.shown_text import content
from raidtop.widgets.text_table import TextTable


class LabTables:
    """Draws the Lab screen's tables from its views; no I/O."""

    def _render_all(self) -> None:
        arrays = self.query_one("#lab-arrays", TextTable)
        placeholder = "no lab arrays yet: fill in the form and press n" if not self.read_only else "no lab arrays"
        arrays.set_rows([array_row(v) for v in self._views], placeholder)
        if self._selected:
            arrays.move_cursor_to_key(self._selected)
        self._selected = arrays.cursor_key
        self._render_selected()
        self._render_log()
        self.refresh_bindings()

    def _render_selected(self) -> None:
        view = self._selected_view()
        members = self.query_one("#lab-members", TextTable)
        timeline = self.query_one("#lab-timeline", TextTable)
        if view is None:
            members.set_rows([], "")
            timeline.set_rows([], "")
            self.query_one("#lab-timeline-panel", Panel).border_subtitle = ""
            return
        current = members.cursor_key
        members.set_rows(member_rows(view), "not running" if not view.running else "")
        if current:
            members.move_cursor_to_key(current)
        rows = timeline_rows(view)
        timeline.set_rows(rows, "")
        if rows:
            timeline.scroll_end(animate=False)
        self.query_one("#lab-timeline-panel", Panel).border_subtitle = content(
            f"{view.name}: last rebuild {format_rebuild(view.record.last_rebuild)}"
        )

    def _render_log(self) -> None:
        table = self.query_one("#lab-log", TextTable)
        table.set_rows([log_row(i, e) for i, e in enumerate(self._log)], "no lab commands yet")
        table.scroll_end(animate=False)

    def _set_busy(self, text: str | None) -> None:
        self._busy = text
        self.query_one("#lab-log-panel", Panel).border_subtitle = content(f"running: {text}" if text else "")
        self.refresh_bindings()

    def _selected_view(self) -> LabArrayView | None:
        return next((v for v in self._views if v.name == self._selected), None)

    def _array_moved(self, _old: int, _new: int) -> None:
        self._selected = self.query_one("#lab-arrays", TextTable).cursor_key
        self._render_selected()
        self.refresh_bindings()
