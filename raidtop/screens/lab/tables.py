"""The Lab screen's tables: lab arrays, the highlighted one's members and timeline, the command log.

:class:`LabTables` owns what they show (the views last read, the highlighted
array, the command log, the job running) and draws it into the tables of the
screen it is given; it does no I/O. The screen decides when to redraw and
refreshes its bindings afterwards.
"""

from __future__ import annotations

from collections import deque

from textual.dom import DOMNode

from raidtop.actions.lab.commands import CommandEvent
from raidtop.actions.lab.core import LabArrayView
from raidtop.actions.lab.preflight import LabEnvironment
from raidtop.actions.lab.timeline import format_rebuild
from raidtop.screens.lab.rows import LOG_ROWS, array_row, log_command, log_row, member_rows, timeline_rows
from raidtop.widgets.panel import Panel
from raidtop.widgets.shown_text import content
from raidtop.widgets.text_table import TextTable


class LabTables:
    """Draws the Lab screen's tables from the lab's views; no I/O.

    Args:
        host: the screen holding ``#lab-arrays``, ``#lab-members``, ``#lab-timeline`` and ``#lab-log``.
    """

    def __init__(self, host: DOMNode) -> None:
        self._host = host
        self.views: list[LabArrayView] = []
        """The lab's arrays as last read."""
        self.selected: str | None = None
        """The highlighted array's name."""
        self.log: deque[CommandEvent] = deque(maxlen=LOG_ROWS)
        """The latest commands the lab ran, oldest first."""
        self.busy: str | None = None
        """The lab job or member action running now, in words."""

    def take_views(self, views: list[LabArrayView] | None, history: list[CommandEvent] | None) -> None:
        """Keep a read's views (``None``: keep the old ones) and put the stored history before the live log."""
        if views is not None:
            self.views = views
        if history is not None:
            # Older commands first, then anything that arrived while the history was read.
            live = list(self.log)
            self.log.clear()
            self.log.extend(history)
            self.log.extend(live)

    def add_command(self, event: CommandEvent) -> None:
        """One command the lab ran (or finished running)."""
        log_command(self.log, event)
        self.render_log()

    def render_all(self, read_only: bool, environment: LabEnvironment | None) -> None:
        """Redraw every table; with no arrays, say whether one can be made here."""
        arrays = self._host.query_one("#lab-arrays", TextTable)
        if read_only:
            placeholder = "no lab arrays"
        elif environment is not None and not environment.ready:
            placeholder = "no lab arrays: this machine cannot run the lab (see above)"
        else:
            placeholder = "no lab arrays yet: fill in the form and press n"
        arrays.set_rows([array_row(v) for v in self.views], placeholder)
        if self.selected:
            arrays.move_cursor_to_key(self.selected)
        self.selected = arrays.cursor_key
        self.render_selected()
        self.render_log()

    def render_selected(self) -> None:
        """Redraw the highlighted array's members and timeline."""
        view = self.selected_view()
        members = self._host.query_one("#lab-members", TextTable)
        timeline = self._host.query_one("#lab-timeline", TextTable)
        if view is None:
            members.set_rows([], "")
            timeline.set_rows([], "")
            self._host.query_one("#lab-timeline-panel", Panel).border_subtitle = ""
            return
        current = members.cursor_key
        members.set_rows(member_rows(view), "not running" if not view.running else "")
        if current:
            members.move_cursor_to_key(current)
        rows = timeline_rows(view)
        timeline.set_rows(rows, "")
        if rows:
            timeline.scroll_end(animate=False)
        self._host.query_one("#lab-timeline-panel", Panel).border_subtitle = content(
            f"{view.name}: last rebuild {format_rebuild(view.record.last_rebuild)}"
        )

    def render_log(self) -> None:
        """Redraw the command log."""
        table = self._host.query_one("#lab-log", TextTable)
        table.set_rows([log_row(i, e) for i, e in enumerate(self.log)], "no lab commands yet")
        table.scroll_end(animate=False)

    def set_busy(self, text: str | None) -> None:
        """Show what runs now (``None``: nothing) under the command log."""
        self.busy = text
        self._host.query_one("#lab-log-panel", Panel).border_subtitle = content(f"running: {text}" if text else "")

    def selected_view(self) -> LabArrayView | None:
        """The highlighted array's view, if any."""
        return next((v for v in self.views if v.name == self.selected), None)

    def array_moved(self) -> None:
        """The cursor moved in the arrays table: follow it."""
        self.selected = self._host.query_one("#lab-arrays", TextTable).cursor_key
        self.render_selected()
