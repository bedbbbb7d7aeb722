"""Prometheus families for who loads each array (``raidtop_md_cgroup_*``), from cgroup I/O accounting.

Cardinality is bounded: per array, the :data:`TOP_UNITS` busiest cgroups
of the interval (by member bytes read + written) each get a series, and the
rest are summed into ``cgroup="other"``; so at most arrays × (TOP_UNITS + 1)
series per family, whatever the host runs. A cgroup that drops out of the
top simply has no sample (its series goes stale), never a made-up 0.
Values are rates over raidtop's own sample interval (gauges), because the
set of series changes with the top list.
"""

from __future__ import annotations

from prometheus_client.core import GaugeMetricFamily, Metric

from raidtop.model.snapshot import Snapshot
from raidtop.presentation.processes import array_shares

TOP_UNITS = 5
"""Series per array and family, plus one ``other``."""
OTHER = "other"


def io_families(snapshot: Snapshot, top: int = TOP_UNITS) -> list[Metric]:
    """The attribution level, and each array's busiest cgroups' member read and write bytes per second."""
    io = snapshot.io
    if io is None:
        return []
    level = GaugeMetricFamily(
        "raidtop_io_attribution",
        "1 for the level of I/O attribution raidtop has (per device: cgroup accounting; totals: per process only).",
        labels=["level", "source"],
    )
    level.add_metric([io.level, io.source], 1.0)
    reads = GaugeMetricFamily(
        "raidtop_md_cgroup_read_bytes_per_second",
        "Bytes/s a cgroup read from the array's members (top cgroups per array, rest as other; "
        "cgroup=\"/\" is the root: md's own resync and kernel threads).",
        labels=["array", "cgroup"],
    )
    writes = GaugeMetricFamily(
        "raidtop_md_cgroup_write_bytes_per_second",
        "Bytes/s a cgroup wrote to the array's members (top cgroups per array, rest as other).",
        labels=["array", "cgroup"],
    )
    if io.by_device is not None:
        for array in snapshot.arrays:
            shares = array_shares(snapshot, array)
            for share in shares[:top]:
                reads.add_metric([array.name, share.unit], share.read_b_s)
                writes.add_metric([array.name, share.unit], share.write_b_s)
            rest = shares[top:]
            if rest:
                reads.add_metric([array.name, OTHER], sum(s.read_b_s for s in rest))
                writes.add_metric([array.name, OTHER], sum(s.write_b_s for s in rest))
    return [level, reads, writes]
