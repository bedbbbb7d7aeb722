"""Every PromQL expression raidtop ships: the alert rules, the Grafana dashboard, the fleet view."""

from __future__ import annotations

import json
import re
from pathlib import Path

from raidtop.fleet.prometheus import QUERIES

REPO = Path(__file__).resolve().parents[2]
RULES = REPO / "deploy" / "prometheus" / "raidtop-alerts.yml"
DASHBOARD = REPO / "deploy" / "grafana" / "raidtop-dashboard.json"


def rule_expressions(text: str | None = None) -> dict[str, str]:
    """alert name -> expr, read from the rules file (one-line ``expr:`` or a folded ``>-`` block)."""
    lines = (text if text is not None else RULES.read_text()).splitlines()
    found, name = {}, None
    for i, line in enumerate(lines):
        m = re.match(r"\s*- alert: (\w+)", line)
        if m:
            name = m.group(1)
        m = re.match(r"(\s*)expr: (.*)", line)
        if m and name:
            if m.group(2).strip() in (">-", ">", "|"):
                indent, body = len(m.group(1)), []
                for more in lines[i + 1 :]:
                    if more.strip() and len(more) - len(more.lstrip()) <= indent:
                        break
                    body.append(more.strip())
                found[name] = " ".join(b for b in body if b)
            else:
                found[name] = m.group(2).strip()
    return found


def dashboard_expressions(host: str = ".*") -> dict[str, str]:
    """``panel title #refId`` -> expr with the ``$host`` variable set to ``host``."""
    doc = json.loads(DASHBOARD.read_text())
    out = {}
    for panel in doc["panels"]:
        for target in panel.get("targets", []):
            out[f"{panel['title']} #{target['refId']}"] = target["expr"].replace("$host", host)
    return out


def fleet_expressions() -> dict[str, str]:
    """The fleet view's queries."""
    return {f"fleet #{i}": q for i, q in enumerate(QUERIES)}
