"""The demo's stage on the dashboard: presenter mode's layout, the narration line and the steps' keys.

Presenter mode (``raidtop --demo --present`` or ``P``) is for a projector: the
dashboard shows only the simulated array and its member grid, a line that
says in words what md just did and why, and the keys of the steps a teacher
takes, one key each. Outside it the demo keeps the whole dashboard and the
stage bar says what md did and where the other numbers come from.
"""

from __future__ import annotations

from dataclasses import replace

from textual.binding import Binding
from textual.screen import Screen

from raidtop.model.md import MdArray
from raidtop.model.snapshot import Snapshot
from raidtop.presentation.narration import narrate
from raidtop.screens.dashboard.keys import PRESENTER_HIDES, STAGE_STEPS
from raidtop.screens.dashboard.messages import StageSet
from raidtop.widgets.arrays_panel import ArraysPanel
from raidtop.widgets.stage_bar import StageBar

PRESENT_CSS = """
DashboardScreen.-present #disks, DashboardScreen.-present #bottom, DashboardScreen.-present #panel-tabs,
DashboardScreen.-present #time-bar, DashboardScreen.-present #notes-bar, DashboardScreen.-present KeyFooter {
    display: none !important;
}
DashboardScreen.-present #arrays { display: block !important; height: auto !important; max-height: 100%; }
DashboardScreen.-present StageBar { max-height: 10; margin: 1 0; }
"""
"""Presenter mode's layout: the arrays panel takes the screen; the stage bar replaces the footer."""


class Stage:
    """The demo's stage as the dashboard shows it (nothing outside the demo).

    Args:
        screen: the dashboard.
    """

    def __init__(self, screen: Screen[None]) -> None:
        self._screen = screen
        self.array: str | None = None
        """The simulated array (``None``: not the demo)."""
        self.present = False
        """Presenter mode is on."""
        self._previous: MdArray | None = None
        self._toasts_lift = 1
        """Rows the pop-ups keep free at the bottom (Textual's one above the footer, until the stage bar shows)."""

    def set(self, message: StageSet) -> None:
        """The app's demo stage changed: its array, presenter mode, where the numbers come from."""
        self.array, self.present = message.array, message.present
        self._screen.set_class(message.present, "-present")
        bar = self._screen.query_one(StageBar)
        bar.add_class("-on")
        bar.source = "" if message.present else message.source
        self.bindings_changed()

    def fit(self, arrays: ArraysPanel) -> bool:
        """The demo's pop-ups rise above the stage bar, so the line saying what md did is never covered.

        In presenter mode the arrays panel gets the screen but the status line
        and the stage bar. Returns False outside it (the dashboard shares its rows as usual).
        """
        if self.array is None:
            return False  # not the demo: nothing to do on every sample
        bar = self._screen.query_one(StageBar)
        lift = max(1, self._screen.size.height - bar.region.y) if bar.region.height else 1
        if lift != self._toasts_lift:
            self._toasts_lift = lift
            for toasts in self._screen.query("#textual-toastrack"):
                toasts.styles.margin = (0, 0, lift, 0)
        if not self.present:
            return False
        arrays.set_room(max(6, self._screen.size.height - 1 - bar.outer_size.height))
        return True

    def hides(self, action: str) -> bool:
        """In presenter mode, the keys of the panels it hides (Tab, 1–6, sort, filter): they would act unseen.

        Tab then moves between the arrays and the member grid only, so the member keys keep working.
        """
        return self.present and action in PRESENTER_HIDES

    def arrays_view(self, snap: Snapshot) -> Snapshot:
        """What the Arrays panel shows of ``snap``: in presenter mode only the simulated array."""
        if not self.present or self.array is None:
            return snap
        name = self.array
        return replace(
            snap,
            arrays=tuple(a for a in snap.arrays if a.name == name),
            degraded_alerts=snap.degraded_alerts & {name},
            rebuild_risks=tuple(r for r in snap.rebuild_risks if r.array == name),
        )

    def show(self, snap: Snapshot) -> None:
        """Narrate ``snap``'s events of the simulated array (the line stays until it does something new)."""
        if self.array is None:
            return
        bar = self._screen.query_one(StageBar)
        said = narrate(snap, self.array, bar.narration, self._previous)
        if said is not None:
            bar.narration = said
        self._previous = next((a for a in snap.arrays if a.name == self.array), None)

    def bindings_changed(self, _screen: object = None) -> None:
        """The keys that work changed (focus moved, a member was highlighted): the steps follow."""
        if self.array is None:
            return
        bar = self._screen.query_one(StageBar)
        if not self.present:
            bar.steps = ()
            return
        active: dict[str | None, Binding] = {}
        for _node, binding, enabled, _tip in self._screen.active_bindings.values():
            if enabled:
                active.setdefault(binding.id, binding)  # a key's first spelling: "?" before "f1"
        app = self._screen.app
        bar.steps = tuple(
            (app.get_key_display(active[step]), active[step].description) for step in STAGE_STEPS if step in active
        )
