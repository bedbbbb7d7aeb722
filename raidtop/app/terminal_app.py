"""What every raidtop app writes to the terminal, whichever view it is (dashboard, watch, fleet)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

import textual.screen
from textual.app import App
from textual.binding import Binding
from textual.filter import LineFilter

from raidtop.presentation.key_names import key_character, key_display
from raidtop.widgets.shown_text import FiltersThenControls
from raidtop.widgets.part_styles import component_classes, parts_css

ReturnType = TypeVar("ReturnType")


class TerminalApp(App[ReturnType]):
    """A Textual app whose painted lines carry no control character and whose keys need no Unicode lookups.

    It also holds the look of its widgets' parts, once for all of them (:mod:`raidtop.widgets.part_styles`).
    """

    COMPONENT_CLASSES = component_classes()
    DEFAULT_CSS = parts_css("TerminalApp")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._line_filters: dict[tuple[LineFilter, ...], FiltersThenControls] = {}

    def get_line_filters(self) -> Sequence[LineFilter]:
        """Textual's filters and then the one that keeps control characters off the terminal, as one filter.

        Every label and value may come from the system, a recording or another
        host: the widgets show them as plain text already, and this keeps any
        control character that slipped through off the terminal. The one
        filter is kept per set of Textual's enabled filters (they change with
        ``ansi_color``), so each line's filtered strip is found in its cache.
        """
        textual_filters = tuple(super().get_line_filters())
        combined = self._line_filters.get(textual_filters)
        if combined is None:
            combined = self._line_filters[textual_filters] = FiltersThenControls(textual_filters)
        return (combined,)

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
