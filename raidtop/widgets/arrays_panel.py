"""The Arrays panel: one row per md array, and a member grid for expanded ones."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message

from raidtop.format import kib, num
from raidtop.member_verbs import ARRAY_VERBS
from raidtop.mdview import (
    EMPTY_SLOT_PREFIX,
    duration,
    finish_clock,
    row_marks,
    member_role_text,
    member_temperature,
    progress_bar,
    slots_and_members,
    slow_members,
    state_badge,
    sync_speed_cell,
)
from raidtop.model import DiskIO, Snapshot
from raidtop.model_md import MdArray
from raidtop.smartview import HEALTH_WIDTH, health_cell, health_of
from raidtop.process_view import array_shares, shares_sentence
from raidtop.widgets.member_keys import member_bindings
from raidtop.widgets.panel import Panel
from raidtop.widgets.risk_banner import RiskBanner
from raidtop.widgets.text_table import Column, Row, TextTable

BAR_WIDTH = 14
MIN_BAR_WIDTH = 4
MARKS_WIDTH = (10, 40)
"""The Notes column's narrowest and widest: it takes what the others leave."""
ARRAY_COLUMNS = [
    Column("name", "Array", 9, "left"),
    Column("level", "Level", 7, "left"),
    Column("state", "State", 15, "left"),
    Column("counts", "[n/m]", 8, "left"),  # "[11/10]" and its gap
    Column("status", "Members", 12, "left"),
    Column("size", "Size", 9),
    Column("progress", " Sync", BAR_WIDTH + 8, "left"),
    Column("speed", "Speed", 11),
    Column("eta", "ETA", 9),
    Column("finish_at", " Done at", 12, "left"),
    Column("marks", " Notes", MARKS_WIDTH[1], "left"),
]
GIVE_WAY = ("size", "finish_at", "counts", "bar", "level", "marks")
"""What a narrow Arrays panel gives up, first to last ("bar": the sync bar shrinks).

State, [UU_], the sync percent, speed and ETA are what an operator watches
during a rebuild; they stay down to an 80-column terminal. The Notes column
(a stall, a failing or slow member, since when degraded, slots by design)
takes the width the others leave and goes last. The kernel's finish= is not
on the row: it is the detail screen's, labelled as the kernel's.
"""


def array_columns(width: int) -> tuple[list[Column], int]:
    """The array columns that fit ``width`` cells, and the sync bar's width."""
    bar = BAR_WIDTH
    dropped: set[str] = set()

    def fixed() -> list[Column]:
        return [Column(c.key, c.label, bar + 8, c.align) if c.key == "progress" else c
                for c in ARRAY_COLUMNS if c.key not in dropped and c.key != "marks"]

    def room() -> int:
        return width - sum(c.width for c in fixed())

    for step in GIVE_WAY:
        if room() >= MARKS_WIDTH[0]:
            break
        if step == "bar":
            bar = max(MIN_BAR_WIDTH, bar - (MARKS_WIDTH[0] - room()))
        elif step != "marks":
            dropped.add(step)
    columns = fixed()
    if room() >= MARKS_WIDTH[0]:
        columns.append(Column("marks", " Notes", min(room(), MARKS_WIDTH[1]), "left"))
    return columns, bar


MEMBER_COLUMNS = [
    # min_width: what each column gives up so the whole grid fits 120 columns (Temp and %util were off screen).
    Column("array", "Array", 9, "left", min_width=6),
    Column("member", "Member", 12, "left", min_width=9),
    Column("slot", "Slot", 5),
    Column("roles", " Roles", 26, "left", min_width=16),
    Column("health", "Health", HEALTH_WIDTH, "left"),
    Column("errors", "Err", 5, min_width=4),
    Column("r_s", "r/s", 8, min_width=7),
    Column("w_s", "w/s", 8, min_width=7),
    Column("rkb_s", "rkB/s", 10, min_width=8),
    Column("wkb_s", "wkB/s", 10, min_width=8),
    Column("r_await_ms", "r_await", 8),
    Column("w_await_ms", "w_await", 8),
    Column("util_pct", "%util", 7),
    Column("temp", "Temp", 7, min_width=6),
    Column("flag", "", 8, "left", min_width=7),
]


