"""The bordered container every dashboard panel shares."""

from __future__ import annotations

from textual.containers import Vertical


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
        border: round $primary;
    }
    Panel.-alert {
        border: heavy $error;
        border-subtitle-color: $text-error;
    }
    """

    sort_columns: tuple[str, ...] = ()
    """Column keys ``s`` cycles through for this panel (empty: not sortable)."""

    def sort_by(self, key: str | None = None, reverse: bool | None = None) -> None:
        """Sort by ``key`` (or the next sortable column) and repaint."""

    def focus_table(self) -> None:
        """Give keyboard focus to the panel's table."""
        for child in self.query("TextTable"):
            child.focus()
            return
