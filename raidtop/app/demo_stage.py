"""The demo's stage: its badge, member grid and narration on the dashboard, presenter mode, and its own keys."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from textual.app import App
from textual.message import Message

from raidtop.app.keys import DEMO_VERBS
from raidtop.app.sampling import Sampling
from raidtop.screens.dashboard.messages import ShowMembers, SourceChanged, StageSet
from raidtop.model.units import rate

if TYPE_CHECKING:  # the demo is imported only when asked for: each import delays the first frame
    from raidtop.demo.controller import DemoController


class DemoStage:
    """What ``--demo`` adds to the app: the stage it sets and the keys that move its simulated array.

    Args:
        app: the app that says what happened (its notifications).
        demo: the demo's controller.
        sampling: the app's sampling; the reset itself runs in its thread at the next sample,
            so no sample sees half a reset.
        to_dashboard: posts a message to the dashboard.
    """

    def __init__(
        self, app: App[None], demo: DemoController, sampling: Sampling, to_dashboard: Callable[[Message], object]
    ) -> None:
        self._app = app
        self.demo = demo
        self._sampling = sampling
        self._to_dashboard = to_dashboard
        self.present = False
        """Presenter mode: only the simulated array, its narration and the steps' keys."""
        self._said: tuple[bool, str] | None = None

    def show(self, present: bool = False) -> None:
        """The DEMO badge, the stage (narration, presenter mode if ``present``) and the simulated array's grid open."""
        self.present = present
        name = self.demo.sim.name
        self._to_dashboard(SourceChanged("DEMO — SIMULATED", f"{name} is simulated"))
        self._set_stage()
        self._to_dashboard(ShowMembers(name))

    def source_line(self) -> str:
        """Where the numbers come from, in a line the narration bar shows at any width."""
        line = f"{self.demo.sim.name} is simulated; the rest is {self.demo.base_description}"
        if self.demo.recording_state == "held":
            line += " (raidtop --demo --demo-recording plays it)"
        return line

    def _set_stage(self) -> None:
        said = (self.present, self.source_line())
        if said != self._said:
            self._said = said
            self._to_dashboard(StageSet(self.demo.sim.name, *said))
            self._app.refresh_bindings()

    def after_snapshot(self) -> Callable[[str], bool]:
        """A sample was shown: the recording may have ended, or a reset held it again.

        Returns which arrays may be announced by pop-ups: only the simulated one (the recording's events
        are history), and in presenter mode none: the narration line says it, and a pop-up would cover it.
        """
        self._set_stage()
        return _nobody if self.present else self.demo.handles

    def offers(self, action: str, parameters: tuple[object, ...]) -> bool:
        """Whether a demo key (``demo(verb)``, ``demo_speed(step)``) works now: the app's check_action."""
        return action == "demo_speed" or (bool(parameters) and parameters[0] in DEMO_VERBS)

    def toggle_present(self) -> None:
        """Presenter mode on or off."""
        self.present = not self.present
        self._set_stage()

    def reset(self) -> None:
        """Put the demo back to its start, also after ``broken``; the timeline gets a reset mark."""
        self._sampling.ask_demo_reset()

    def change_speed(self, direction: int) -> None:
        """Slow down (-1) or speed up (+1) the simulated array's rebuild: its sync speed limit."""
        limit = self.demo.change_speed(direction)
        self._app.notify(f"{self.demo.sim.name}: sync speed limit {rate(limit, spoken=True)}", timeout=3)
        self._sampling.sample_now()

    def disk_bad(self, highlighted: str | None) -> None:
        """A survivor of the demo array other than ``highlighted`` gets 8 pending sectors (the rebuild-risk story)."""
        said = self.demo.smart.go_bad(highlighted)
        self._app.notify(said, title="Demo", timeout=8)
        self._sampling.sample_now()


def _nobody(_array: str) -> bool:
    return False
