"""The fleet view: every host's arrays worst first, and one host's arrays and members."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Static

from raidtop.screens.host import fleet_host
from raidtop.fleet.model import FleetHost, FleetReading
from raidtop.fleet.rows import FLEET_COLUMNS, HOST_COLUMNS, alert_text, fleet_rows, host_rows, summary
from raidtop.untrusted import plain
from raidtop.widgets.fleet_table import FleetTable
from raidtop.widgets.key_footer import KeyFooter
from raidtop.model.units import counted


class FleetScreen(Screen):
    """All hosts; Enter opens the highlighted host."""

    BINDINGS = [
        Binding("enter", "open_host", "Host", id="fleet-open-host", tooltip="Show this host's arrays and members"),
        Binding("r", "refresh_now", "Refresh", id="fleet-refresh", tooltip="Ask every host again now"),
        Binding("q", "app.quit", "Quit", id="fleet-quit", tooltip="Leave the fleet view"),
    ]
    DEFAULT_CSS = """
    FleetScreen #fleet-status { height: auto; padding: 0 1; background: $panel; }
    """

    def __init__(self, source_label: str) -> None:
        super().__init__()
        self.source_label = source_label

    def compose(self) -> ComposeResult:
        yield Static(
            Text(f"raidtop fleet · {plain(self.source_label)} · waiting for the first answer…"), id="fleet-status"
        )
        table = FleetTable(FLEET_COLUMNS, id="fleet-table")
        # Not drawn before the first answer: its first paint is sized from the rows it shows.
        table.display = False
        yield table
        yield KeyFooter()

    def show(self, reading: FleetReading) -> None:
        """Show a new reading: a sentence when nothing could be read, else the rows."""
        status = self.query_one("#fleet-status", Static)
        table = self.query_one(FleetTable)
        if reading.problem is not None:
            status.update(Text(f"raidtop fleet · {plain(reading.problem)}"))
            table.show([])
            table.display = False
            return
        status.update(Text(f"raidtop fleet · {plain(self.source_label)} · {summary(reading.hosts)}"))
        table.show(fleet_rows(reading.hosts))
        table.display = True

    @on(DataTable.RowSelected, "#fleet-table")
    def _row_selected(self, _message: DataTable.RowSelected) -> None:
        # The table consumes Enter (select_cursor) and says so with RowSelected.
        self.action_open_host()

    def action_open_host(self) -> None:
        """Drill into the highlighted host."""
        key = self.query_one(FleetTable).current_key
        if key is not None:
            self.app.push_screen(HostScreen(key))

    def action_refresh_now(self) -> None:
        """Refresh without waiting for the timer."""
        fleet_host(self).refresh_now()


class HostScreen(Screen):
    """One host: each array's members with their roles, slowness and errors."""

    BINDINGS = [
        # q is "back" on every screen but the first, as on the dashboard.
        Binding("escape,backspace,q", "app.pop_screen", "Back", id="fleet-back", tooltip="Back to every host"),
    ]
    DEFAULT_CSS = """
    HostScreen #host-status { height: auto; padding: 0 1; background: $panel; }
    HostScreen #host-arrays { height: auto; max-height: 50%; }
    """

    def __init__(self, host: str) -> None:
        super().__init__()
        self.host = host

    def compose(self) -> ComposeResult:
        yield Static(Text(plain(self.host)), id="host-status")
        yield FleetTable(FLEET_COLUMNS[1:-1], id="host-arrays")
        yield FleetTable(HOST_COLUMNS, id="host-members")
        yield KeyFooter()

    def on_mount(self) -> None:
        reading = fleet_host(self).reading
        if reading is not None:
            self.show(reading)

    def show(self, reading: FleetReading) -> None:
        """Show this host from a new reading (or say it is no longer there)."""
        host = next((h for h in reading.hosts if h.name == self.host), None)
        status = self.query_one("#host-status", Static)
        arrays = self.query_one("#host-arrays", FleetTable)
        members = self.query_one("#host-members", FleetTable)
        if host is None:
            status.update(Text(f"{plain(self.host)} · not in the last answer ({plain(reading.problem or 'gone')})"))
            arrays.show([])
            members.show([])
            return
        status.update(Text(_host_line(host)))
        arrays.show([r.__class__(r.key, r.cells[1:-1], r.tone) for r in fleet_rows((host,)) if r.cells[1] != "—"])
        members.show(host_rows(host))


def _host_line(host: FleetHost) -> str:
    if host.problem is not None:
        return f"{_who(host)} · {plain(host.problem)}"
    line = f"{_who(host)} · {counted(len(host.arrays), 'array')}"
    return line + (f" · firing: {alert_text(host)}" if host.alerts else "")


def _who(host: FleetHost) -> str:
    return plain(host.name) if host.label == host.name else f"{plain(host.label)} ({plain(host.name)})"
