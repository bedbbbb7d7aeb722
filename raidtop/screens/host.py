"""What a screen may ask of the app it runs in, declared here so screens never import the app.

The app (:class:`raidtop.app.raidtop_app.RaidtopApp`) sits above the screens
and satisfies :class:`ScreenHost`; a screen calls :func:`screen_host` to reach
it typed. Live data comes from ``live`` (the app's :class:`LiveState`), never
from another screen.
"""

from __future__ import annotations

from inspect import getattr_static
from typing import TYPE_CHECKING, Protocol, cast, runtime_checkable

from textual.dom import DOMNode

from raidtop.config import Config
from raidtop.live.state import LiveState

if TYPE_CHECKING:  # each is imported by the screens and apps that use it, not by every screen
    from raidtop.actions.lab.core import Lab
    from raidtop.actions.lab.members import LabMemberActions
    from raidtop.collect.sampler import Sampler
    from raidtop.fleet.model import FleetReading
    from raidtop.live.latency_feed import LatencyFeed


@runtime_checkable
class ScreenHost(Protocol):
    """The app's side that screens use: its config, live state, sampler, lab, latency feed, and two requests."""

    config: Config
    live: LiveState
    sampler: Sampler
    lab: Lab | None
    lab_actions: LabMemberActions | None
    latency: LatencyFeed

    @property
    def player(self) -> object | None:
        """The replay player, None unless a recording is played."""

    def sample_now(self) -> None:
        """Take a sample now (something changed what a sample reads, or the system)."""

    def note_action(self, kind: str, command: str) -> None:
        """Mark a change to the system in the recording, if one runs."""


def screen_host(node: DOMNode) -> ScreenHost:
    """``node.app`` as a :class:`ScreenHost`.

    Screens always run inside RaidtopApp (tests included); anything else is a
    programming error, said plainly instead of an AttributeError later.
    """
    app = node.app
    # Looked up statically: isinstance() on a runtime protocol reads every member, and
    # reading ``sampler`` would make the sampler on the UI thread before the first frame.
    if any(getattr_static(app, member, _MISSING) is _MISSING for member in _HOST_MEMBERS):
        raise TypeError(f"{type(node).__name__} runs inside {type(app).__name__}, not raidtop's app")
    return cast(ScreenHost, app)


_MISSING = object()
_HOST_MEMBERS = (*ScreenHost.__annotations__, *(name for name in vars(ScreenHost) if not name.startswith("_")))


class FleetHost(Protocol):
    """The fleet app, as the fleet screen sees it: the newest reading of every host, and a way to ask for one."""

    @property
    def reading(self) -> FleetReading | None:
        """The newest reading, None before the first."""

    def refresh_now(self) -> None:
        """Read every host again now."""


def fleet_host(node: DOMNode) -> FleetHost:
    """``node.app`` as a :class:`FleetHost` (:mod:`raidtop.app.offers` proves FleetApp is one)."""
    return cast(FleetHost, node.app)
