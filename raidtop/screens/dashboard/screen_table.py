"""The screens the dashboard opens, declared once: key, binding id, label, help line, how each is built.

The dashboard's bindings (so its footer, the help screen and the command
palette) and its ``open`` action all read :data:`SCREENS`; a new screen is
one entry here. Each opener gets the dashboard's :class:`Highlight` (what is
highlighted where) and returns the screen to push, or a sentence saying what
to highlight first. Screens are imported when first opened: none of them is
on the first frame's path.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from textual.binding import Binding
from textual.screen import Screen

from raidtop.model.frozen import frozen_dataclass
from raidtop.model.snapshot import Snapshot


@frozen_dataclass(slots=False)
class Highlight:
    """What the dashboard has highlighted when a key opens a screen.

    Attributes:
        snapshot: the snapshot on screen.
        array: the array of the focused row (the arrays table's or the member grid's).
        panel: the focused panel's id.
        focused_row: (table id, cursor key) of the focused table, if a table has focus.
        panel_row: (table id, cursor key) of the focused panel's first table.
    """

    snapshot: Snapshot | None
    array: str | None
    panel: str | None
    focused_row: tuple[str | None, str | None] | None
    panel_row: tuple[str | None, str | None] | None


Opened = Screen | str | None
"""The screen to push, a sentence saying what to highlight first, or ``None`` (nothing to open)."""


@frozen_dataclass(slots=False)
class ScreenEntry:
    """One screen the dashboard opens.

    Attributes:
        name: the binding id and the ``open`` action's argument.
        key: the key that opens it.
        label: the footer's word for it.
        tooltip: the help screen's line (and the palette's).
        opens: builds the screen from what is highlighted.
        group: "inspect" (what the machine is and was) or "work" (the figures behind a row, and
            what changes the machine); the demo's own key sits between the two in the footer.
        live_system: it changes the real machine: hidden and refused in the demo.
        needs_arrays: greyed out (not hidden, so users learn the key) while no array exists.
        show: in the footer (otherwise in help and the palette only).
    """

    name: str
    key: str
    label: str
    tooltip: str
    opens: Callable[[Highlight], Opened]
    group: Literal["inspect", "work"]
    live_system: bool = False
    needs_arrays: bool = False
    show: bool = True

    def binding(self) -> Binding:
        """The dashboard's binding for this screen."""
        return Binding(self.key, f"open({self.name!r})", self.label, show=self.show, id=self.name, tooltip=self.tooltip)

    def refusal(self) -> Binding:
        """For a ``live_system`` screen: the same key in the demo, where it only says why it is refused.

        A system binding: no footer, help or palette entry (the screen's own binding is hidden there).
        """
        return Binding(
            self.key,
            f"open({self.name!r}, True)",
            self.label,
            show=False,
            id=f"{self.name}-refused",
            tooltip=self.refused_in_demo,
            system=True,
        )

    @property
    def refused_in_demo(self) -> str:
        """Why the demo does not offer this screen, in a sentence."""
        return (
            f"{self.label} ({self.key}) acts on this real machine: the demo does not offer it"
            " (it changes only its simulated array; leave the demo to use it)"
        )


def _notes(seen: Highlight) -> Opened:
    from raidtop.screens.dialogs import NotesScreen

    return NotesScreen(seen.snapshot.notes if seen.snapshot else ())


def _array_detail(seen: Highlight) -> Opened:
    from raidtop.screens.array_detail import ArrayDetailScreen

    name = seen.array
    if name is None and seen.snapshot and seen.snapshot.arrays:
        name = seen.snapshot.arrays[0].name
    return ArrayDetailScreen(name) if name is not None else None


def _events(_seen: Highlight) -> Opened:
    from raidtop.screens.events import EventsScreen

    return EventsScreen()


def _stack(_seen: Highlight) -> Opened:
    from raidtop.screens.stack import StackScreen

    return StackScreen()


def _audit(_seen: Highlight) -> Opened:
    from raidtop.screens.audit import AuditScreen

    return AuditScreen()


def _smart(seen: Highlight) -> Opened:
    from raidtop.screens.smart import SmartScreen, disk_of_row

    snap, row = seen.snapshot, seen.focused_row
    disk = disk_of_row(row[0], row[1], snap) if row is not None and snap else None
    if disk is None:
        return "highlight a disk in Disks, or a member in the member grid (Enter on an array), then press h"
    return SmartScreen(disk)


def _explain(seen: Highlight) -> Opened:
    from raidtop.screens.explain import ExplainScreen, explanation_for

    snap = seen.snapshot
    row = seen.focused_row or seen.panel_row
    if snap is None or seen.panel is None or row is None:
        return None
    build = explanation_for(seen.panel, row[0], row[1])
    result = build(snap) if build is not None else None
    if build is None or result is None:
        return "nothing to explain here: pick a row in Arrays, Disks, CPU or Memory"
    # Paused or replaying, the figures still follow what the dashboard shows.
    return ExplainScreen(result, build, snap.time)


def _tuning(seen: Highlight) -> Opened:
    from raidtop.screens.tuning.screen import TuningScreen

    if seen.panel == "disks":
        return TuningScreen(device=seen.panel_row[1] if seen.panel_row else None)
    return TuningScreen(array=seen.array)


def _bench(_seen: Highlight) -> Opened:
    from raidtop.screens.bench.screen import BenchScreen

    return BenchScreen()


def _lab(_seen: Highlight) -> Opened:
    from raidtop.screens.lab.screen import LabScreen

    return LabScreen()


SCREENS: tuple[ScreenEntry, ...] = (
    ScreenEntry("notes", "n", "Notes", "List what the last sample could not read", _notes, "inspect", show=False),
    ScreenEntry(
        "array-detail",
        "d",
        "Array detail",
        "Open the detail screen of the highlighted md array",
        _array_detail,
        "inspect",
        needs_arrays=True,
    ),
    ScreenEntry("events", "e", "Events", "Show the md event timeline of this session", _events, "inspect"),
    ScreenEntry(
        "stack",
        "u",
        "Stack",
        "The storage stack: what sits on each disk and array, up to mountpoints and usage",
        _stack,
        "inspect",
    ),
    ScreenEntry(
        "audit",
        "A",
        "Audit",
        "Rebuild readiness: each array's findings, evidence and fix (raidtop audit)",
        _audit,
        "inspect",
    ),
    ScreenEntry(
        "smart-health",
        "h",
        "Health",
        "SMART health of the highlighted disk or member: every attribute, raw values, self-test",
        _smart,
        "inspect",
    ),
    ScreenEntry(
        "explain",
        "x",
        "Explain",
        "Show the formulas and raw counter deltas behind the highlighted row",
        _explain,
        "work",
    ),
    ScreenEntry(
        "tuning",
        "t",
        "Tune",
        "Open the Tuning screen for the highlighted disk or array",
        _tuning,
        "work",
        live_system=True,
    ),
    ScreenEntry(
        "bench",
        "b",
        "Benchmarks",
        "fio presets, live benchmark runs, results history and comparisons",
        _bench,
        "work",
        live_system=True,
    ),
    ScreenEntry(
        "lab",
        "l",
        "Lab",
        "Failure lab: build md arrays on loop devices, fail disks, time rebuilds",
        _lab,
        "work",
        live_system=True,
    ),
)
"""Every screen the dashboard opens, in footer and help order."""

SCREENS_BY_NAME = {entry.name: entry for entry in SCREENS}
