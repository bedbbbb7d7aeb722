"""How the dashboard shares its rows: panels with little to show shrink to it, Arrays and Disks get the rest.

A CPU panel with 2 CPUs or a Sensors panel that says "no sensors exposed"
used to hold half the screen while the member grid scrolled. Now the bottom
row (CPU, Memory/VM, Sensors) is as tall as its tallest content, at most
two fifths of the room; the Arrays panel and its member grid take what they
need of the rest, keeping room for a few disks; Disks takes what remains.
The arithmetic is on counts, so it is tested without a screen.
"""

from __future__ import annotations


from textual.widget import Widget

from raidtop.model.frozen import frozen_dataclass
from raidtop.model.snapshot import Snapshot
from raidtop.widgets.arrays_panel import ArraysPanel
from raidtop.widgets.vm_panel import VM_TABLE_ROWS, psi_rows

BORDER = 2
"""A panel's top and bottom border."""
DISKS_FLOOR = BORDER + 1 + 3
"""Disks keeps its header and three devices whatever the arrays need."""
BOTTOM_FLOOR = 8
BOTTOM_SHARE = 0.4
"""The bottom row never takes more than this share of the room."""


ARRAYS_FLOOR = BORDER + 1 + 1 + 6
"""Arrays keeps one array and a few member rows before the bottom row may show Sensors under Memory."""
SENSORS_FLOOR = BORDER + 2
"""A Sensors panel below this shows nothing readable."""


@frozen_dataclass(slots=False)
class RowShare:
    """Rows the Arrays panel may take at most (it shrinks to its content) and the bottom row's rows.

    Disks takes the rest.
    """

    arrays: int
    bottom: int


@frozen_dataclass(slots=False)
class BottomWants:
    """Rows the bottom row needs to show everything, and below which one of its panels shows nothing."""

    rows: int
    floor: int


def bottom_rows_wanted(snap: Snapshot, side_by_side: bool) -> BottomWants:
    """What the tallest of CPU, Memory/VM and Sensors needs to show everything it has.

    ``side_by_side``: Memory/VM and Sensors share the row (wide terminals)
    instead of stacking in one column, where Sensors needs Memory's rows first.
    """
    cpu = BORDER + 1 + max(1, len(snap.cpus))
    vm = BORDER + VM_TABLE_ROWS + 1 + max(1, len(psi_rows(snap.vm)))
    sensors = BORDER + 1 + max(1, len(snap.sensors))
    if side_by_side:
        return BottomWants(max(cpu, vm, sensors), min(max(cpu, vm, sensors), vm))
    return BottomWants(max(cpu, vm + sensors), vm + SENSORS_FLOOR)


def share_rows(room: int, bottom: BottomWants) -> RowShare:
    """Share ``room`` rows between Arrays, Disks and the bottom row.

    The bottom row gets what it wants up to :data:`BOTTOM_SHARE` of the room
    (beyond that its tables scroll and the CPU panel folds into its heat
    grid) — more, up to its floor, only if Arrays and Disks keep their floors.
    Arrays may take all the rest but :data:`DISKS_FLOOR`; as it shrinks to its
    content, Disks gets whatever Arrays does not use.
    """
    rows = max(BOTTOM_FLOOR, min(bottom.rows, int(room * BOTTOM_SHARE)))
    if rows < bottom.floor <= room - ARRAYS_FLOOR - DISKS_FLOOR:
        rows = bottom.floor
    return RowShare(max(BORDER + 2, room - rows - DISKS_FLOOR), rows)


def fit_rows(arrays: ArraysPanel, disks: Widget, bottom: Widget, snap: Snapshot | None, tabs: bool, wide: bool) -> None:
    """Give the dashboard's panels their rows (:func:`share_rows`).

    With tabs each panel has the screen and the stylesheet decides.
    """
    if tabs or snap is None:
        arrays.set_room(None)
        bottom.styles.height = None
        return
    room = arrays.outer_size.height + disks.outer_size.height + bottom.outer_size.height
    if room <= 0:
        return
    share = share_rows(room, bottom_rows_wanted(snap, wide))
    arrays.set_room(share.arrays)
    if bottom.styles.height is None or bottom.styles.height.value != share.bottom:
        bottom.styles.height = share.bottom
