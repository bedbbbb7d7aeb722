"""The Processes panel: who is doing I/O, and who is loading each array.

Above the table, one line per array with member I/O ("md0: 92 % of writes
from postgresql.service, 6 % md0_resync (root cgroup)") when the host has
per-device cgroup accounting. The table lists processes that did I/O this
interval, busiest first, md's kernel threads pinned on top with their job.
The subtitle says which attribution level is shown: "per device" (cgroup
accounting) or "totals" (per process only, and why).
"""

from __future__ import annotations

from dataclasses import replace

from textual.app import ComposeResult

from raidtop.model.units import counted, size
from raidtop.presentation.format import DASH
from raidtop.model.snapshot import Snapshot
from raidtop.model.processes import ProcessIO
from raidtop.presentation.processes import array_shares, attribution_label, md_thread_role, shares_sentence
from raidtop.widgets.panel import Panel
from raidtop.widgets.shown_text import PlainStatic
from raidtop.widgets.text_table import Column, Row, TextTable

# A left-aligned column starts with a space, so its text never touches the number before it.
PROCESS_COLUMNS = [
    Column("pid", "PID", 7),
    Column("user", " User", 9, "left"),
    Column("read", "Read/s", 8),
    Column("write", "Write/s", 8),
    Column("rcalls", "rd/s", 6),
    Column("wcalls", "wr/s", 6),
    Column("unit", " Unit or md job", 23, "left"),
    Column("command", " Command", 40, "left"),
]
WAITING = "measuring: rates from the next sample…"
NOT_READ = "waiting for a sample with processes (a replay has them where the recording's panel was open)"
IDLE = "no process did I/O in the last few seconds"
HOLD_S = 5.0
"""A process stays listed this long after its last I/O: bursty writers don't blink in and out."""


def bytes_rate(value: float | None) -> str:
    """Bytes per second, short ("12.3M"); "—" when unknown."""
    return size(value)


def calls_rate(value: float | None) -> str:
    """Read or write calls per second."""
    return DASH if value is None else f"{value:.0f}" if value < 100_000 else f"{value / 1000:.0f}k"


def process_row(p: ProcessIO, role: str | None) -> Row:
    """One process; an md thread's unit cell says what it is doing."""
    # An md thread's "unit" is its job: the array and what md is doing to it.
    unit = role or p.unit
    command = f"[{p.comm}]" if p.kernel else p.comm
    busy = p.total_b_s > 0
    return Row(
        str(p.pid),
        (
            str(p.pid),
            " " + p.user,
            bytes_rate(p.read_b_s),
            bytes_rate(p.write_b_s),
            calls_rate(p.syscr_s),
            calls_rate(p.syscw_s),
            " " + unit,
            " " + command,
        ),
        (
            None,
            "dim",
            None if p.read_b_s else "dim",
            None if p.write_b_s else "dim",
            "dim",
            "dim",
            "accent" if busy else None,
            "accent" if role else None,
        ),
    )


def shown_processes(
    snap: Snapshot, last_busy: dict[tuple[int, str], float] | None = None
) -> list[tuple[ProcessIO, str | None]]:
    """md's threads first, then every process that moved bytes to or from storage, busiest first.

    ``last_busy`` ((pid, command) -> time of its last I/O) is updated; a process
    is kept for :data:`HOLD_S` after its last I/O, with its current rate.
    """
    if snap.io is None:
        return []
    pinned: list[tuple[ProcessIO, str | None]] = []
    busy: list[tuple[ProcessIO, str | None]] = []
    for p in snap.io.processes:
        role = md_thread_role(p.comm, snap.arrays) if p.kernel else None
        if role is not None:
            pinned.append((md_thread_io(snap, p), role))
            continue
        # Bytes that reached storage: a process only making read/write calls (pipes, /proc,
        # the page cache) is not loading a disk.
        key = (p.pid, p.comm)
        if p.total_b_s > 0:
            if last_busy is not None:
                last_busy[key] = snap.time
            busy.append((p, None))
        elif last_busy is not None and snap.time - last_busy.get(key, float("-inf")) <= HOLD_S:
            busy.append((p, None))
    if last_busy is not None:
        for key in [k for k, when in last_busy.items() if snap.time - when > HOLD_S]:
            del last_busy[key]
    pinned.sort(key=lambda pair: (not pair[0].comm.endswith(("_resync", "_reshape", "_recover")), pair[0].pid))
    return pinned + busy


