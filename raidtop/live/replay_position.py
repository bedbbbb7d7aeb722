"""Replay position and speed, and parsing of "jump to" input (no Textual, no I/O)."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

from raidtop.model.units import parse_duration

SPEEDS = (1.0, 2.0, 5.0, 10.0, 30.0, 60.0)


@dataclass
class ReplayPosition:
    """Where a replay is and how it moves."""

    index: int = 0
    playing: bool = True
    speed: float = 1.0

    def faster(self) -> None:
        """Next speed step up (1×, 2×, 5×, 10×, 30×, 60×)."""
        self.speed = next((s for s in SPEEDS if s > self.speed), SPEEDS[-1])

    def slower(self) -> None:
        """Next speed step down."""
        self.speed = next((s for s in reversed(SPEEDS) if s < self.speed), SPEEDS[0])


def parse_jump(text: str, start: float, end: float, current: float) -> float | None:
    """A time to jump to from what a user typed, or ``None`` if it makes no sense.

    Accepts ``+30s``/``-2m``/``+1h`` (relative), ``50%`` (of the recording),
    ``HH:MM[:SS]`` (clock time on the recording's day) and ``90`` or ``5m``
    (from the start); durations in :func:`~raidtop.model.units.parse_duration`'s
    grammar, the one ``--duration`` takes.
    """
    text = text.strip()
    if text[:1] in ("+", "-"):
        seconds = parse_duration(text[1:])
        if seconds is None:
            return None
        return _clamp(current + (seconds if text[0] == "+" else -seconds), start, end)
    match = re.fullmatch(r"(\d+(?:\.\d+)?)%", text)
    if match:
        return _clamp(start + (end - start) * float(match.group(1)) / 100.0, start, end)
    match = re.fullmatch(r"(\d{1,2}):(\d{2})(?::(\d{2}))?", text)
    if match:
        day = time.localtime(start)
        target = time.mktime(
            (
                day.tm_year,
                day.tm_mon,
                day.tm_mday,
                int(match.group(1)),
                int(match.group(2)),
                int(match.group(3) or 0),
                0,
                0,
                -1,
            )
        )
        return _clamp(target, start, end)
    seconds = parse_duration(text)
    return None if seconds is None else _clamp(start + seconds, start, end)


def _clamp(value: float, low: float, high: float) -> float:
    return max(low, min(high, value))
