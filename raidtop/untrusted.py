"""Text that comes from the system, a file or a recording, made safe to show.

hwmon labels, block device names, filesystem paths, a recording's host name,
kernel messages and fio's stderr are all written by someone else. Shown as
they are, an escape sequence in one of them reaches the terminal (it can
retitle the window, move the cursor or break the layout) and a ``[`` in one
of them is read as Rich markup (``[/]`` raises MarkupError). So such text goes
through :func:`plain` before it is shown, and is then shown as text, never as
markup (``rich.text.Text``, ``markup=False``, ``rich.markup.escape``).

No Textual, no Rich here: collect/ and actions/ may use it too.
"""

from __future__ import annotations

import re

# C0 controls except tab/newline, DEL, and the C1 range (0x80-0x9f: a lone
# 0x9b is CSI on terminals that honour 8-bit controls). Also the Unicode
# bidi overrides and isolates, which can reorder what a line appears to say.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_CONTROL_NL = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")

REPLACEMENT = "\ufffd"
"""What a control character turns into: visible, so a reader sees something was there."""


def plain(text: object, *, multiline: bool = False) -> str:
    """``text`` as a string with every control character replaced by U+FFFD.

    With ``multiline`` newlines and tabs are kept (messages, stderr); without
    it they are replaced too (labels, names, one-line notes).
    """
    value = text if isinstance(text, str) else str(text)
    pattern = _CONTROL if multiline else _CONTROL_NL
    if pattern.search(value) is None:
        return value
    return pattern.sub(REPLACEMENT, value)


def has_controls(text: str) -> bool:
    """True when ``text`` holds a character :func:`plain` would replace (newlines included)."""
    return _CONTROL_NL.search(text) is not None


# Counts and sizes from outside: a value past this is nonsense (2**63 is
# what the kernel's own counters top out at) and would overflow a float
# conversion or a width computation further on.
COUNT_LIMIT = 2**63


def finite(value: object, low: float = float("-inf"), high: float = float("inf")) -> float | None:
    """``value`` as a float when it is a finite number in ``[low, high]``, else ``None``.

    Strings are parsed (Prometheus sends values as strings); ``bool`` is no
    number; ``+Inf``, ``NaN`` and an int too large for a float are refused.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None
    try:
        number = float(value)
    except (ValueError, OverflowError):
        return None
    if number != number or not low <= number <= high or number in (float("inf"), float("-inf")):
        return None
    return number


def count(value: object, high: int = COUNT_LIMIT) -> int | None:
    """``value`` as a whole number in ``[0, high]`` (a float with no fraction counts), else ``None``."""
    number = finite(value, 0, high)
    if number is None or number != int(number):
        return None
    if isinstance(value, int):
        return value
    return int(number)
