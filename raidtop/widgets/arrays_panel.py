"""The Arrays panel: one row per md array, and a member grid for expanded ones."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message

from raidtop.model.disk_columns import disks_by_name
from raidtop.latency.summary import MemberLatency
from raidtop.model.member_verbs import ARRAY_VERBS
from raidtop.model.snapshot import Snapshot
from raidtop.presentation.processes import array_shares, shares_sentence
from raidtop.widgets.array_rows import (
    ARRAY_COLUMNS,
    BAR_WIDTH,
    MEMBER_COLUMNS,
    array_columns,
    array_row,
    marks_of,
    member_columns,
    member_rows,
)
from raidtop.widgets.member_keys import member_bindings
from raidtop.widgets.panel import Panel
from raidtop.widgets.risk_banner import RiskBanner
from raidtop.widgets.text_table import Row, TextTable
from raidtop.model.units import counted


class ArraysPanel(Panel):
    """md arrays with state badges and sync progress; Enter expands members.

    On arrays raidtop may change (the demo's simulated array, lab arrays) the
    member keys (:data:`raidtop.model.member_verbs.MEMBER_KEYS`) post
    :class:`MemberVerb`; the screen hosting the panel plans, confirms and
    runs it. Which arrays offer which verbs is told to the panel
    (:meth:`set_offers`), so deciding whether a key is shown reads nothing.
    Elsewhere those keys keep their dashboard meaning.
    """

    BINDINGS = [
        *member_bindings("member"),
        Binding(
            "escape",
            "leave_members",
            "Leave grid",
            id="members-back",
            tooltip="Back from the member grid to the arrays",
        ),
    ]

    class MemberVerb(Message):
        """A member key was pressed on an array that offers the verb (``member`` is None for array verbs)."""

        def __init__(self, array: str, member: str | None, verb: str) -> None:
            super().__init__()
            self.array = array
            self.member = member
            self.verb = verb

    class MembersShown(Message):
        """The member devices the open grids show changed (empty: no grid is open)."""

        def __init__(self, devices: frozenset[str]) -> None:
            super().__init__()
            self.devices = devices

    DEFAULT_CSS = """
    ArraysPanel { height: auto; max-height: 50%; }
    ArraysPanel #array-table { height: auto; max-height: 12; }
    ArraysPanel #member-table { height: auto; max-height: 18; display: none; }
    ArraysPanel.-expanded #member-table { display: block; }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.border_title = "Arrays"
        self.expanded: set[str] = set()
        self._snapshot: Snapshot | None = None
        self._offers: dict[str, frozenset[str]] = {}
        self._columns, self._bar_width = ARRAY_COLUMNS, BAR_WIDTH
        self._room: int | None = None
        self._latencies: dict[str, MemberLatency] | None = None
        self._shown_members: frozenset[str] = frozenset()
        self._focus_grid_of: str | None = None

    def compose(self) -> ComposeResult:
        yield RiskBanner(id="risk-banner")
        table = TextTable(ARRAY_COLUMNS, id="array-table")
        table.placeholder = "waiting for the first sample…"
        yield table
        yield TextTable(MEMBER_COLUMNS, id="member-table")

    def show(self, snap: Snapshot) -> None:
        """Render arrays and the member grids of expanded arrays."""
        self._snapshot = snap
        self.query_one(RiskBanner).risks = snap.rebuild_risks
        self.query_one(RiskBanner).full = snap.full_filesystems
        self._refresh_rows()

    def set_latencies(self, latencies: dict[str, MemberLatency] | None) -> None:
        """The members' latency this interval by device (``None``: no distribution is sampled)."""
        if latencies is None and self._latencies is None:
            return
        if (latencies is None) != (self._latencies is None):
            self.query_one("#member-table", TextTable).set_columns(member_columns(latencies is not None))
        self._latencies = latencies
        self._refresh_rows()

    @property
    def selected_array(self) -> str | None:
        """The array under the cursor: the focused member grid's array, else the arrays table's."""
        return self._highlighted()[0]

    @property
    def highlighted_member(self) -> str | None:
        """The member under the focused member grid's cursor (``None``: the grid has no focus)."""
        return self._highlighted()[1]

    def set_room(self, rows: int | None) -> None:
        """At most ``rows`` for the whole panel (None: the stylesheet's limit).

        The member grid gets what the arrays leave.
        """
        if rows != self._room:
            self._room = rows
            self.styles.max_height = rows
            self._fit_member_grid()

    def _fit_member_grid(self) -> None:
        # Auto heights do not shrink: the grid gets what the panel's room leaves
        # after the arrays table and scrolls inside it, so the page never scrolls.
        arrays = min(len(self.query_one("#array-table", TextTable).rows) + 1, 12)
        banner = self.query_one(RiskBanner)
        above = 2 + arrays + (banner.outer_size.height if banner.display else 0)
        room = max(3, (self._room - above) if self._room is not None else self.screen.size.height // 2 - above)
        members = self.query_one("#member-table", TextTable)
        if members.styles.max_height is None or members.styles.max_height.value != room:
            members.styles.max_height = room

    def on_resize(self) -> None:
        self._fit_member_grid()
        columns, bar = array_columns(self.content_size.width)
        if (columns, bar) != (self._columns, self._bar_width):
            self._columns, self._bar_width = columns, bar
            self.query_one("#array-table", TextTable).set_columns(columns)
            self._refresh_rows()

    def focus_members(self) -> None:
        """Focus the member grid, opening the highlighted array's if none is open."""
        members = self.query_one("#member-table", TextTable)
        if not self.expanded:
            name = self.query_one("#array-table", TextTable).cursor_key
            if name is None:
                return
            self.expanded.add(name)
            self._refresh_rows()
            self._cursor_to_first_member(name)
        members.focus()

    def _cursor_to_first_member(self, array: str) -> None:
        members = self.query_one("#member-table", TextTable)
        for index, row in enumerate(members.rows):
            if row.key.startswith(f"{array}/"):
                members.cursor_row = index
                return

    def toggle(self, name: str) -> None:
        """Expand or collapse one array's member grid."""
        self.expanded ^= {name}
        self._refresh_rows()

    @on(TextTable.RowSelected, "#array-table")
    def _row_selected(self, event: TextTable.RowSelected) -> None:
        event.stop()
        self.toggle(event.key)
        if event.key in self.expanded:
            # Into the member grid, where member keys act on the highlighted disk.
            self.query_one("#member-table", TextTable).focus()
            self._cursor_to_first_member(event.key)

    @on(TextTable.RowSelected, "#member-table")
    def _member_selected(self, event: TextTable.RowSelected) -> None:
        # Enter again folds the grid away and returns to the arrays.
        event.stop()
        array = event.key.partition("/")[0]
        self.toggle(array)
        table = self.query_one("#array-table", TextTable)
        table.move_cursor_to_key(array)
        table.focus()

    def expand_for_actions(self, array: str) -> None:
        """Open ``array``'s member grid and focus it (the demo starts like this).

        Asked before the first sample, the grid has no rows yet and cannot take
        the focus: it takes it, on the array's first member, when they arrive.
        """
        self.expanded.add(array)
        self._focus_grid_of = array
        self._refresh_rows()

    def _take_grid_focus(self) -> None:
        # Textual drops a focus asked for a widget not yet focusable (not laid out on a
        # loaded machine): then the wish stays and the next rows try again.
        members = self.query_one("#member-table", TextTable)
        if self._focus_grid_of is None or not members.focusable:
            return
        self._focus_grid_of = None
        self.screen.set_focus(members)

    def set_offers(self, offers: dict[str, frozenset[str]]) -> None:
        """Which verbs each array offers (from the host's worker); member keys show accordingly."""
        self._offers = dict(offers)
        self.refresh_bindings()

    def _highlighted(self) -> tuple[str | None, str | None]:
        """(array, member) under the cursor; member is None on the arrays table."""
        members = self.query_one("#member-table", TextTable)
        if members.has_focus and members.cursor_key:
            array, _, member = members.cursor_key.partition("/")
            return array, member
        return self.query_one("#array-table", TextTable).cursor_key, None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "member":
            array, _member = self._highlighted()
            return array is not None and parameters[0] in self._offers.get(array, ())
        if action == "leave_members":
            return self.query_one("#member-table", TextTable).has_focus
        return True

    def action_member(self, verb: str) -> None:
        """Ask the host screen to do ``verb`` on the highlighted member or array."""
        array, member = self._highlighted()
        if array is None:
            return
        if verb not in ARRAY_VERBS and member is None:
            self.notify("open the array's members (Enter) and highlight one first", timeout=4)
            return
        self.post_message(self.MemberVerb(array, member if verb not in ARRAY_VERBS else None, verb))

    def action_leave_members(self) -> None:
        """Back to the arrays table, its cursor on the array whose grid was left (the next key acts on it)."""
        array = self._highlighted()[0]
        table = self.query_one("#array-table", TextTable)
        if array is not None:
            table.move_cursor_to_key(array)
        table.focus()

    def _refresh_rows(self) -> None:
        snap = self._snapshot
        if snap is None:
            return
        arrays_table = self.query_one("#array-table", TextTable)
        disks = disks_by_name(snap.disks)
        rows = []
        for a in snap.arrays:
            marks = marks_of(a, disks, snap, self._latencies)
            # md's state stays md's ("clean [UUU]"); a member SMART calls failing marks the row as an alert too.
            alert = a.name in snap.degraded_alerts or any(tone == "crit" for _text, tone in marks)
            rows.append(array_row(a, alert, self._columns, self._bar_width, snap.time, marks))
        placeholder = snap.md_absence or "no md arrays"
        _set_rows_keeping_cursor(arrays_table, rows, placeholder)
        names = {a.name for a in snap.arrays}
        self.expanded &= names
        members: list[Row] = []
        for array in snap.arrays:
            if array.name in self.expanded:
                members.extend(member_rows(array, disks, snap, self._latencies))
        # A failed member loses its slot and moves down the grid: the cursor follows
        # it by name, so the next key aims at the disk the user was looking at.
        _set_rows_keeping_cursor(self.query_one("#member-table", TextTable), members)
        self.set_class(bool(members), "-expanded")
        if self._focus_grid_of is not None and any(row.key.startswith(f"{self._focus_grid_of}/") for row in members):
            self._cursor_to_first_member(self._focus_grid_of)
            self.call_after_refresh(self._take_grid_focus)
        shown = frozenset(m.name for a in snap.arrays if a.name in self.expanded for m in a.members if not m.is_faulty)
        if shown != self._shown_members:
            self._shown_members = shown
            self.post_message(self.MembersShown(shown))
        self._fit_member_grid()
        alerts = sorted(snap.degraded_alerts)
        # An open member grid says who loads its array (cgroup accounting, when the host has it).
        loading = [
            shares_sentence(a.name, array_shares(snap, a))
            for a in snap.arrays
            if a.name in self.expanded and array_shares(snap, a)
        ]
        if alerts:
            health = {a.name: a.health for a in snap.arrays}
            self.set_subtitle(
                " · ".join(
                    ["ALERT: " + ", ".join(f"{name} {health.get(name, 'degraded')}" for name in alerts), *loading]
                )
            )
        elif snap.arrays:
            self.set_subtitle(
                " · ".join(loading) or f"{counted(len(snap.arrays), 'array')} · Enter: members · d: detail"
            )
        else:
            self.set_subtitle("")
        self.set_class(bool(alerts), "-alert")


def _set_rows_keeping_cursor(table: TextTable, rows: list[Row], placeholder: str = "") -> None:
    """Replace ``table``'s rows; the cursor stays on the row with the same key if it is still there."""
    key = table.cursor_key
    table.set_rows(rows, placeholder)
    if key is not None:
        table.move_cursor_to_key(key)
