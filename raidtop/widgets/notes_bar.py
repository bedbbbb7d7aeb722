"""A line under the panels saying what raidtop could not read."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from raidtop.untrusted import plain
from raidtop.model.units import counted


class NotesBar(Widget):
    """The latest note and how many there are; hidden when all sources read."""

    COMPONENT_CLASSES = {"notes-bar--count"}
    DEFAULT_CSS = """
    NotesBar { height: 1; background: $surface; color: $text-warning; display: none; }
    NotesBar.-has-notes { display: block; }
    NotesBar > .notes-bar--count { color: $text-muted; }
    """

    notes: reactive[tuple[str, ...]] = reactive(())
    """Sentences from the last snapshot."""

    def watch_notes(self, notes: tuple[str, ...]) -> None:
        self.set_class(bool(notes), "-has-notes")

    def render(self) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis")
        if self.notes:
            count = len(self.notes)
            text.append(f" {counted(count, 'note')} (n) ", self.get_component_rich_style("notes-bar--count"))
            text.append(plain(self.notes[-1]))
        return text
