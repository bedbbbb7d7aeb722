"""How every TextTable looks (its header, cursor and tones), resolved once for the app, not once a table.

Textual works out a widget's component classes through a hidden DOM node for
each class of each widget, made again at every style update of the widget:
nine a table, 72 kept on the dashboard (0.4 MB), and 225 more made and
dropped each time a key restyles the screen. Every table has the same
background and the same rules, so the app declares the classes
(:class:`~raidtop.app.terminal_app.TerminalApp` holds
:data:`TABLE_COMPONENT_CLASSES` with :func:`table_styles_css`) and each table
reads them there with :func:`table_style`.
"""

from __future__ import annotations

from rich.style import Style
from textual.dom import DOMNode

TONES = ("dim", "good", "warn", "crit", "accent", "spark")
"""The tones a cell may be shown in (a colour, over the row's own style)."""

TABLE_BACKGROUND = "$surface"
"""What every table is painted on."""

TABLE_COMPONENT_CLASSES = frozenset(
    {"text-table--header", "text-table--sorted", "text-table--cursor", *(f"text-table--{tone}" for tone in TONES)}
)


def table_styles_css(host: str) -> str:
    """The tables' component rules, for an app whose CSS type is ``host`` (the nodes are its children).

    A rule that paints no background of its own takes the tables' one, so a
    colour Textual works out against its background (``auto``) comes out as
    it does on a table.
    """
    return f"""
    {host} > .text-table--header {{ color: $text-primary; text-style: bold; background: $panel; }}
    {host} > .text-table--sorted {{ color: $text-accent; text-style: bold underline; background: $panel; }}
    {host} > .text-table--cursor {{ background: $block-cursor-background; color: $block-cursor-foreground; }}
    {host} > .text-table--dim {{ color: $text-muted; background: {TABLE_BACKGROUND}; }}
    {host} > .text-table--good {{ color: $text-success; background: {TABLE_BACKGROUND}; }}
    {host} > .text-table--warn {{ color: $text-warning; background: {TABLE_BACKGROUND}; }}
    {host} > .text-table--crit {{ color: $text-error; text-style: bold; background: {TABLE_BACKGROUND}; }}
    {host} > .text-table--accent {{ color: $text-accent; background: {TABLE_BACKGROUND}; }}
    {host} > .text-table--spark {{ color: $secondary; background: {TABLE_BACKGROUND}; }}
    """


def table_style(host: DOMNode, name: str) -> Style:
    """The Rich style of the tables' ``name`` (``header``, ``sorted``, ``cursor`` or a tone) as ``host`` holds it."""
    return host.get_component_styles(f"text-table--{name}").rich_style
