"""Command-line output that cannot carry a terminal escape sequence.

The batch commands print names, paths and messages that come from the system,
a file or a registry (a lab image path, a preset description, a kernel
error, an argument echoed back by argparse). :class:`PlainOutput` wraps
``sys.stdout`` and ``sys.stderr`` so that whatever a ``print`` forgets, no
control character other than newline, tab and carriage return (the progress
line's ``\\r``) reaches the terminal or a pipe: each is replaced by a visible
U+FFFD, as on the dashboard. The TUI is not affected: Textual writes to
``sys.__stderr__``.
"""

from __future__ import annotations

import io
import re
import sys
from typing import TextIO

from raidtop.untrusted import REPLACEMENT

# Like raidtop.untrusted.plain(multiline=True), but "\r" stays: `raidtop bench`
# redraws its progress line with it.
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


class PlainOutput(io.TextIOBase):
    """A text stream that replaces control characters, then writes to ``inner``."""

    def __init__(self, inner: TextIO) -> None:
        self.inner = inner

    def write(self, text: str) -> int:
        self.inner.write(_CONTROL.sub(REPLACEMENT, text))
        return len(text)

    def flush(self) -> None:
        self.inner.flush()

    def isatty(self) -> bool:
        return self.inner.isatty()

    def fileno(self) -> int:
        return self.inner.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.inner, "encoding", "utf-8")

    def writable(self) -> bool:
        return True


def install() -> None:
    """Wrap ``sys.stdout`` and ``sys.stderr`` once (a no-op when already wrapped)."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is None or isinstance(stream, PlainOutput):
            continue
        if hasattr(stream, "reconfigure"):
            # A locale that cannot encode U+FFFD must not turn a refusal into a traceback.
            stream.reconfigure(errors="replace")
        setattr(sys, name, PlainOutput(stream))
