"""What the array detail's latency heat map shows: which member, its siblings' p99, or why there is no map."""

from __future__ import annotations

from raidtop.latency.summary import MemberLatency
from raidtop.live.latency_history import LatencyHistory
from raidtop.model.md import MdArray
from raidtop.model.units import micros
from raidtop.untrusted import plain
from raidtop.widgets.latency_heat_map import HeatView

STARTING = "bpftrace is starting (it attaches two block tracepoints; the first interval follows)"


def shown_member(array: MdArray, history: LatencyHistory, chosen: str | None) -> str | None:
    """The member the map shows: the one chosen with the key, else the one slowest at p99 in the last interval.

    The slowest by default because the map answers "which leg is slow, since when": the
    member worth a look comes up first, the key walks to its siblings to compare.
    """
    names = [m.name for m in array.members]
    if chosen in names:
        return chosen
    latest = history.latest or {}
    ranked = [(latest[n].p99_ms or 0.0, n) for n in names if n in latest]
    if ranked and max(ranked)[0] > 0:
        return max(ranked)[1]
    return names[0] if names else None


def heat_view(
    array: MdArray, history: LatencyHistory, unavailable: str | None, chosen: str | None, interval_s: float
) -> HeatView:
    """The heat map's view of ``array``: the shown member's intervals with a heading, or why there are none."""
    if unavailable is not None:
        return HeatView(why_none=f"No latency heat map: {unavailable}.")
    member = shown_member(array, history, chosen)
    if member is None:
        return HeatView(why_none="No latency heat map: the array has no member devices.")
    series = history.series(member)
    if not series and not history.sampling:
        return HeatView(why_none=STARTING)
    latest = history.latest or {}
    siblings = "  ".join(f"{plain(m.name)} {_p99(latest.get(m.name))}" for m in array.members)
    heading = f"{plain(member)} ▸  p99 now: {siblings}"
    now = max((history.series(m.name)[-1].time for m in array.members if history.series(m.name)), default=0.0)
    return HeatView(heading=heading, series=series, now=now, interval_s=interval_s)


def _p99(latency: MemberLatency | None) -> str:
    return micros(None if latency is None or latency.p99_ms is None else latency.p99_ms * 1000)
