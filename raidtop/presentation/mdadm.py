"""How mdadm's view of an array is described in the detail screen (pure; no I/O)."""

from __future__ import annotations

import time

from raidtop.model.mdadm import NEEDS_MDADM, MdadmDetail


def _when(stamp: int | None) -> str:
    return "—" if stamp is None else time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(stamp))


def mdadm_pairs(detail: MdadmDetail | None) -> list[tuple[str, str, str | None]]:
    """(label, value, tone) rows for the detail screen's mdadm section."""
    if detail is None:
        return [("mdadm", "reading (mdadm --detail, --examine)…", "dim")]
    if detail.unavailable is not None:
        return [
            ("mdadm", detail.unavailable, "dim"),
            ("", "needs mdadm: " + ", ".join(NEEDS_MDADM[:3]), "dim"),
            ("", ", ".join(NEEDS_MDADM[3:]), "dim"),
        ]
    pairs: list[tuple[str, str, str | None]] = [
        ("Name (mdadm)", detail.name or "—", None),
        ("UUID (mdadm)", detail.uuid or "—", None),
        ("Creation time", _when(detail.creation_time), None),
        ("Update time", _when(detail.update_time), None),
        ("Events", "—" if detail.events is None else str(detail.events), None),
    ]
    top = detail.events
    for m in detail.members:
        gap = top - m.events if top is not None and m.events is not None else 0
        behind = gap > 0
        events = "events ?" if m.events is None else f"events {m.events}" + (f" ({gap} behind)" if behind else "")
        pairs.append((f"  {m.name}", f"role {m.role or '?'} · {events}", "warn" if behind else None))
    return pairs
