"""Per-member latency distributions as the member grid shows and judges them.

The columns are declared once here (:data:`LATENCY_FIELDS`, the same
:class:`~raidtop.presentation.disk_fields.DiskField` shape as the iostat
columns, keyed by :class:`~raidtop.latency.summary.MemberLatency`'s
attributes). :func:`slow_members_judged` marks a member slow from its p99 when
the siblings' distributions are known, and from the average await otherwise,
and says which basis it used.
"""

from __future__ import annotations

from collections.abc import Mapping

from raidtop.latency.summary import MemberLatency
from raidtop.model.md import MdArray
from raidtop.presentation.disk_fields import DiskField
from raidtop.presentation.md import SLOW_FACTOR, SLOW_FLOOR_MS, MemberWaits, median, slow_members

LATENCY_FIELDS: dict[str, DiskField] = {
    f.key: f
    for f in (
        DiskField("p50_ms", "p50", 7, "ms", warn=50.0, crit=500.0),
        DiskField("p99_ms", "p99", 7, "ms", warn=50.0, crit=500.0),
        DiskField("max_ms", "max", 7, "ms", warn=500.0, crit=5000.0),
    )
}
"""The member grid's latency columns (milliseconds, issue → complete); the same thresholds as await."""
MIN_REQUESTS = 20
"""Fewer requests in an interval than this make no p99 worth comparing (one request is its own p99)."""
BASIS_P99 = "p99"
BASIS_AWAIT = "await"
BASIS_WORDS = {
    BASIS_P99: "slow = p99 latency > 3× the siblings' median (bpftrace)",
    BASIS_AWAIT: "slow = average await > 3× the siblings' median (no latency distribution)",
}
"""What the slow mark means on each basis, for the grid's subtitle and Explain."""


def slow_members_judged(
    array: MdArray, disks: Mapping[str, MemberWaits], latencies: Mapping[str, MemberLatency]
) -> tuple[set[str], str]:
    """The array's slow members and the basis (:data:`BASIS_P99` or :data:`BASIS_AWAIT`).

    The distribution is the basis when at least two working members have one
    with :data:`MIN_REQUESTS` or more; a member is then slow when its p99 is
    at least :data:`SLOW_FLOOR_MS` and more than :data:`SLOW_FACTOR` times its
    siblings' median p99 — the tail a slow disk drags, which an average hides.
    """
    p99s = {
        m.name: lat.p99_ms
        for m in array.members
        if not m.is_faulty
        and (lat := latencies.get(m.name)) is not None
        and lat.requests >= MIN_REQUESTS
        and lat.p99_ms is not None
    }
    if len(p99s) < 2:
        return slow_members(array, disks), BASIS_AWAIT
    slow = set()
    for name, p99 in p99s.items():
        typical = median(v for other, v in p99s.items() if other != name)
        if p99 >= SLOW_FLOOR_MS and p99 > SLOW_FACTOR * max(typical, 1.0):
            slow.add(name)
    return slow, BASIS_P99
