"""The readiness audit's family: one series per array and finding kind (issue 28).

Kept apart from :mod:`raidtop.exporter.metrics` so each block has one owner.
Every array gets every kind, 0 when the rule did not match, so an alert
resolves when the finding goes and a dashboard can tell "checked, fine" from
"not exported". The alert rules MdAuditCritical and MdBadBlocks read it
(deploy/prometheus/raidtop-alerts.yml).
"""

from __future__ import annotations

from collections.abc import Iterable

from prometheus_client.core import GaugeMetricFamily, Metric

from raidtop.audit.model import Finding
from raidtop.audit.rules import RULES


def audit_families(arrays: Iterable[str], findings: Iterable[Finding]) -> list[Metric]:
    """raidtop_audit_findings{array, kind, severity}: how many times the rule matched (members or 1)."""
    family = GaugeMetricFamily(
        "raidtop_audit_findings",
        "Findings of raidtop's rebuild-readiness audit (raidtop audit), per array and rule (kind); "
        "severity is the rule's (info, warning, critical). 0: checked, not found.",
        labels=["array", "kind", "severity"],
    )
    counts: dict[tuple[str, str], int] = {}
    for f in findings:
        counts[(f.array, f.rule)] = counts.get((f.array, f.rule), 0) + 1
    for array in arrays:
        for rule in RULES.values():
            family.add_metric([array, rule.id, rule.severity], float(counts.get((array, rule.id), 0)))
    return [family]
