"""The Lab screen's keys, declared once: the screen binds them, the footer, help and palette show them."""

from __future__ import annotations

from textual.binding import Binding

from raidtop.screens.lab.faults import FAULT_BINDINGS
from raidtop.widgets.member_keys import member_bindings

LAB_BINDINGS: list[Binding | tuple[str, str] | tuple[str, str, str]] = [
    Binding("escape,q", "back", "Back", id="lab-back", tooltip="Return to the dashboard"),
    Binding(
        "n",
        "create",
        "Create",
        id="lab-create",
        tooltip="Create the array described in the form (shows the commands first)",
    ),
    Binding(
        "S",
        "study",
        "Study",
        show=False,
        id="lab-study",
        tooltip="raid0, raid1, raid5: create, fio rand-read and rand-write, fail a disk, time the rebuild",
    ),
    Binding(
        "t",
        "teardown",
        "Teardown",
        show=False,
        id="lab-teardown",
        tooltip="Stop every lab array, detach its loop devices, delete its images (asks first)",
    ),
    *member_bindings("member"),
    *FAULT_BINDINGS,
    Binding(
        "m",
        "members",
        "Dashboard",
        show=False,
        id="lab-members",
        tooltip="Open the highlighted array's members on the dashboard",
    ),
    Binding(
        "x",
        "experiments",
        "Experiments",
        id="lab-experiments",
        tooltip="Stored sweeps, trade-offs, bitmap studies, grows: plotted",
    ),
]
