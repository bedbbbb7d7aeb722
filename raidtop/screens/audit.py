"""The Audit screen: will the next rebuild succeed? Each array's findings, worst first.

The findings come from :class:`raidtop.audit.periodic.PeriodicAudit` in a
thread worker (its facts are sysfs reads), started when the screen opens and
again with each snapshot while it is open; nothing runs while it is closed.
Every text (member names, evidence read from sysfs) is shown as text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Static

from raidtop.screens.host import screen_host
from raidtop.audit.model import Finding
from raidtop.model.snapshot import Snapshot
from raidtop.widgets.panel import Panel
from raidtop.widgets.shown_text import content
from raidtop.widgets.text_table import Column, Row, TextTable
from raidtop.model.units import counted

if TYPE_CHECKING:
    from raidtop.audit.periodic import PeriodicAudit

_TONES = {"critical": "crit", "warning": "warn", "info": "dim"}
COLUMNS = [
    Column("sev", "Severity", 9, "left"),
    Column("array", "Array", 8, "left"),
    Column("member", "Member", 10, "left"),
    Column("text", "Finding · evidence · fix · source", 110, "left"),
]


def finding_rows(findings: tuple[Finding, ...]) -> list[Row]:
    """One row per finding, then its evidence, fix and source on rows of their own."""
    rows: list[Row] = []
    for i, f in enumerate(findings):
        tone = _TONES.get(f.severity)
        rows.append(
            Row(f"{i}", (f.severity.upper(), f.array, f.member or "", f"{f.text} [{f.rule}]"), (tone, None, None, tone))
        )
        for j, line in enumerate(f.evidence):
            rows.append(Row(f"{i}/e{j}", ("", "", "", f"  {line}"), (None, None, None, "dim")))
        if f.fix:
            rows.append(Row(f"{i}/fix", ("", "", "", f"  fix: {f.fix}"), (None, None, None, "accent")))
        rows.append(Row(f"{i}/src", ("", "", "", f"  source: {f.source}"), (None, None, None, "dim")))
    return rows


class AuditScreen(Screen[None]):
    """Rebuild readiness: every audit finding of every array, with its evidence and fix."""

    BINDINGS = [
        Binding("escape,q,u", "app.pop_screen", "Back", id="audit-back", tooltip="Return to the dashboard"),
    ]
    DEFAULT_CSS = """
    AuditScreen #audit-title { height: 1; background: $panel; color: $text-primary; text-style: bold; }
    AuditScreen #audit-panel { height: 1fr; }
    """

    class Ready(Message):
        """The worker's findings for one snapshot."""

        def __init__(self, findings: tuple[Finding, ...], notes: tuple[str, ...]) -> None:
            super().__init__()
            self.findings = findings
            self.notes = notes

    def __init__(self) -> None:
        super().__init__()
        self._audit: PeriodicAudit | None = None

    def compose(self) -> ComposeResult:
        yield Static(content(" Audit: will the next rebuild succeed?"), id="audit-title")
        panel = Panel(id="audit-panel")
        panel.border_title = "Findings per array, worst first (raidtop audit; README: Audit)"
        with panel:
            yield TextTable(COLUMNS, id="audit-table")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(TextTable)
        table.set_rows([], "auditing…")
        table.focus()
        snap = screen_host(self).live.latest
        if snap is not None:
            self.apply_snapshot(snap)

    def apply_snapshot(self, snap: Snapshot) -> None:
        """Audit the newest snapshot off the UI thread."""
        if self._audit is None:
            from raidtop.audit.periodic import PeriodicAudit
            from raidtop.collect.source import as_root

            root = getattr(getattr(self.app, "sampler", None), "root", None)
            self._audit = PeriodicAudit(root if root is not None else as_root(screen_host(self).config.root))
        self._run(self._audit, snap)

    @work(thread=True, exclusive=True, exit_on_error=False, group="audit")
    def _run(self, audit: PeriodicAudit, snap: Snapshot) -> None:
        findings = audit(snap)
        self.post_message(self.Ready(findings, audit.notes))

    @on(Ready)
    def _show(self, message: Ready) -> None:
        table = self.query_one(TextTable)
        empty = "no findings" + (f" ({'; '.join(message.notes)})" if message.notes else "")
        table.set_rows(finding_rows(message.findings), empty)
        worst = max(message.findings, key=lambda f: f.rank).severity if message.findings else None
        counts = counted(len(message.findings), "finding")
        self.query_one("#audit-title", Static).update(
            content(f" Audit: will the next rebuild succeed?  {counts}" + (f", worst {worst}" if worst else ""))
        )
