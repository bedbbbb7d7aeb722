"""A line under the panels saying what raidtop could not read."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from raidtop.untrusted import plain
from raidtop.model.units import counted
from raidtop.widgets.part_styles import NOTES_BAR_PARTS


class NotesBar(Widget):
    """The latest note and how many there are; hidden when all sources read."""

    # Its parts' look is the app's (raidtop.widgets.part_styles).
    DEFAULT_CSS = f"""
    NotesBar {{ height: 1; background: {NOTES_BAR_PARTS.background}; color: $text-warning; display: none; }}
    NotesBar.-has-notes {{ display: block; }}
    """

    notes: reactive[tuple[str, ...]] = reactive(())
    """Sentences from the last snapshot."""

    def watch_notes(self, notes: tuple[str, ...]) -> None:
        self.set_class(bool(notes), "-has-notes")

    def render(self) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis")
        if self.notes:
            count = len(self.notes)
            text.append(f" {counted(count, 'note')} (n) ", NOTES_BAR_PARTS.style(self.app, "count"))
            text.append(plain(self.notes[-1]))
        return text
