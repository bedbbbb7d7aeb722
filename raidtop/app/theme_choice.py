"""raidtop's themes on an app: registered at start, the configured one chosen, cycled with T."""

from __future__ import annotations

from typing import Any

from textual.app import App

from raidtop.themes import DEFAULT_THEME, load_themes


def register_themes(app: App[Any], wanted: str | None) -> list[str]:
    """Register the built-in and user themes on ``app`` and choose ``wanted``; what went wrong, in sentences.

    A bad theme file or an unknown name falls back to the default: said, never fatal.
    """
    loaded = load_themes()
    for theme in loaded.themes:
        app.register_theme(theme)
    problems = list(loaded.problems)
    wanted = wanted or DEFAULT_THEME
    if wanted in app.available_themes:
        app.theme = wanted
    else:
        problems.append(f"theme {wanted!r} not found; using the default")
        if DEFAULT_THEME in app.available_themes:
            app.theme = DEFAULT_THEME
    return problems


def next_theme(app: App[Any]) -> str:
    """The theme after ``app``'s current one among raidtop's own (all themes if there are none)."""
    names = sorted(n for n in app.available_themes if n.startswith("raidtop-")) or sorted(app.available_themes)
    current = names.index(app.theme) if app.theme in names else -1
    return names[(current + 1) % len(names)]
