"""The command palette finds arrays, members and disks and opens their detail, SMART or Explain screen.

An app-level :class:`~textual.command.Provider`, so Ctrl+P finds them from
every screen. It reads only the app's live state (the latest snapshot): no I/O.
Everything it shows comes from the system, so it is built as literal
``Content`` (Textual's own ``Matcher.highlight`` and help lines parse markup:
a serial of ``[bold]`` would have been read as a style).
"""

from __future__ import annotations

from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Matcher, Provider
from textual.content import Content
from textual.markup import escape
from textual.screen import Screen

from raidtop.model.snapshot import Snapshot
from raidtop.presentation.find import Findable, findables
from raidtop.screens.host import screen_host

URGENT_BOOST = 1.25
"""How much higher a degraded or failed array's hits (and a faulty member's) score than their match."""


def ranked(score: float, urgent: bool) -> float:
    """The palette's score: an urgent hit above every plain hit that matches as well (Textual's fuzzy
    scores are not bounded to 1: they grow with the letters matched, at word starts, in one run).

    A plain hit keeps the matcher's score, so it competes with the palette's key commands on equal terms.
    """
    return score * URGENT_BOOST if urgent else score


class FindProvider(Provider):
    """Every array, member and disk of the latest snapshot, found by any of its names."""

    async def search(self, query: str) -> Hits:
        snap = screen_host(self.app).live.latest
        if snap is None:
            return
        matcher = self.matcher(query)
        for found in findables(snap):
            score = matcher.match(found.text)
            if score > 0:
                yield Hit(
                    ranked(score, found.urgent),
                    _highlighted(matcher, found.text),
                    partial(self._open, found),
                    text=found.text,
                    help=escape(found.says),
                )

    async def discover(self) -> Hits:
        snap = screen_host(self.app).live.latest
        if snap is None:
            return
        # Before anything is typed: each array's detail, urgent ones first (findables' order), then each disk's SMART.
        for found in findables(snap):
            if found.kind != "member" and found.opens != "explain":
                yield DiscoveryHit(
                    Content(found.text), partial(self._open, found), text=found.text, help=escape(found.says)
                )

    def _open(self, found: Findable) -> None:
        snap = screen_host(self.app).live.latest
        screen = opened_screen(found, snap) if snap is not None else None
        if screen is None:
            self.app.notify(f"{found.name} is no longer in the latest sample", severity="warning", timeout=5)
            return
        self.app.push_screen(screen)


def opened_screen(found: Findable, snap: Snapshot) -> Screen[None] | None:
    """The screen ``found`` opens, built from ``snap``; ``None`` when there is nothing to show any more."""
    if found.opens == "detail":
        from raidtop.screens.array_detail import ArrayDetailScreen

        return ArrayDetailScreen(found.target)
    if found.opens == "smart":
        from raidtop.screens.smart import SmartScreen

        return SmartScreen(found.target)
    from raidtop.screens.explain import ExplainScreen, explanation_for

    row = {"array": ("arrays", "array-table"), "member": ("members", "member-table"), "disk": ("disks", "disk-table")}
    panel, table = row[found.kind]
    build = explanation_for(panel, table, found.target)
    explanation = build(snap) if build is not None else None
    return ExplainScreen(explanation, build, snap.time) if explanation is not None else None


def _highlighted(matcher: Matcher, text: str) -> Content:
    """``text`` as literal content, the letters the query matched in the palette's match style."""
    shown = Content(text)
    score, offsets = matcher.fuzzy_search.match(matcher.query, text)
    if not score:
        return shown
    for offset in offsets:
        if not text[offset].isspace():
            shown = shown.stylize(matcher.match_style, offset, offset + 1)
    return shown
