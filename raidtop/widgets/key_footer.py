"""The footer: the keys that fit, as whole words, and always ``? Help``; one widget drawing one line.

Textual's footer lays every key out and the screen's edge cuts the last one
mid-word ("g Speed li▏"). This one leaves out, from the end, the keys that do
not fit whole; every key stays in help (``?``) and the command palette, so
``? Help`` comes first and never goes.

It looks as Textual's footer does (the same theme variables, the palette key
on the right behind a thin line) but draws every key itself: a widget per key,
each with two hidden style nodes of its own, kept 0.55 MB on the dashboard
(issue 30, item 4) and were made again at each focus move.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.color import Color
from textual.css.styles import StylesBase
from textual.reactive import reactive
from textual.screen import Screen
from textual.widget import Widget

from raidtop.widgets.part_styles import KEY_FOOTER_PARTS

ALWAYS_SHOWN = "help"
"""The binding id that is shown at any width, first."""
KEY_PADDING = 3
"""Cells a key adds around its key and description (" k desc ")."""
PALETTE_EXTRA = 2
"""Cells kept free beside the palette key besides :func:`key_width`'s (where the other keys stop)."""
PALETTE_LINE = "▏"
"""What separates the palette key from the others (Textual's ``vkey`` border)."""


def key_width(key_display: str, description: str) -> int:
    """Cells one footer key takes."""
    return cell_len(key_display) + cell_len(description) + KEY_PADDING


def palette_width(key_display: str, description: str) -> int:
    """Cells the palette key takes: its line, key, description and one space after."""
    return cell_len(key_display) + cell_len(description) + 3


def fitting(items: list[tuple[Binding, str]], width: int) -> list[tuple[Binding, str]]:
    """``items`` (binding, key display) that fit ``width`` whole, help first, in order otherwise."""
    ordered = sorted(items, key=lambda item: item[0].id != ALWAYS_SHOWN)
    kept, used = [], 0
    for binding, display in ordered:
        needed = key_width(display, binding.description)
        if used + needed > width and binding.id != ALWAYS_SHOWN:
            # Skip this one but try the shorter ones after it: whole words only.
            continue
        kept.append((binding, display))
        used += needed
    return kept


class FooterItem(NamedTuple):
    """One key as the footer shows it, and the cells it takes."""

    key: str
    display: str
    description: str
    action: str
    enabled: bool
    tooltip: str
    start: int
    end: int
    palette: bool = False


def layered(chain: Iterable[StylesBase]) -> Style:
    """The Rich style of text drawn through ``chain`` (outermost first), as Textual works out a node's.

    Textual's ``DOMNode.rich_style`` walks a node's ancestors; a footer key's
    parts sit in layers no single node has (the footer, the key, its hover or
    dim state, the key or description), so the same fold runs over them.
    """
    background = Color(0, 0, 0, 0)
    color = Color(255, 255, 255, 0)
    style = Style()
    opacity = 1.0
    for styles in chain:
        has_rule = styles.has_rule
        opacity *= styles.opacity
        if has_rule("background"):
            tinted = styles.background.tint(styles.background_tint)
            text_background = background + tinted
            background += tinted.multiply_alpha(opacity)
        else:
            text_background = background
        if has_rule("color"):
            color = styles.color
        style += styles.text_style
        if has_rule("auto_color") and styles.auto_color:
            color = text_background.get_contrast_text(color.a)
    return style + Style.from_color(
        (background + color).rich_color if (background.a or color.a) else None,
        background.rich_color if background.a else None,
    )


