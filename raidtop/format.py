"""Turning numbers into the short strings panels show (no I/O, no Textual)."""

from __future__ import annotations

DASH = "—"
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
    """A size given in KiB, scaled to the largest unit that keeps it short."""
    if value is None:
        return DASH
    size = float(value)
    for unit in ("K", "M", "G", "T", "P"):
        if abs(size) < 1024 or unit == "P":
            return f"{size:.0f}{unit}" if unit == "K" else f"{size:.1f}{unit}"
        size /= 1024
    return DASH  # unreachable: the loop returns at "P"


def sparkline(values: list[float], width: int) -> str:
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
