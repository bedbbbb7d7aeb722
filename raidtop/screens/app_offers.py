"""What an app offers the screens it opens, as the screens see it.

Screens sit below the app in the layers (pyproject.toml's ``layers``
contract), so they never import it; they ask for these protocols instead.
:mod:`raidtop.app.offers` proves to mypy that the apps provide them.
"""

from __future__ import annotations

from typing import Protocol, cast

from textual.screen import Screen

from raidtop.collect.sampler import Sampler
from raidtop.config import Config
from raidtop.fleet.model import FleetReading


class SamplingApp(Protocol):
    """The raidtop app: its settings, its sampler and the work per tick that follows what is shown."""

    units_wanted_by: frozenset[str]
    """The views that need the cgroup tree read each sample (empty: it is not read)."""

    @property
    def config(self) -> Config:
        """The settings the app runs with."""

    @property
    def sampler(self) -> Sampler:
        """The one sampler (its stack poller follows the views that show the stack)."""

    @property
    def player(self) -> object | None:
        """The replay player, None unless a recording is played."""

    def sample_now(self) -> None:
        """Take the next sample now rather than at the next tick."""


class FleetViewApp(Protocol):
    """The fleet app: the latest reading of every host, and a way to ask for a new one."""

    @property
    def reading(self) -> FleetReading | None:
        """The newest reading, None before the first."""

    def refresh_now(self) -> None:
        """Read every host again now."""


def sampling_app(screen: Screen) -> SamplingApp:
    """The app that opened ``screen``: a raidtop app (checked in :mod:`raidtop.app.offers`)."""
    return cast(SamplingApp, screen.app)


def fleet_view_app(screen: Screen) -> FleetViewApp:
    """The app that opened ``screen``: the fleet app (checked in :mod:`raidtop.app.offers`)."""
    return cast(FleetViewApp, screen.app)