class KeyFooter(Widget, can_focus=False):
    """The keys of the screen on top that fit whole, ``? Help`` always and first, the palette key on the right.

    It lays its keys out again only when what it would show changed: the
    screen signals "bindings changed" on every focus move.
    """

    ALLOW_SELECT = False
    # Its parts' rules are the app's (raidtop.widgets.part_styles), folded here key by key.
    DEFAULT_CSS = """
    KeyFooter { dock: bottom; height: 1; color: $footer-foreground; background: $footer-background; }
    """

    hovered: reactive[int | None] = reactive(None)
    """The index of the key under the mouse pointer, if any."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.items: tuple[FooterItem, ...] = ()
        """The keys shown, in order (the palette key last)."""
        self._bindings_ready = False
        self._shown: tuple | None = None

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self.bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def bindings_changed(self, screen: Screen) -> None:
        self._bindings_ready = True
        if not screen.app.app_focus or not self.is_attached or screen is not self.screen:
            return
        self._lay_out()

    def on_resize(self) -> None:
        # Which keys fit depends on the width: lay them out again.
        if self._bindings_ready:
            self._lay_out()

    def _plan(self, active) -> tuple:
        """What the footer would show with ``active``: (key, action, description, enabled, tooltip) per key, width."""
        return (self.app.size.width,) + tuple(
            (binding.key, binding.action, binding.description, enabled, tooltip)
            for _node, binding, enabled, tooltip in active.values()
            if binding.show
        )

    def _lay_out(self) -> None:
        active = self.screen.active_bindings
        plan = self._plan(active)
        if plan == self._shown:
            return
        self._shown = plan
        bindings: list[tuple[Binding, str]] = []
        state: dict[str, tuple[bool, str]] = {}
        for _node, binding, enabled, tooltip in active.values():
            if not binding.show or binding.action in state:
                continue
            bindings.append((binding, self.app.get_key_display(binding)))
            state[binding.action] = (enabled, tooltip)
        width = self.app.size.width
        palette = None
        if self.app.ENABLE_COMMAND_PALETTE:
            palette = active.get(self.app.COMMAND_PALETTE_BINDING)
            if palette is not None:
                width -= key_width(self.app.get_key_display(palette[1]), palette[1].description) + PALETTE_EXTRA
        items, x = [], 0
        for binding, display in fitting(bindings, width):
            enabled, tooltip = state[binding.action]
            end = x + (key_width(display, binding.description) if binding.description else cell_len(display))
            items.append(
                FooterItem(binding.key, display, binding.description, binding.action, enabled, tooltip, x, end)
            )
            x = end
        if palette is not None:
            _node, binding, enabled, _tooltip = palette
            display = self.app.get_key_display(binding)
            width = self.app.size.width
            start = width - palette_width(display, binding.description)
            tooltip = binding.tooltip or binding.description
            items.append(
                FooterItem(
                    binding.key, display, binding.description, binding.action, enabled, tooltip, start, width, True
                )
            )
        self.items = tuple(items)
        self.hovered = None
        self.refresh()

    # -------------------------------------------------------------- drawing

    def render(self) -> Text:
        line = Text(no_wrap=True, overflow="crop", end="")
        x = 0
        for index, item in enumerate(self.items):
            if item.palette:
                line.append(" " * max(0, item.start - x))
            chain = self._item_chain(index, item)
            key, description = (layered([*chain, self._component(part)]) for part in ("key", "description"))
            if item.palette:  # Textual draws it compact: no space inside, one after
                line.append(PALETTE_LINE, layered([*chain, self._component("line")]))
                line.append(item.display, key)
                line.append(f" {item.description}", description)
                line.append(" ", layered(chain))
            elif item.description:
                line.append(f" {item.display} ", key)
                line.append(f"{item.description} ", description)
            else:
                line.append(item.display, key)
            x = item.end
        return line

    def _item_chain(self, index: int, item: FooterItem) -> list[StylesBase]:
        """The layers a key's text is drawn through: the footer and its ancestors, the key, its state."""
        chain: list[StylesBase] = [node.styles for node in reversed(self.ancestors_with_self)]
        chain.append(self._component("hover" if index == self.hovered else "item"))
        if not item.enabled:
            chain.append(self._component("disabled"))
        return chain

    def _component(self, name: str) -> StylesBase:
        return KEY_FOOTER_PARTS.styles(self.app, name)

    def watch_hovered(self, old: int | None, new: int | None) -> None:
        item = self.items[new] if new is not None and new < len(self.items) else None
        self.tooltip = item.tooltip if item is not None and item.tooltip else None

    # -------------------------------------------------------------- the mouse

    def item_at(self, x: int) -> int | None:
        """The index of the key drawn at column ``x``, if any."""
        for index, item in enumerate(self.items):
            if item.start <= x < item.end:
                return index
        return None

    def on_mouse_move(self, event: events.MouseMove) -> None:
        self.hovered = self.item_at(event.x)

    def on_leave(self, event: events.Leave) -> None:
        self.hovered = None

    def on_mouse_down(self, event: events.MouseDown) -> None:
        index = self.item_at(event.x)
        if index is None:
            return
        item = self.items[index]
        if item.enabled:
            self.app.simulate_key(item.key)
        else:
            self.app.bell()
