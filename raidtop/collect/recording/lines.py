"""What one line of a recording must look like: the header, and a frame.

Every line is checked before it is used, because a recording is written by
someone else as far as the reader knows: a time of ``1e300`` or ``NaN``
cannot be shown as a date, an event that is not an object breaks the time
bar, a reading of the wrong type breaks a parser. Strings that are shown
(header fields, events, actions, recorded error messages) go through
:func:`raidtop.untrusted.plain`; file contents, listings and link targets are
kept as they are, because they feed the same parsers the live files do.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from raidtop.untrusted import plain

FORMAT = "raidtop-recording"
VERSION = 1

MAX_TIME = 253402300799.0
"""The last second of year 9999: later times cannot be shown as a date."""

_KEY_KINDS = ("f:", "d:", "l:", "e:", "w:", "s:", "S:")
_BAD = object()


@dataclass
class Frame:
    """One recorded tick: its time, the answers that changed, events and actions."""

    time: float
    delta: dict[str, Any]
    events: list[dict] = field(default_factory=list)
    actions: list[dict] = field(default_factory=list)
    full: bool = False
    """True when ``delta`` holds every answer known (the first frame of a stream)."""


def parse_header(obj: Any) -> dict[str, Any] | str:
    """The checked header (strings made plain), or why it is refused (a clause).

    The clause follows the file name: ``"not a raidtop recording"`` or
    ``"recorded by a newer raidtop ..."``.
    """
    if not isinstance(obj, dict) or obj.get("format") != FORMAT:
        return "not a raidtop recording"
    version = obj.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        return f"not a raidtop recording (format version {plain(repr(version))[:40]})"
    if version > VERSION:
        return f"recorded by a newer raidtop (format {version}); this raidtop reads format {VERSION} — upgrade raidtop"
    header: dict[str, Any] = {}
    for key, value in obj.items():
        if isinstance(value, str):
            header[plain(key)] = plain(value)
        elif _is_number(value):
            header[plain(key)] = value
    return header


def parse_frame(obj: Any) -> Frame | str:
    """A checked frame, or why it cannot be used (a short clause)."""
    if not isinstance(obj, dict):
        return "not an object"
    when = obj.get("t")
    if isinstance(when, bool) or not isinstance(when, (int, float)):
        return "its time is not a number"
    try:
        when = float(when)
    except OverflowError:  # a JSON integer with hundreds of digits
        return "its time is out of range"
    if not (math.isfinite(when) and 0.0 <= when <= MAX_TIME):
        return "its time is out of range"
    delta = obj.get("d")
    if not isinstance(delta, dict):
        return "its readings are not an object"
    clean: dict[str, Any] = {}
    for key, value in delta.items():
        checked = _reading(key, value)
        if checked is _BAD:
            return "a reading has the wrong type"
        clean[key] = checked
    events = _records(obj.get("events", []), ("array", "event", "member", "detail"))
    actions = _records(obj.get("actions", []), ("kind", "command"), numbers=("time",))
    if events is None or actions is None:
        return "its events or actions are not objects"
    return Frame(when, clean, events, actions, obj.get("k") is True)


def _reading(key: str, value: Any) -> Any:
    """One recorded answer in the shape its kind has, or ``_BAD``."""
    kind = key[:2]
    if kind not in _KEY_KINDS:
        return _BAD
    if isinstance(value, dict) and kind in ("f:", "d:"):
        error = value.get("error")
        # The error becomes a note on screen: made plain here, once.
        return {"error": plain(error)} if isinstance(error, str) else _BAD
    if kind == "f:":
        return value if isinstance(value, str) else _BAD
    if kind == "d:":
        return value if isinstance(value, list) and all(isinstance(v, str) for v in value) else _BAD
    if kind == "l:":
        return value if value is None or isinstance(value, str) else _BAD
    if kind == "s:":
        # One disk's SMART reading; raidtop.collect.smart.parse.health_from_dict checks each field.
        return value if isinstance(value, dict) else _BAD
    if kind == "S:":
        return value if isinstance(value, list) and all(isinstance(v, str) for v in value) else _BAD
    return value if isinstance(value, bool) else _BAD


def _records(value: Any, texts: tuple[str, ...], numbers: tuple[str, ...] = ()) -> list[dict] | None:
    """Events or actions: a list of objects whose strings are made plain (``None`` if not)."""
    if not isinstance(value, list):
        return None
    records = []
    for item in value:
        if not isinstance(item, dict):
            return None
        record: dict[str, Any] = {}
        for key in texts:
            text = item.get(key)
            if text is not None and not isinstance(text, str):
                return None
            if key in item:
                record[key] = None if text is None else plain(text)
        for key in numbers:
            if _is_number(item.get(key)):
                record[key] = item[key]
        records.append(record)
    return records


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
