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
