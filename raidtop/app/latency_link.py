"""The app's latency feed, wired so the tracer's thread reaches the app only by posting its messages."""

from __future__ import annotations

from textual.app import App

from raidtop.app.messages import LatencySaid, LatencySampled
from raidtop.config import Config
from raidtop.live.latency_feed import LatencyFeed, not_live


def latency_feed(app: App[None], config: Config, demo: bool) -> LatencyFeed:
    """One tracer for every latency view (member grid, array detail), on this machine's live numbers only."""
    return LatencyFeed(
        not_live(config, demo),
        config.interval,
        lambda hists: app.post_message(LatencySampled(hists)),
        lambda text, warning: app.post_message(LatencySaid(text, warning)),
    )
