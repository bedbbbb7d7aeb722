"""The bordered container every dashboard panel shares."""

from __future__ import annotations

from textual.containers import Vertical

from raidtop.widgets.shown_text import content


class Panel(Vertical):
    """A titled, bordered box around one table; the focused one is highlighted."""

    DEFAULT_CSS = """
    Panel {
        border: round $panel-lighten-2;
        border-title-color: $text-primary;
        border-title-style: bold;
        border-subtitle-color: $text-muted;
        height: 1fr;
        padding: 0;
    }
    Panel:focus-within {
        border: round $accent;
        border-title-color: $text-accent;
    }
    Panel.-alert {
        border: heavy $error;
        border-subtitle-color: $text-error;
    }
    """

    _subtitle_text: str | None = None

    def set_subtitle(self, text: str) -> None:
        """Change the border subtitle only when the text differs.

        Textual repaints the whole widget on every assignment, even of the
        same text; panels set theirs each sample, so this keeps an idle
        dashboard from repainting every panel every second (measured in bench/).
        """
        if text != self._subtitle_text:
            self._subtitle_text = text
            # A subtitle names arrays and filters: Content, so a "[" is not markup.
            self.border_subtitle = content(text)

    sort_columns: tuple[str, ...] = ()
    """Column keys ``s`` cycles through for this panel (empty: not sortable)."""

    def sort_by(self, key: str | None = None, reverse: bool | None = None) -> None:
        """Sort by ``key`` (or the next sortable column) and repaint."""

    def focus_table(self) -> None:
        """Give keyboard focus to the panel's table."""
        for child in self.query("TextTable"):
            child.focus()
            return
