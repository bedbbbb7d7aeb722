"""How the named parts of raidtop's widgets look (a table's header, the status bar's title), resolved once for the app.

Textual works out a widget's component classes through a hidden DOM node for
each class of each widget (about 6.5 KB each), made again at every style
update of the widget: nine a table, 95 kept on the dashboard for its eight
tables, its bars and its footer, and hundreds more made and dropped each
time a key restyles the screen. Every instance of a widget paints its parts
on the same background with the same rules, so the parts are declared here
once, :class:`~raidtop.app.terminal_app.TerminalApp` holds them (its
component classes are :data:`ALL_PARTS`' and its CSS :func:`parts_css`), and
a widget reads its parts there with :meth:`WidgetParts.style`.
"""

from __future__ import annotations

from collections.abc import Iterable
from rich.style import Style
from textual.css.styles import RenderStyles
from textual.dom import DOMNode

from raidtop.model.frozen import frozen_dataclass


@frozen_dataclass
class WidgetParts:
    """The parts of one kind of widget: CSS classes ``<prefix>--<part>``, each with its rules."""

    prefix: str
    """The classes' prefix, the widget's CSS name in kebab case ("status-bar")."""
    background: str | None
    """What the widget paints its parts on; ``None`` for a widget that folds its parts' rules itself."""
    rules: tuple[tuple[str, str], ...]
    """(part, CSS declarations) as a rule on the widget itself would say them."""

    @property
    def classes(self) -> frozenset[str]:
        """The component classes the app declares for these parts."""
        return frozenset(f"{self.prefix}--{part}" for part, _ in self.rules)

    def css(self, host: str) -> str:
        """The parts' rules for an app whose CSS type is ``host`` (their nodes are the app's children).

        A rule that paints no background of its own takes the widget's, so a
        colour Textual works out against its background (``auto``, or a text
        colour with alpha) comes out as it does on the widget.
        """
        lines = []
        for part, declarations in self.rules:
            if self.background is not None and "background:" not in declarations:
                declarations = f"{declarations} background: {self.background};"
            lines.append(f"{host} > .{self.prefix}--{part} {{ {declarations} }}")
        return "\n".join(lines)

    def style(self, host: DOMNode, part: str) -> Style:
        """The Rich style of ``part`` as the app ``host`` holds it."""
        return host.get_component_styles(f"{self.prefix}--{part}").rich_style

    def styles(self, host: DOMNode, part: str) -> RenderStyles:
        """The CSS styles of ``part`` as the app ``host`` holds them (for a widget that folds them itself)."""
        return host.get_component_styles(f"{self.prefix}--{part}")


TONES = ("dim", "good", "warn", "crit", "accent", "spark")
"""The tones a table cell may be shown in (a colour, over the row's own style)."""

TABLE_BACKGROUND = "$surface"
"""What every table is painted on."""

TABLE_PARTS = WidgetParts(
    "text-table",
    TABLE_BACKGROUND,
    (
        ("header", "color: $text-primary; text-style: bold; background: $panel;"),
        ("sorted", "color: $text-accent; text-style: bold underline; background: $panel;"),
        ("cursor", "background: $block-cursor-background; color: $block-cursor-foreground;"),
        ("dim", "color: $text-muted;"),
        ("good", "color: $text-success;"),
        ("warn", "color: $text-warning;"),
        ("crit", "color: $text-error; text-style: bold;"),
        ("accent", "color: $text-accent;"),
        ("spark", "color: $secondary;"),
    ),
)

STATUS_BAR_PARTS = WidgetParts(
    "status-bar",
    "$panel",
    (
        ("title", "color: $text-primary; text-style: bold;"),
        ("alert", "color: $text-error; text-style: bold reverse;"),
        ("muted", "color: $text-muted;"),
    ),
)

NOTES_BAR_PARTS = WidgetParts("notes-bar", "$surface", (("count", "color: $text-muted;"),))

HEAT_GRID_PARTS = WidgetParts(
    "heat-grid",
    "$surface",
    (
        ("label", "color: $text-muted;"),
        ("low", "color: $text-success;"),
        ("mid", "color: $text-warning;"),
        ("high", "color: $text-error;"),
    ),
)

TIME_BAR_PARTS = WidgetParts(
    "time-bar",
    "$panel",
    (
        ("done", "color: $primary;"),
        ("todo", "color: $text-muted;"),
        ("head", "color: $text-accent; text-style: bold;"),
        ("bad", "color: $text-error; text-style: bold;"),
        ("good", "color: $text-success;"),
        ("label", "color: $foreground;"),
    ),
)

STAGE_BAR_PARTS = WidgetParts(
    "stage-bar",
    "$background",
    (
        ("narration", "color: $foreground; text-style: bold;"),
        ("source", "color: $text-muted;"),
        ("key", "color: $text-accent; text-style: bold;"),
    ),
)

KEY_FOOTER_PARTS = WidgetParts(
    "key-footer",
    None,
    (
        ("item", "background: $footer-item-background;"),
        ("hover", "color: $footer-key-foreground; background: $block-hover-background;"),
        ("disabled", "text-style: dim;"),
        ("key", "color: $footer-key-foreground; background: $footer-key-background; text-style: bold;"),
        ("description", "color: $footer-description-foreground; background: $footer-description-background;"),
        ("line", "color: $foreground 20%;"),
    ),
)

KEY_LIST_PARTS = WidgetParts(
    "key-list",
    "$surface",
    (
        ("key", "color: $text-success;"),
        ("action", "color: $foreground;"),
        ("details", "color: $text-muted;"),
    ),
)

LATENCY_HEAT_MAP_PARTS = WidgetParts(
    "latency-heat-map",
    "$surface",
    (
        ("label", "color: $text-muted;"),
        ("l1", "color: $text-muted;"),
        ("l2", "color: $text-primary;"),
        ("l3", "color: $text-accent;"),
        ("l4", "color: $accent; text-style: bold;"),
    ),
)

ALL_PARTS = (
    TABLE_PARTS,
    STATUS_BAR_PARTS,
    NOTES_BAR_PARTS,
    HEAT_GRID_PARTS,
    TIME_BAR_PARTS,
    STAGE_BAR_PARTS,
    KEY_FOOTER_PARTS,
    KEY_LIST_PARTS,
    LATENCY_HEAT_MAP_PARTS,
)
"""Every widget's parts: what the app declares."""


def component_classes(parts: Iterable[WidgetParts] = ALL_PARTS) -> set[str]:
    """The component classes of ``parts``, for an app's ``COMPONENT_CLASSES``."""
    return {name for widget in parts for name in widget.classes}


def parts_css(host: str, parts: Iterable[WidgetParts] = ALL_PARTS) -> str:
    """The rules of ``parts`` for an app whose CSS type is ``host``."""
    return "\n".join(widget.css(host) for widget in parts)
