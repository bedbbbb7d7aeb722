"""Log2 histograms from ``bpftrace -f json`` and percentiles from their buckets.

A log2 histogram keeps counts per power-of-two bucket, so a percentile is known
only to lie inside one bucket ``[low, high]``. :func:`percentile_bucket` returns that
bucket (a statement that is always true); :func:`percentile` interpolates inside
it, which can be off by up to the bucket's width (a factor of two), never more.
The exact nearest-rank percentile of the samples always lies in the bucket
(tests/latency/test_latency_histogram.py checks both with hypothesis).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

MAX_BUCKETS = 128
MAX_KEYS = 4096
MAX_VALUE = 2**63


@dataclass(frozen=True, slots=True)
class Bucket:
    """``count`` samples with ``low <= value <= high`` (bpftrace's inclusive min/max)."""

    low: int
    high: int
    count: int


@dataclass(frozen=True, slots=True)
class Log2Histogram:
    """One histogram's non-negative buckets, ascending."""

    buckets: tuple[Bucket, ...]

    @property
    def total(self) -> int:
        """How many samples it holds."""
        return sum(b.count for b in self.buckets)

    @property
    def max_bound(self) -> int | None:
        """The upper bound of the highest non-empty bucket: the largest sample is at most this."""
        filled = [b for b in self.buckets if b.count]
        return filled[-1].high if filled else None


def delta(newer: Log2Histogram, older: Log2Histogram | None) -> Log2Histogram:
    """What ``newer`` (cumulative) gained since ``older``; ``newer`` itself when a count went down
    (bpftrace restarted)."""
    if older is None:
        return newer
    before = {(b.low, b.high): b.count for b in older.buckets}
    out = []
    for b in newer.buckets:
        gained = b.count - before.get((b.low, b.high), 0)
        if gained < 0:
            return newer
        out.append(Bucket(b.low, b.high, gained))
    return Log2Histogram(tuple(out))


def log2_bucket(value: int) -> tuple[int, int]:
    """The bucket bpftrace's ``hist()`` puts ``value`` (≥ 0) in: [0,0], [1,1], [2,3], [4,7], ..."""
    if value < 2:
        return value, value
    low = 1 << (value.bit_length() - 1)
    return low, 2 * low - 1


def from_values(values: list[int]) -> Log2Histogram:
    """The histogram bpftrace would build from ``values`` (for tests and the demo)."""
    counts: dict[tuple[int, int], int] = {}
    for v in values:
        key = log2_bucket(v)
        counts[key] = counts.get(key, 0) + 1
    return Log2Histogram(tuple(Bucket(lo, hi, n) for (lo, hi), n in sorted(counts.items())))


def _locate(hist: Log2Histogram, q: float) -> tuple[Bucket, int, int] | None:
    """(the bucket holding the nearest-rank ``q``-th percentile, samples below it, the rank)."""
    total = hist.total
    if total == 0 or not 0 < q <= 100:
        return None
    rank = max(1, math.ceil(q / 100 * total))
    seen = 0
    for b in hist.buckets:
        if seen + b.count >= rank:
            return b, seen, rank
        seen += b.count
    return None


def percentile_bucket(hist: Log2Histogram, q: float) -> Bucket | None:
    """The bucket holding the nearest-rank ``q``-th percentile (0 < q ≤ 100); ``None`` when empty."""
    found = _locate(hist, q)
    return None if found is None else found[0]


def percentile(hist: Log2Histogram, q: float) -> float | None:
    """An estimate of the ``q``-th percentile: linear inside its bucket by rank."""
    found = _locate(hist, q)
    if found is None:
        return None
    b, seen, rank = found
    return b.low + (rank - seen) / b.count * (b.high - b.low)


def parse_hist_message(text: str) -> dict[str, Log2Histogram]:
    """``{"type": "hist", "data": {"@map": [...] | {key: [...]}}}`` → key → histogram.

    Keys of a keyed map are its keys as text; an unkeyed map is under its own name.
    Negative buckets (``{"max": -1}``) are left out: latencies are never negative.
    Anything else (another message type, bad numbers, too many keys or buckets) gives ``{}``.
    """
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError):
        return {}
    if not isinstance(doc, dict) or doc.get("type") != "hist" or not isinstance(doc.get("data"), dict):
        return {}
    out: dict[str, Log2Histogram] = {}
    for name, value in list(doc["data"].items())[:MAX_KEYS]:
        if isinstance(value, list):
            hist = _buckets(value)
            if hist is not None:
                out[str(name)[:64]] = hist
        elif isinstance(value, dict):
            for key, rows in list(value.items())[:MAX_KEYS]:
                hist = _buckets(rows)
                if hist is not None:
                    out[str(key)[:64]] = hist
    return out


def _buckets(rows: Any) -> Log2Histogram | None:
    if not isinstance(rows, list) or len(rows) > MAX_BUCKETS:
        return None
    buckets = []
    for row in rows:
        if not isinstance(row, dict):
            return None
        low, high, count = row.get("min"), row.get("max"), row.get("count")
        if low is None and isinstance(high, int) and high < 0:
            continue  # the negative bucket
        if not (isinstance(low, int) and isinstance(high, int) and isinstance(count, int)):
            return None
        if any(isinstance(x, bool) for x in (low, high, count)):
            return None
        if not (0 <= low <= high < MAX_VALUE and 0 <= count < MAX_VALUE):
            return None
        buckets.append(Bucket(low, high, count))
    buckets.sort(key=lambda b: b.low)
    return Log2Histogram(tuple(buckets))