def array_row(array: MdArray, alert: bool, columns: list[Column] = ARRAY_COLUMNS, bar_width: int = BAR_WIDTH,
              now: float | None = None, marks: list[tuple[str, str]] | None = None) -> Row:
    """One array: name, level, badge, [n/m], [UU_], size, sync progress and its notes, in ``columns``."""
    badge, tone = state_badge(array)
    sync = array.sync
    if sync is None:
        progress, spd, eta, done_at = "", "", "", ""
    elif not sync.running:
        progress, spd, eta, done_at = f" {sync.action.upper()}", "", "", ""
    else:
        pct = "" if sync.percent is None else f" {sync.percent:5.1f}%"
        progress = f" {progress_bar(sync.percent, bar_width)}{pct}"
        spd, eta = sync_speed_cell(sync), duration(sync.eta_s)
        done_at = " " + finish_clock(sync.eta_s, now, short=True) if now is not None and sync.eta_s is not None else ""
    name = ("! " if alert else "") + array.name
    marks = marks if marks is not None else row_marks(array, now, set(), {})
    cells = {
        "name": (name, "crit" if alert else None),
        "level": (array.level or "?", None),
        "state": (badge, tone),
        "counts": (array.counts_string or "", None),
        "status": (array.status_string or "",
                   "warn" if array.status and "_" in array.status and not array.sparse_by_design else None),
        "size": (kib(array.size_kib), None),
        "progress": (progress, "accent"),
        "speed": (spd, "warn" if sync is not None and sync.stalled else None),
        "eta": (eta, "good"),
        "finish_at": (done_at, "good"),
        # One tone for the cell: the most urgent mark's, which comes first.
        "marks": (" " + " · ".join(text for text, _ in marks) if marks else "", marks[0][1] if marks else None),
    }
    shown = [cells[c.key] for c in columns]
    return Row(array.name, tuple(text for text, _ in shown), tuple(tone for _, tone in shown))


def marks_of(array: MdArray, disks: dict[str, DiskIO], snap: Snapshot) -> list[tuple[str, str]]:
    """The array row's notes from the snapshot: SMART verdicts and slow members of its members."""
    verdicts = {}
    if snap.smart:
        for member in array.members:
            health = health_of(member.name, snap.smart, snap.smart_disk_of)
            if health is not None and health.verdict in ("failing", "watch"):
                verdicts[member.name] = health.verdict
    return row_marks(array, snap.time, slow_members(array, disks), verdicts)


def member_rows(array: MdArray, disks: dict[str, DiskIO], snap: Snapshot) -> list[Row]:
    """The member grid of one array: roles plus each member's live iostat row."""
    slow = slow_members(array, disks)
    rows = []
    for slot, member in slots_and_members(array):
        if member is None:
            rows.append(empty_slot_row(array.name, slot))
            continue
        io = disks.get(member.name)
        temp = member_temperature(member.name, disks, snap.sensors)
        roles = member_role_text(member, array)
        cells = [
            array.name,
            member.name,
            "" if member.slot is None else str(member.slot),
            " " + roles,
        ]
        tones: list[str | None] = [
            "dim",
            None,
            None,
            "crit" if member.is_faulty else "warn" if member.is_spare else "dim" if not member.roles else "good",
        ]
        verdict, verdict_tone = health_cell(health_of(member.name, snap.smart, snap.smart_disk_of) if snap.smart else None)
        cells += [verdict, "" if member.errors is None else str(member.errors)]
        tones += [verdict_tone, "warn" if member.errors else "dim"]
        for key in ("r_s", "w_s", "rkb_s", "wkb_s", "r_await_ms", "w_await_ms", "util_pct"):
            value = getattr(io, key) if io is not None else None
            cells.append(num(value))
            tones.append("dim" if not value else None)
        cells.append("" if temp is None else f"{temp:.0f}°C")
        tones.append(None)
        flag = "⚠ slow" if member.name in slow else "faulty" if member.is_faulty else ""
        cells.append(flag)
        tones.append("crit" if flag else None)
        rows.append(Row(f"{array.name}/{member.name}", tuple(cells), tuple(tones)))
    return rows


