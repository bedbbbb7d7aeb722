"""The running RaidtopApp, typed, for screens and widgets that call into it."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # raidtop.app.raidtop_app imports the screens: a runtime import here would be circular
    from textual.dom import DOMNode

    from raidtop.app.raidtop_app import RaidtopApp


def raidtop_app(node: DOMNode) -> RaidtopApp:
    """``node.app`` as a RaidtopApp, so its config, dashboard and lab are typed attributes.

    Screens always run inside RaidtopApp (tests included); anything else is a
    programming error, said plainly instead of an AttributeError later.
    """
    from raidtop.app.raidtop_app import RaidtopApp

    app = node.app
    if not isinstance(app, RaidtopApp):
        raise TypeError(f"{type(node).__name__} runs inside {type(app).__name__}, not RaidtopApp")
    return app
