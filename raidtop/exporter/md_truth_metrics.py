"""Issue 23's md families: a stalled sync, since when an array is degraded, slots empty by design.

Kept apart from :mod:`raidtop.exporter.metrics` so each block has one owner;
the alert rules MdSyncStalled and MdArrayDegraded read them
(deploy/prometheus/raidtop-alerts.yml).
"""

from __future__ import annotations

from prometheus_client.core import GaugeMetricFamily, Metric

from raidtop.model.snapshot import Snapshot


def md_truth_families(snapshot: Snapshot) -> list[Metric]:
    """raidtop_md_sync_stalled, raidtop_md_degraded_since_seconds and raidtop_md_sparse_by_design."""
    a = ["array"]
    stalled = GaugeMetricFamily(
        "raidtop_md_sync_stalled",
        "1 while a running sync's completed count has not moved for raidtop's stall threshold "
        "(60 s with /proc/mdstat) and no limit of 0, frozen sync or read-only array explains it.",
        labels=a,
    )
    since = GaugeMetricFamily(
        "raidtop_md_degraded_since_seconds",
        "Unix time the array lost redundancy, as raidtop saw it (or raidtop's start when already so); "
        "absent while whole.",
        labels=a,
    )
    sparse = GaugeMetricFamily(
        "raidtop_md_sparse_by_design",
        "1 for a mirror whose empty slots are configuration (QNAP [24/4]): raidtop_md_degraded_disks "
        "counts them, but no copy is missing.",
        labels=a,
    )
    for array in snapshot.arrays:
        sync = array.sync
        if sync is not None and sync.running:
            stalled.add_metric([array.name], 1.0 if sync.stalled else 0.0)
        if array.degraded_since is not None:
            since.add_metric([array.name], array.degraded_since)
        sparse.add_metric([array.name], 1.0 if array.sparse_by_design else 0.0)
    return [stalled, since, sparse]
