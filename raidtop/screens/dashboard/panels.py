"""Which dashboard panel is active and focused, and the tabs that stand for them in narrow terminals.

Wide terminals show every panel; below 100×30 they fold into tabs and only
the active one shows. :class:`PanelFocus` belongs to one dashboard and keeps
its layout classes, its tabs and its focus in step.
"""

from __future__ import annotations

from textual.screen import Screen
from textual.widgets import Tab, Tabs

from raidtop.widgets.arrays_panel import ArraysPanel
from raidtop.widgets.panel import Panel

NARROW_WIDTH = 100
NARROW_HEIGHT = 30
WIDE_WIDTH = 180
PANEL_TABS = (("arrays", "Arrays"), ("disks", "Disks"), ("cpu", "CPU"), ("vm", "Memory"), ("sensors", "Sensors"))


class PanelFocus:
    """The active panel of ``screen``: its class (``-show-<key>``), its tab and the focus.

    Args:
        screen: the dashboard whose panels these are.
        active: the panel active at start.
    """

    def __init__(self, screen: Screen[None], active: str = "arrays") -> None:
        self._screen = screen
        self.active = active
        """The panel shown when the terminal is narrow (and the one Tab moves on from)."""

    def layout_classes(self, width: int, height: int) -> None:
        """``-narrow`` (tabs) or ``-wide`` (CPU, Memory and Sensors side by side) for a terminal this big."""
        narrow = width < NARROW_WIDTH or height < NARROW_HEIGHT
        self._screen.set_class(narrow, "-narrow")
        # Room for CPU, Memory and Sensors side by side.
        self._screen.set_class(not narrow and width >= WIDE_WIDTH, "-wide")

    def tabs(self) -> Tabs:
        """The panel tabs (made only once the terminal is narrow)."""
        # At full size the tabs are hidden, and their ten widgets cost 8 ms of the first frame.
        return Tabs(
            *(Tab(label, id=f"tab-{key}") for key, label in PANEL_TABS), id="panel-tabs", active=f"tab-{self.active}"
        )

    def focused(self) -> Panel | None:
        """The panel holding the focus, if any."""
        focused = self._screen.focused
        while focused is not None and not isinstance(focused, Panel):
            focused = focused.parent  # type: ignore[assignment]
        return focused

    def show(self, key: str) -> None:
        """Make ``key``'s panel the active one (visible when narrow) and focus it."""
        screen = self._screen
        screen.remove_class(f"-show-{self.active}")
        self.active = key
        screen.add_class(f"-show-{key}")
        for tabs in screen.query(Tabs):
            if tabs.active != f"tab-{key}":
                tabs.active = f"tab-{key}"
        screen.query_one(f"#{key}", Panel).focus_table()

    def focus(self, key: str) -> None:
        """Focus a panel by its hotkey's name; ``members`` is the Arrays panel's member grid."""
        if key == "members":
            self.show("arrays")
            self._screen.query_one(ArraysPanel).focus_members()
            return
        panel = self.focused()
        if key == "vm" and panel is not None and panel.id == "vm":
            key = "sensors"  # 5 again: the panel that shares Memory's column
        self.show(key)

    def step(self, step: int) -> None:
        """Focus the next (or previous) panel."""
        keys = [key for key, _ in PANEL_TABS]
        panel = self.focused()
        current = panel.id if panel is not None and panel.id in keys else self.active
        self.show(keys[(keys.index(current) + step) % len(keys)])

    def tab_activated(self, tab: Tab | None) -> None:
        """A tab was clicked or chosen: show its panel."""
        key = tab.id.removeprefix("tab-") if tab and tab.id else "disks"
        if key != self.active:
            self.show(key)
