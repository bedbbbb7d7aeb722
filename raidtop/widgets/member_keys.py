"""The member verbs' key bindings, built from the one key map in :mod:`raidtop.model.member_verbs`."""

from __future__ import annotations

from textual.binding import Binding

from raidtop.model.member_verbs import MEMBER_KEYS


def member_bindings(action: str = "member") -> list[Binding]:
    """A Binding per verb calling ``action(verb)``; the same keys and ids wherever it is used."""
    return [
        Binding(k.key, f"{action}({k.verb!r})", k.description, show=k.show, id=k.binding_id, tooltip=k.tooltip)
        for k in MEMBER_KEYS
    ]
