"""What every raidtop app writes to the terminal, whichever view it is (dashboard, watch, fleet)."""

from __future__ import annotations

from typing import TypeVar

import textual.screen
from textual.app import App
from textual.binding import Binding

from raidtop.presentation.key_names import key_character, key_display
from raidtop.widgets.shown_text import ControlFilter

ReturnType = TypeVar("ReturnType")


class TerminalApp(App[ReturnType]):
    """A Textual app whose painted lines carry no control character and whose keys need no Unicode lookups."""

    # Every label and value may come from the system, a recording or another host: the
    # widgets show them as plain text already, and this keeps any control character
    # that slipped through off the terminal.
    _control_filter = ControlFilter()

    def get_line_filters(self):
        """Textual's filters plus the one that keeps control characters off the terminal."""
        return [*super().get_line_filters(), self._control_filter]

    def get_key_display(self, binding: Binding) -> str:
        """A key as the footer, help and palette write it (see :mod:`raidtop.presentation.key_names`)."""
        return binding.key_display or key_display(binding.key)


def _answer_key_characters_first() -> None:
    """Have the screens' binding chain ask raidtop's key table before the Unicode database.

    Textual has no hook for this: a screen gathering its bindings calls the
    ``key_to_character`` it imported, and that looks each key's name up in
    ``unicodedata`` (0.9 MB made resident; see :mod:`raidtop.presentation.key_names`).
    Keys the table does not know still go to Textual's function. A test checks
    that the screen module still calls it by that name.
    """
    textual_lookup = getattr(textual.screen, "key_to_character", None)
    if textual_lookup is None or getattr(textual_lookup, "answers_raidtop_keys", False):
        return

    def key_to_character(key: str) -> str | None:
        return key_character(key, textual_lookup)

    key_to_character.answers_raidtop_keys = True  # type: ignore[attr-defined]
    setattr(textual.screen, "key_to_character", key_to_character)  # noqa: B010 - not a name mypy may check


_answer_key_characters_first()
