"""The footer: the keys that fit, as whole words, and always ``? Help``.

Textual's footer lays every key out and the screen's edge cuts the last one
mid-word ("g Speed li▏"). This one leaves out, from the end, the keys that do
not fit whole; every key stays in help (``?``) and the command palette, so
``? Help`` comes first and never goes.
"""

from __future__ import annotations

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

ALWAYS_SHOWN = "help"
"""The binding id that is shown at any width, first."""
KEY_PADDING = 3
"""Cells a FooterKey adds around its key and description (" k desc ")."""
PALETTE_EXTRA = 2
"""The palette key's right padding and left border."""


def key_width(key_display: str, description: str) -> int:
    """Cells one footer key takes."""
    return cell_len(key_display) + cell_len(description) + KEY_PADDING


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


class KeyFooter(Footer):
    """A Footer that shows only whole keys, ``? Help`` always and first.

    It lays its keys out again only when what it would show changed: the
    screen signals "bindings changed" on every focus move, and at start-up
    Textual's footer rebuilt itself 11 times before the first frame (a
    quarter of raidtop's start-up above a bare Textual app, perf/RESULTS.md).
    """

    _shown: tuple | None = None

    def bindings_changed(self, screen) -> None:
        self._bindings_ready = True
        if not screen.app.app_focus or not self.is_attached or screen is not self.screen:
            return
        if self._plan() != self._shown:
            self.call_after_refresh(self._recompose_if_changed)

    async def _recompose_if_changed(self) -> None:
        # Asked again before the first layout ran, when nothing was shown yet:
        # without this check each ask rebuilt every key (4 times before the first frame).
        if self.is_attached and self._plan() != self._shown:
            await self.recompose()

    def _plan(self) -> tuple:
        """What the footer would show now: (key, display, description, enabled, tooltip) per key, width."""
        active = self.screen.active_bindings
        return (self.app.size.width,) + tuple(
            (binding.key, binding.action, binding.description, enabled, tooltip)
            for _node, binding, enabled, tooltip in active.values()
            if binding.show
        )

    def compose(self) -> ComposeResult:
        if not self._bindings_ready:
            return
        self._shown = self._plan()
        active = self.screen.active_bindings
        items: list[tuple[Binding, str]] = []
        enabled_of: dict[str, tuple[bool, str]] = {}
        seen: set[str] = set()
        for _node, binding, enabled, tooltip in active.values():
            if not binding.show or binding.action in seen:
                continue
            seen.add(binding.action)
            items.append((binding, self.app.get_key_display(binding)))
            enabled_of[binding.action] = (enabled, tooltip)
        width = self.app.size.width
        palette = None
        if self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE:
            palette = active.get(self.app.COMMAND_PALETTE_BINDING)
            if palette is not None:
                width -= key_width(self.app.get_key_display(palette[1]), palette[1].description) + PALETTE_EXTRA
        for binding, display in fitting(items, width):
            enabled, tooltip = enabled_of[binding.action]
            yield self._bound_key(
                binding.key, display, binding.description, binding.action, disabled=not enabled, tooltip=tooltip
            )
        if palette is not None:
            _node, binding, enabled, tooltip = palette
            yield FooterKey(
                binding.key,
                self.app.get_key_display(binding),
                binding.description,
                binding.action,
                classes="-command-palette",
                disabled=not enabled,
                tooltip=binding.tooltip or binding.description,
            )

    def _bound_key(self, key: str, key_display: str, description: str, action: str, **kwargs) -> FooterKey:
        """A FooterKey that follows this footer's ``compact``, made in that state.

        A FooterKey starts compact and its binding then made it not: two
        restyles of every key before the first frame.
        """
        footer_key = FooterKey(
            key, key_display, description, action, classes="-compact" if self.compact else "", **kwargs
        )
        footer_key.set_reactive(FooterKey.compact, self.compact)
        return footer_key.data_bind(compact=Footer.compact)

    def on_resize(self) -> None:
        # Which keys fit depends on the width: lay them out again.
        if self._bindings_ready and self._plan() != self._shown:
            self.call_after_refresh(self._recompose_if_changed)
