"""mypy's proof that the apps offer their screens what :mod:`raidtop.screens.host` says.

Screens cannot import the app (it is above them), so they name a protocol;
these functions type-check only while each app still satisfies its protocol.
"""

from __future__ import annotations

from raidtop.app.fleet_app import FleetApp
from raidtop.app.raidtop_app import RaidtopApp
from raidtop.screens.host import FleetHost, ScreenHost


def raidtop_app_offers(app: RaidtopApp) -> ScreenHost:
    """The raidtop app, as its screens see it."""
    return app


def fleet_app_offers(app: FleetApp) -> FleetHost:
    """The fleet app, as the fleet screen sees it."""
    return app
