"""Turning numbers into the short strings panels show (no I/O, no Textual)."""

from __future__ import annotations

from collections.abc import Sequence

from raidtop.model.units import DASH, DURATION_UNITS, size

__all__ = [
    "DASH",
    "DURATION_UNITS",
    "fmt_iops",
    "fmt_lat",
    "fmt_mib",
    "fmt_pct",
    "kib",
    "level_bar",
    "num",
    "sparkline",
]
_SPARK = "▁▂▃▄▅▆▇█"


def num(value: float | int | None, decimals: int = 2) -> str:
    """A rate as iostat prints it, or an em dash when it is undefined."""
    if value is None:
        return DASH
    if isinstance(value, int):
        return str(value)
    if abs(value) >= 10**7:
        return f"{value:.3g}"
    return f"{value:.{decimals}f}"


def kib(value: float | int | None) -> str:
    """A size given in KiB, as a cell shows it (:func:`raidtop.model.units.size`): ``512K``, ``1.5G``."""
    return size(None if value is None else value * 1024)


def sparkline(values: Sequence[float], width: int) -> str:
    """Block characters for the last ``width`` values, scaled to their maximum."""
    tail = values[-width:]
    peak = max(tail, default=0.0)
    if peak <= 0:
        return _SPARK[0] * len(tail) if tail else ""
    top = len(_SPARK) - 1
    return "".join(_SPARK[min(top, int(v / peak * top + 0.5))] if v > 0 else " " for v in tail)


def level_bar(value: float | None) -> str:
    """One block character whose height shows 0–100 %."""
    if value is None:
        return " "
    top = len(_SPARK) - 1
    return _SPARK[max(0, min(top, int(value / 100.0 * top + 0.5)))]


def fmt_iops(value: float | None) -> str:
    """I/O operations per second, short: ``912``, ``31.2k``, ``1.24M``."""
    if value is None:
        return DASH
    if value < 10_000:
        return f"{value:,.0f}"
    if value < 1_000_000:
        return f"{value / 1e3:.1f}k"
    return f"{value / 1e6:.2f}M"


def fmt_mib(value: float | None) -> str:
    """MiB/s with three significant digits."""
    if value is None:
        return DASH
    if value < 10:
        return f"{value:.2f}"
    if value < 1000:
        return f"{value:.1f}"
    return f"{value:,.0f}"


def fmt_lat(us: float | None) -> str:
    """A latency in the unit that keeps it short: ``412µs``, ``1.93ms``, ``2.01s``."""
    if us is None:
        return DASH
    if us < 1000:
        return f"{us:.0f}µs"
    if us < 10_000:
        return f"{us / 1e3:.2f}ms"
    if us < 1_000_000:
        return f"{us / 1e3:.1f}ms"
    return f"{us / 1e6:.2f}s"


def fmt_pct(pct: float | None) -> str:
    """A signed change, ``+4.1%``; empty when undefined."""
    return "" if pct is None else f"{pct:+.1f}%"