def empty_slot_row(array: str, slot: int) -> Row:
    """The row of a slot no member holds: the gap a removed disk left."""
    return Row(f"{array}/{EMPTY_SLOT_PREFIX}{slot}", (array, "(empty)", str(slot), " missing: add a disk"),
               ("dim", "crit", None, "crit"))


class ArraysPanel(Panel):
    """md arrays with state badges and sync progress; Enter expands members.

    On arrays raidtop may change (the demo's simulated array, lab arrays) the
    member keys (:data:`raidtop.member_verbs.MEMBER_KEYS`) post
    :class:`MemberVerb`; the screen hosting the panel plans, confirms and
    runs it. Which arrays offer which verbs is told to the panel
    (:meth:`set_offers`), so deciding whether a key is shown reads nothing.
    Elsewhere those keys keep their dashboard meaning.
    """

    BINDINGS = [
        *member_bindings("member"),
        Binding("escape", "leave_members", "Leave grid", id="members-back", tooltip="Back from the member grid to the arrays"),
    ]

    class MemberVerb(Message):
        """A member key was pressed on an array that offers the verb (``member`` is None for array verbs)."""

        def __init__(self, array: str, member: str | None, verb: str) -> None:
            super().__init__()
            self.array = array
            self.member = member
            self.verb = verb

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

    @property
    def selected_array(self) -> str | None:
        """The array under the cursor: the focused member grid's array, else the arrays table's."""
        return self._highlighted()[0]

    def set_room(self, rows: int | None) -> None:
        """At most ``rows`` for the whole panel (None: the stylesheet's limit); the member grid gets what the arrays leave."""
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
        """Open ``array``'s member grid and focus it (the demo starts like this)."""
        self.expanded.add(array)
        self._refresh_rows()
        self.call_after_refresh(self.query_one("#member-table", TextTable).focus)

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
        """Back to the arrays table."""
        self.query_one("#array-table", TextTable).focus()

    def _refresh_rows(self) -> None:
        snap = self._snapshot
        if snap is None:
            return
        arrays_table = self.query_one("#array-table", TextTable)
        disks = {d.name: d for d in snap.disks}
        rows = [array_row(a, a.name in snap.degraded_alerts, self._columns, self._bar_width, snap.time,
                          marks_of(a, disks, snap)) for a in snap.arrays]
        placeholder = snap.md_absence or "no md arrays"
        _set_rows_keeping_cursor(arrays_table, rows, placeholder)
        names = {a.name for a in snap.arrays}
        self.expanded &= names
        members: list[Row] = []
        for array in snap.arrays:
            if array.name in self.expanded:
                members.extend(member_rows(array, disks, snap))
        # A failed member loses its slot and moves down the grid: the cursor follows
        # it by name, so the next key aims at the disk the user was looking at.
        _set_rows_keeping_cursor(self.query_one("#member-table", TextTable), members)
        self.set_class(bool(members), "-expanded")
        self._fit_member_grid()
        alerts = sorted(snap.degraded_alerts)
        # An open member grid says who loads its array (cgroup accounting, when the host has it).
        loading = [shares_sentence(a.name, array_shares(snap, a)) for a in snap.arrays
                   if a.name in self.expanded and array_shares(snap, a)]
        if alerts:
            health = {a.name: a.health for a in snap.arrays}
            self.set_subtitle(" · ".join(["ALERT: " + ", ".join(f"{name} {health.get(name, 'degraded')}" for name in alerts), *loading]))
        elif snap.arrays:
            self.set_subtitle(" · ".join(loading) or f"{len(snap.arrays)} arrays · Enter: members · d: detail")
        else:
            self.set_subtitle("")
        self.set_class(bool(alerts), "-alert")


def _set_rows_keeping_cursor(table: TextTable, rows: list[Row], placeholder: str = "") -> None:
    """Replace ``table``'s rows; the cursor stays on the row with the same key if it is still there."""
    key = table.cursor_key
    table.set_rows(rows, placeholder)
    if key is not None:
        table.move_cursor_to_key(key)