def md_thread_io(snap: Snapshot, p: ProcessIO) -> ProcessIO:
    """An md thread's bytes: /proc/PID/io never counts md's own bios, so "0" would mislead.

    A sync thread gets its array's root-cgroup share of member I/O when the host
    has per-device accounting; otherwise, and for the raidN thread, unknown ("—").
    """
    unknown = replace(p, read_b_s=None, write_b_s=None, syscr_s=None, syscw_s=None)
    array_name, _, kind = p.comm.rpartition("_")
    array = next((a for a in snap.arrays if a.name == array_name), None)
    if array is None or kind not in ("resync", "recover", "reshape") or not (snap.io and snap.io.by_device):
        return unknown
    root = next((s for s in array_shares(snap, array) if s.unit == "/"), None)
    return replace(unknown, read_b_s=root.read_b_s if root else 0.0, write_b_s=root.write_b_s if root else 0.0)


def loading_lines(snap: Snapshot) -> list[str]:
    """ "md0: 92 % of writes from …" for each array whose members did I/O (per-device accounting only)."""
    if snap.io is None or not snap.io.by_device:
        return []
    lines = []
    for array in snap.arrays:
        shares = array_shares(snap, array)
        if shares:
            lines.append(shares_sentence(array.name, shares, limit=3))
    return lines


class ProcessesPanel(Panel):
    """Processes and services doing I/O, tied to the arrays they load."""

    DEFAULT_CSS = """
    ProcessesPanel { display: none; width: 1fr; height: 1fr; min-height: 6; }
    ProcessesPanel.-on { display: block; }
    ProcessesPanel #process-loading { height: auto; max-height: 4; color: $text-accent; padding: 0 1; }
    """

    sort_columns = ()

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.border_title = "Processes"
        self._loading: str | None = None
        self._last_busy: dict[tuple[int, str], float] = {}

    def compose(self) -> ComposeResult:
        yield PlainStatic("", id="process-loading")
        table = TextTable(PROCESS_COLUMNS, id="process-table")
        table.placeholder = WAITING
        yield table

    def toggle(self, snap: Snapshot | None) -> bool:
        """Show (with ``snap`` so far, focused) or hide the panel; whether it is shown now."""
        shown = not self.has_class("-on")
        self.set_class(shown, "-on")
        if shown:
            if snap is not None:
                self.show(snap)
            self.focus_table()
        return shown

    def show(self, snap: Snapshot) -> None:
        """Render who did I/O in ``snap``."""
        text = "\n".join(loading_lines(snap))
        if text != self._loading:
            # Only on a change, and a new layout only when its height changes (a relayout repaints more).
            relayout = (
                self._loading is None or text.count("\n") != self._loading.count("\n") or not text or not self._loading
            )
            self._loading = text
            loading = self.query_one("#process-loading", PlainStatic)
            loading.display = bool(text)
            loading.update(text, layout=relayout)
        rows = shown_processes(snap, self._last_busy)
        io = snap.io
        measuring = io is not None and io.processes and all(p.read_b_s is None for p in io.processes if not p.kernel)
        # No process counted: /proc was not walked for this sample (just opened, or a replay without them).
        placeholder = NOT_READ if io is None or io.process_count == 0 else WAITING if measuring else IDLE
        self.query_one(TextTable).set_row_source(
            [str(p.pid) for p, _ in rows], lambda i: process_row(*rows[i]), placeholder
        )
        label = attribution_label(snap)
        count = snap.io.process_count if snap.io is not None else 0
        self.set_subtitle(f"{label} · {len(rows)} of {counted(count, 'process', 'processes')}" if label else "")
