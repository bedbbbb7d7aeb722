"""The demo's stage: its badge and member grid on the dashboard, and its own keys (reset, rebuild speed, a bad disk)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from textual.app import App
from textual.message import Message

from raidtop.app.sampling import Sampling
from raidtop.screens.dashboard.messages import ShowMembers, SourceChanged
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

    def show(self) -> None:
        """The DEMO badge, where the numbers come from, and the simulated array's member grid open."""
        name = self.demo.sim.name
        self._to_dashboard(
            SourceChanged("DEMO — SIMULATED", f"{name} is simulated; the rest is {self.demo.base_description}")
        )
        self._to_dashboard(ShowMembers(name))

    def reset(self) -> None:
        """Put the demo back to its start, also after ``broken``."""
        self._sampling.ask_demo_reset()
        self._app.notify("demo reset: a whole simulated array, the recording from its start", timeout=3)

    def change_speed(self, direction: int) -> None:
        """Slow down (-1) or speed up (+1) the simulated array's rebuild: its sync speed limit."""
        limit = self.demo.change_speed(direction)
        self._app.notify(f"{self.demo.sim.name}: sync speed limit {rate(limit, spoken=True)}", timeout=3)
        self._sampling.sample_now()

    def disk_bad(self) -> None:
        """A survivor of the demo array gets 8 pending sectors (raises the rebuild-risk banner)."""
        said = self.demo.smart.go_bad()
        self._app.notify(said, title="Demo", timeout=6)
        self._sampling.sample_now()
