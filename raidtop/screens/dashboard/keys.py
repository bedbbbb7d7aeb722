"""The dashboard's keys: panels, sorting and filtering, the screens it opens (from the screen table), the demo's key."""

from __future__ import annotations

from textual.binding import Binding

from raidtop.screens.dashboard.screen_table import SCREENS

PANEL_KEYS = (
    ("1", "arrays", "Arrays"),
    ("2", "members", "Members"),
    ("3", "disks", "Disks"),
    ("4", "cpu", "CPU"),
    ("5", "vm", "Memory/Sensors"),
)
"""btop-style panel hotkeys: 2 is the member grid, 5 alternates Memory and Sensors."""

DEMO_DISK_BAD = Binding(
    "B",
    "demo_disk_bad",
    "Make a disk go bad",
    id="demo-disk-bad",
    tooltip="Demo only: a survivor of the demo array other than the highlighted member gets 8 pending sectors"
    " (fail the highlighted one next: the rebuild-risk banner)",
)
STAGE_STEPS = (
    "table-cursor-up",
    "table-cursor-down",
    "member-fail",
    "member-remove",
    "member-add",
    "demo-disk-bad",
    "demo-rebuild-slower",
    "demo-rebuild-faster",
    "demo-reset",
    "members-back",
    "explain",
    "demo-present",
    "help",
)
"""The binding ids of the steps presenter mode shows, in a lesson's order (those that work at the moment)."""
PRESENTER_HIDES = frozenset(
    {"next_panel", "focus_panel", "sort", "sort_reverse", "filter", "toggle_all", "toggle_processes"}
)
"""The dashboard actions of the panels presenter mode hides: off there, or they would focus what is not shown."""

DASHBOARD_BINDINGS: list[Binding] = [
    Binding(
        "tab",
        "next_panel(1)",
        "Next panel",
        id="next-panel",
        tooltip="Move focus to the next panel (in narrow terminals: show it)",
        priority=True,
    ),
    Binding(
        "shift+tab",
        "next_panel(-1)",
        "Prev panel",
        show=False,
        id="prev-panel",
        tooltip="Move focus to the previous panel",
        priority=True,
    ),
    Binding("s", "sort", "Sort", id="sort", tooltip="Sort the focused panel by its next column"),
    Binding(
        "S",
        "sort_reverse",
        "Reverse",
        show=False,
        id="sort-reverse",
        tooltip="Reverse the sort order of the focused panel",
    ),
    Binding("f", "filter", "Filter", id="filter", tooltip="Show only devices whose name/model/serial contains a text"),
    Binding(
        "a",
        "toggle_all",
        "All devs",
        id="show-all",
        tooltip="Show or hide partitions and never-used loop/ram/zram devices",
    ),
    *(entry.binding() for entry in SCREENS if entry.group == "inspect"),
    DEMO_DISK_BAD,
    *(entry.binding() for entry in SCREENS if entry.group == "work"),
    *(
        Binding(
            key, f"focus_panel({panel!r})", label, show=False, id=f"panel-{panel}", tooltip=f"Focus the {label} panel"
        )
        for key, panel, label in PANEL_KEYS
    ),
    # A panel hotkey (after 1–5: help joins them into one row), shown in the footer: btop's digits toggle its boxes too.
    Binding(
        "6",
        "toggle_processes",
        "Processes",
        id="processes",
        tooltip="Show or hide who is doing I/O: processes, their units, their share of each array",
    ),
]
"""Every dashboard key, in footer and help order."""
