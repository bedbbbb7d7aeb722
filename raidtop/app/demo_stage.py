"""The demo's own keys on the app: reset the stage, slow down or speed up the simulated rebuild."""

from __future__ import annotations

from textual.binding import Binding

DEMO_BINDINGS = [
    Binding(
        "z",
        "demo_reset",
        "Reset demo",
        id="demo-reset",
        tooltip="Demo: back to the start (a whole simulated array, the recording from its start)",
    ),
    Binding(
        "left_square_bracket",
        "demo_speed(-1)",
        "Slower rebuild",
        id="demo-rebuild-slower",
        tooltip="Demo: lower the simulated array's sync speed limit (its ETA grows)",
    ),
    Binding(
        "right_square_bracket",
        "demo_speed(1)",
        "Faster rebuild",
        id="demo-rebuild-faster",
        tooltip="Demo: raise the simulated array's sync speed limit (its ETA shrinks)",
    ),
]
"""Shown only with --demo (the app's check_action hides them elsewhere)."""
DEMO_ACTIONS = frozenset({"demo_reset", "demo_speed"})


class DemoStageKeys:
    """Mixed into RaidtopApp: the actions behind :data:`DEMO_BINDINGS`.

    The reset itself runs in the sampler's thread at its next sample
    (``_demo_reset_asked``), so no sample sees half a reset.
    """

    _demo_reset_asked = False

    def show_demo_stage(self) -> None:
        """The DEMO badge, where the numbers come from, and the simulated array's member grid open."""
        status = self.dashboard.query_one("#status")
        status.badge = "DEMO — SIMULATED"
        status.host = f"{self.demo.sim.name} is simulated; the rest is {self.demo.base_description}"
        self.dashboard.query_one("#arrays").expand_for_actions(self.demo.sim.name)

    def action_demo_reset(self) -> None:
        """Put the demo back to its start, also after ``broken``."""
        self._demo_reset_asked = True
        self.notify("demo reset: a whole simulated array, the recording from its start", timeout=3)
        self.sample_now()

    def action_demo_speed(self, direction: int) -> None:
        """Slow down (-1) or speed up (+1) the simulated array's rebuild: its sync speed limit."""
        limit = self.demo.change_speed(direction)
        self.notify(f"{self.demo.sim.name}: sync speed limit {limit // 1000} MB/s", timeout=3)
        self.sample_now()
