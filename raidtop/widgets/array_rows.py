"""How md arrays and their members become rows of the Arrays panel: the columns,
which give way first on a narrow terminal, and each cell's text and tone."""

from __future__ import annotations

from collections.abc import Mapping

from raidtop.presentation.disk_fields import DISK_FIELDS
from raidtop.presentation.format import kib, num
from raidtop.model.units import duration
from raidtop.presentation.md import (
    EMPTY_SLOT_PREFIX,
    finish_clock,
    fit_notes,
    row_marks,
    member_role_text,
    member_temperature,
    progress_bar,
    slots_and_members,
    state_badge,
    sync_speed_cell,
)
from raidtop.model.snapshot import DiskIO, Snapshot
from raidtop.model.md import MdArray
from raidtop.presentation.smart import HEALTH_WIDTH, health_cell, health_of, member_verdicts
from raidtop.latency.summary import MemberLatency
from raidtop.presentation.member_latency import BASIS_P99, LATENCY_FIELDS, slow_members_judged
from raidtop.widgets.disks_panel import disk_column
from raidtop.widgets.text_table import Column, Row

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
        return [
            Column(c.key, c.label, bar + 8, c.align) if c.key == "progress" else c
            for c in ARRAY_COLUMNS
            if c.key not in dropped and c.key != "marks"
        ]

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
    disk_column("r_s", 8, min_width=7),
    disk_column("w_s", 8, min_width=7),
    disk_column("rkib_s", min_width=8),
    disk_column("wkib_s", min_width=8),
    disk_column("r_await_ms"),
    disk_column("w_await_ms"),
    disk_column("util_pct"),
    Column("temp", "Temp", 7, min_width=6),
    Column("flag", "", 8, "left", min_width=7),
]
_MEMBER_FIELDS = tuple(c.key for c in MEMBER_COLUMNS if c.key in DISK_FIELDS)
LATENCY_COLUMNS = [Column(f.key, f.label, f.width, min_width=6) for f in LATENCY_FIELDS.values()]
"""Shown after %util while bpftrace samples the members' latency distributions."""


LATENCY_GIVES_UP = ("rkib_s", "wkib_s")
"""What the grid gives up for the latency columns so the slow mark stays on a 120-column screen:
throughput, which the Disks panel shows for the same devices."""


def member_columns(with_latency: bool) -> list[Column]:
    """The member grid's columns: with p50/p99/max while distributions are sampled (then without
    :data:`LATENCY_GIVES_UP`, and the last column, "Mark", says the slow mark's basis: ⚠ p99 or ⚠ avg)."""
    if not with_latency:
        return MEMBER_COLUMNS
    at = next(i for i, c in enumerate(MEMBER_COLUMNS) if c.key == "temp")
    flag = MEMBER_COLUMNS[-1]
    return [
        *(c for c in MEMBER_COLUMNS[:at] if c.key not in LATENCY_GIVES_UP),
        *LATENCY_COLUMNS,
        *MEMBER_COLUMNS[at:-1],
        Column(flag.key, "Mark", flag.width, flag.align, min_width=flag.min_width),
    ]


def array_row(
    array: MdArray,
    alert: bool,
    columns: list[Column] = ARRAY_COLUMNS,
    bar_width: int = BAR_WIDTH,
    now: float | None = None,
    marks: list[tuple[str, str]] | None = None,
) -> Row:
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
    room = next((c.width for c in columns if c.key == "marks"), MARKS_WIDTH[1])
    marks = marks if marks is not None else row_marks(array, now, set(), {})
    cells = {
        "name": (name, "crit" if alert else None),
        "level": (array.level or "?", None),
        "state": (badge, tone),
        "counts": (array.counts_string or "", None),
        "status": (
            array.status_string or "",
            "warn" if array.status and "_" in array.status and not array.sparse_by_design else None,
        ),
        "size": (kib(array.size_kib), None),
        "progress": (progress, "accent"),
        "speed": (spd, "warn" if sync is not None and sync.stalled else None),
        "eta": (eta, "good"),
        "finish_at": (done_at, "good"),
        # One tone for the cell: the most urgent mark's, which comes first. Cut at a word, never inside one.
        "marks": (
            " " + fit_notes([text for text, _ in marks], room - 1) if marks else "",
            marks[0][1] if marks else None,
        ),
    }
    shown = [cells[c.key] for c in columns]
    return Row(array.name, tuple(text for text, _ in shown), tuple(tone for _, tone in shown))


def marks_of(
    array: MdArray, disks: Mapping[str, DiskIO], snap: Snapshot, latencies: dict[str, MemberLatency] | None = None
) -> list[tuple[str, str]]:
    """The array row's notes from the snapshot: SMART verdicts and slow members of its members."""
    slow = slow_members_judged(array, disks, latencies or {})[0]
    return row_marks(array, snap.time, slow, member_verdicts(array, snap))


def member_rows(
    array: MdArray,
    disks: Mapping[str, DiskIO],
    snap: Snapshot,
    latencies: dict[str, MemberLatency] | None = None,
) -> list[Row]:
    """The member grid of one array: roles plus each member's live iostat row.

    With ``latencies`` (bpftrace runs), each row has its p50/p99/max cells
    (:func:`member_columns` with latency) and the slow mark follows the distribution.
    """
    slow, basis = slow_members_judged(array, disks, latencies or {})
    rows = []
    for slot, member in slots_and_members(array):
        if member is None:
            if slot is not None:  # a gap always has its slot number
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
        verdict, verdict_tone = health_cell(
            health_of(member.name, snap.smart, snap.smart_disk_of) if snap.smart else None
        )
        cells += [verdict, "" if member.errors is None else str(member.errors)]
        tones += [verdict_tone, "warn" if member.errors else "dim"]
        for key in _MEMBER_FIELDS:
            if latencies is not None and key in LATENCY_GIVES_UP:
                continue
            value = getattr(io, key) if io is not None else None
            cells.append(num(value))
            tones.append("dim" if not value else None)
        if latencies is not None:
            lat = latencies.get(member.name)
            for key, field in LATENCY_FIELDS.items():
                value = getattr(lat, key) if lat is not None else None
                cells.append(num(value))
                tones.append(field.tone(value))
        cells.append("" if temp is None else f"{temp:.0f}°C")
        tones.append(None)
        # With distributions on screen the cell names its basis (an array with too few requests falls back).
        mark = "⚠ slow" if latencies is None else "⚠ p99" if basis == BASIS_P99 else "⚠ avg"
        flag = mark if member.name in slow else "faulty" if member.is_faulty else ""
        cells.append(flag)
        tones.append("crit" if flag else None)
        rows.append(Row(f"{array.name}/{member.name}", tuple(cells), tuple(tones)))
    return rows


def empty_slot_row(array: str, slot: int) -> Row:
    """The row of a slot no member holds: the gap a removed disk left."""
    return Row(
        f"{array}/{EMPTY_SLOT_PREFIX}{slot}",
        (array, "(empty)", str(slot), " missing: add a disk"),
        ("dim", "crit", None, "crit"),
    )
