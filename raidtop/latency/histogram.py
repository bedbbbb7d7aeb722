"""Log2 histograms from ``bpftrace -f json`` and percentiles from their buckets.

A log2 histogram keeps counts per power-of-two bucket, so a percentile is known
only to lie inside one bucket ``[low, high]``. :func:`percentile_bucket` returns that
bucket (a statement that is always true); :func:`percentile` interpolates inside
it, which can be off by up to the bucket's width (a factor of two), never more.
The exact nearest-rank percentile of the samples always lies in the bucket
(tests/latency/test_latency_histogram.py checks both with hypothesis).

A factor of two is too coarse to tell a 25 ms disk from a 32 ms one, and a
tight distribution (a dm-delay leg: every request ~25 ms) is the worst case for
interpolation by rank (it answers ~32 ms). So raidtop's program also keeps three
histograms of the same latencies scaled by 2^(1/4), 2^(1/2) and 2^(3/4)
(:attr:`Log2Histogram.finer`). Scaling is monotone, so the same rank falls in a
bucket of each, and each bucket bounds the percentile; their intersection is a
quarter octave wide (19 %), and :func:`percentile` answers its middle: within
±10 % of the exact percentile, whatever the distribution.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from typing import Any
from raidtop.model.frozen import frozen_dataclass

MAX_BUCKETS = 128
MAX_KEYS = 4096
MAX_VALUE = 2**63


@frozen_dataclass
class Bucket:
    """``count`` samples with ``low <= value <= high`` (bpftrace's inclusive min/max)."""

    low: int
    high: int
    count: int


@frozen_dataclass
class Log2Histogram:
    """One histogram's non-negative buckets, ascending.

    ``finer`` holds, per scale in thousandths (1189 = 2^(1/4)), the histogram of the
    same samples each multiplied by it (and truncated): see the module's docstring.
    """

    buckets: tuple[Bucket, ...]
    finer: tuple[tuple[int, Log2Histogram], ...] = ()

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
    buckets = _gained(newer.buckets, older.buckets)
    if buckets is None:
        return newer
    before = dict(older.finer)
    finer = []
    for scale, hist in newer.finer:
        gained = _gained(hist.buckets, before[scale].buckets) if scale in before else hist.buckets
        if gained is not None:
            finer.append((scale, Log2Histogram(gained)))
    return Log2Histogram(buckets, tuple(finer))


def _gained(newer: tuple[Bucket, ...], older: tuple[Bucket, ...]) -> tuple[Bucket, ...] | None:
    before = {(b.low, b.high): b.count for b in older}
    out = []
    for b in newer:
        gained = b.count - before.get((b.low, b.high), 0)
        if gained < 0:
            return None
        out.append(Bucket(b.low, b.high, gained))
    return tuple(out)


def merged(hists: Iterable[Log2Histogram]) -> Log2Histogram:
    """The histograms as one, as if all their samples had been counted together: the counts of equal
    buckets summed, each finer scale with the same scale's of the others; empty for none.

    A scale missing from some of them is summed over the others: its total then differs from the
    main one's and :func:`percentile_bounds` leaves it out, unless the ones missing it were empty.
    """
    hists = list(hists)
    scales = sorted({scale for h in hists for scale, _ in h.finer})
    finer = tuple(
        (s, Log2Histogram(_summed([f.buckets for h in hists for scale, f in h.finer if scale == s]))) for s in scales
    )
    return Log2Histogram(_summed([h.buckets for h in hists]), finer)


def _summed(bucket_lists: list[tuple[Bucket, ...]]) -> tuple[Bucket, ...]:
    counts: dict[tuple[int, int], int] = {}
    for buckets in bucket_lists:
        for b in buckets:
            counts[(b.low, b.high)] = counts.get((b.low, b.high), 0) + b.count
    return tuple(Bucket(low, high, count) for (low, high), count in sorted(counts.items()))


def log2_bucket(value: int) -> tuple[int, int]:
    """The bucket bpftrace's ``hist()`` puts ``value`` (≥ 0) in: [0,0], [1,1], [2,3], [4,7], ..."""
    if value < 2:
        return value, value
    low = 1 << (value.bit_length() - 1)
    return low, 2 * low - 1


def from_values(values: list[int], scales: tuple[int, ...] = ()) -> Log2Histogram:
    """The histogram bpftrace would build from ``values`` (for tests and the demo), with the
    ``finer`` ones of ``scales`` (thousandths) as raidtop's program builds them."""
    counts: dict[tuple[int, int], int] = {}
    for v in values:
        key = log2_bucket(v)
        counts[key] = counts.get(key, 0) + 1
    buckets = tuple(Bucket(lo, hi, n) for (lo, hi), n in sorted(counts.items()))
    finer = tuple((scale, from_values([v * scale // 1000 for v in values])) for scale in scales)
    return Log2Histogram(buckets, finer)


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


def percentile_bounds(hist: Log2Histogram, q: float) -> tuple[float, float] | None:
    """``[low, high)`` holding the nearest-rank ``q``-th percentile: its bucket, narrowed by the finer histograms.

    A finer histogram whose total differs (a completion landed between two prints) says nothing and is left out.
    """
    found = _locate(hist, q)
    if found is None:
        return None
    low, high = float(found[0].low), float(found[0].high + 1)
    for scale, finer in hist.finer:
        if finer.total != hist.total or scale <= 0:
            continue
        located = _locate(finer, q)
        if located is None:
            continue
        # floor(v * scale / 1000) lies in [b.low, b.high], so v lies in [b.low, b.high + 1) * 1000 / scale.
        b = located[0]
        low, high = max(low, b.low * 1000 / scale), min(high, (b.high + 1) * 1000 / scale)
    return (low, high) if low < high else (float(found[0].low), float(found[0].high + 1))


def percentile(hist: Log2Histogram, q: float) -> float | None:
    """An estimate of the ``q``-th percentile: the middle of its bounds with finer histograms,
    else linear inside its bucket by rank."""
    found = _locate(hist, q)
    if found is None:
        return None
    b, seen, rank = found
    if hist.finer:
        bounds = percentile_bounds(hist, q)
        if bounds is not None:
            return min(max((bounds[0] + bounds[1]) / 2, b.low), b.high)
    return b.low + (rank - seen) / b.count * (b.high - b.low)


def parse_hist_message(text: str) -> dict[str, Log2Histogram]:
    """``{"type": "hist", "data": {"@map": [...] | {key: [...]}}}`` → key → histogram.

    Keys of a keyed map are its keys as text; an unkeyed map is under its own name.
    Negative buckets (``{"max": -1}``) are left out: latencies are never negative.
    Anything else (another message type, bad numbers, too many keys or buckets) gives ``{}``.
    """
    out: dict[str, Log2Histogram] = {}
    for keyed in parse_hist_maps(text).values():
        out.update(keyed)
    return out


def parse_hist_maps(text: str) -> dict[str, dict[str, Log2Histogram]]:
    """Like :func:`parse_hist_message`, by map name: ``{"@us": {key: histogram}}``."""
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError):
        return {}
    if not isinstance(doc, dict) or doc.get("type") != "hist" or not isinstance(doc.get("data"), dict):
        return {}
    out: dict[str, dict[str, Log2Histogram]] = {}
    for name, value in list(doc["data"].items())[:MAX_KEYS]:
        keyed = out.setdefault(str(name)[:64], {})
        if isinstance(value, list):
            hist = _buckets(value)
            if hist is not None:
                keyed[str(name)[:64]] = hist
        elif isinstance(value, dict):
            for key, rows in list(value.items())[:MAX_KEYS]:
                hist = _buckets(rows)
                if hist is not None:
                    keyed[str(key)[:64]] = hist
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
