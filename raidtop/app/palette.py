"""The command palette's entries: every key of the app and of the screen on top that works now, by its description.

Its providers: Textual's own (the keys come through ``get_system_commands``) and
:class:`~raidtop.app.find_palette.FindProvider`, which finds arrays, members and disks.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from textual.actions import parse
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.command import Provider
from textual.dom import DOMNode


def find_provider() -> type[Provider]:
    """The provider that finds arrays, members and disks, imported when the palette first opens."""
    from raidtop.app.find_palette import FindProvider

    return FindProvider


PROVIDERS = App.COMMANDS | {find_provider}
"""The app's command-palette providers (Textual calls a function in it for its class)."""


def offered(owner: DOMNode, binding: Binding) -> bool:
    """True when ``binding`` would act now: its owner's ``check_action`` enables it (as for the footer).

    A key hidden or greyed out there (the replay's keys outside a replay, Tuning in the demo) did
    nothing from the palette either; system bindings (the demo's refusals) only answer their key.
    """
    if binding.system:
        return False
    _namespace, name, parameters = parse(binding.action)
    return bool(owner.check_action(name, parameters))


def key_commands(app: App[Any], screen: DOMNode) -> Iterator[SystemCommand]:
    """One palette entry per binding of ``app`` and ``screen`` that works now (the first of each id), run there."""
    seen: set[str] = set()
    for owner in (app, screen):
        for binding in owner.BINDINGS:
            if not isinstance(binding, Binding) or binding.id in seen:
                continue
            seen.add(binding.id or binding.action)
            if not offered(owner, binding):
                continue

            def run(action: str = binding.action, target: DOMNode = owner) -> None:
                app.call_later(app.run_action, action, target)

            yield SystemCommand(binding.description, binding.tooltip or binding.description, run)
