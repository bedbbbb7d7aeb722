"""Copying what a screen shows (a command, a serial, an explanation) to the clipboard: one key everywhere.

Textual's ``App.copy_to_clipboard`` sends the text to the terminal as an
OSC 52 sequence, so it lands on the clipboard of the machine the user sits at,
also over SSH (where the terminal allows it: most do; tmux needs
``set -g set-clipboard on``). The screen then says what was copied.
"""

from __future__ import annotations

from textual.app import App
from textual.binding import Binding

from raidtop.presentation.explain import Explanation
from raidtop.untrusted import plain

COPY_KEY = "C"
PREVIEW_CHARS = 200
"""The notice shows the copied text's first line (up to this long), so the user sees it was the right one."""


def copy_binding(binding_id: str, what: str) -> Binding:
    """The copy key of a screen whose ``action_copy_shown`` copies ``what``."""
    return Binding(
        COPY_KEY, "copy_shown", "Copy", id=binding_id, tooltip=f"Copy {what} to the clipboard (OSC 52, works over SSH)"
    )


def copy_shown(app: App[object], what: str, text: str, *, multiline: bool = False) -> None:
    """Put ``text`` on the clipboard and say what it was (``what``: "the command", "sdb's serial").

    Control characters are replaced first (newlines too, unless ``multiline``):
    a serial from the system must not paste an escape sequence or a newline into a shell.
    """
    text = plain(text, multiline=multiline)
    app.copy_to_clipboard(text)
    first = plain(text.splitlines()[0] if text else "")
    preview = first if len(first) <= PREVIEW_CHARS else first[: PREVIEW_CHARS - 1] + "…"
    lines = text.count("\n") + 1
    more = f" (+{lines - 1} more lines)" if lines > 1 else ""
    app.notify(f"copied {what} to the clipboard: {preview}{more}", title="Copied", timeout=4)


def explanation_text(explanation: Explanation, title: str) -> str:
    """An explanation as plain text: the title, one ``name = formula = numbers = result`` line each, the caveats."""
    lines = [title]
    lines += [f"{line.name}: {line.formula} = {line.numbers} = {line.result}" for line in explanation.lines]
    lines += explanation.caveats
    return "\n".join(plain(line) for line in lines)
