"""A member's latency over one interval, summarised from its histogram: what the member grid shows."""

from __future__ import annotations


from raidtop.model.frozen import frozen_dataclass
from raidtop.latency.histogram import Log2Histogram, percentile


@frozen_dataclass
class MemberLatency:
    """One device's block request latency (issue → complete) over an interval, in milliseconds.

    ``p50_ms`` and ``p99_ms`` are estimated inside their log2 bucket (off by at
    most the bucket's width); ``max_ms`` is the upper bound of the highest
    non-empty bucket, so the slowest request took at most that and more than half of it.
    """

    requests: int
    p50_ms: float | None
    p99_ms: float | None
    max_ms: float | None


def summarize(hist: Log2Histogram) -> MemberLatency:
    """p50, p99 and max of a histogram in microseconds (bpftrace's unit), as milliseconds."""
    p50, p99, top = percentile(hist, 50), percentile(hist, 99), hist.max_bound
    return MemberLatency(
        requests=hist.total,
        p50_ms=None if p50 is None else p50 / 1000,
        p99_ms=None if p99 is None else p99 / 1000,
        max_ms=None if top is None else top / 1000,
    )


@frozen_dataclass
class Interval:
    """One interval's histogram of a device, stamped with when it ended (seconds, the app's clock)."""

    time: float
    hist: Log2Histogram
