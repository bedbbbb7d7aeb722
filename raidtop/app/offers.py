"""mypy's proof that the apps offer their screens what :mod:`raidtop.screens.app_offers` says.

Screens cannot import the app (it is above them), so they name a protocol;
these functions type-check only while each app still satisfies its protocol.
"""

from __future__ import annotations

from raidtop.app.fleet_app import FleetApp
from raidtop.app.raidtop_app import RaidtopApp
from raidtop.screens.app_offers import FleetViewApp, SamplingApp


def raidtop_app_offers(app: RaidtopApp) -> SamplingApp:
    """The raidtop app, as its screens see it."""
    return app


def fleet_app_offers(app: FleetApp) -> FleetViewApp:
    """The fleet app, as the fleet screens see it."""
    return app
