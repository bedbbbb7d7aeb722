"""Themes are TOML files in themes/ (and the user's XDG config dir)."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from textual.color import Color
from textual.theme import Theme

from raidtop.config import xdg_dir

BUILTIN_DIR = Path(__file__).resolve().parent.parent / "themes"
DEFAULT_THEME = "raidtop-dark"
_COLOUR_KEYS = ("primary", "secondary", "accent", "foreground", "background", "surface", "panel", "boost",
                "success", "warning", "error")
_NON_COLOUR_VARIABLES = {"input-cursor-text-style", "footer-key-style", "button-focus-text-style"}


@dataclass
class ThemeLoad:
    """Themes that loaded and sentences about files that did not."""

    themes: list[Theme] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def load_theme_file(path: Path) -> Theme:
    """Build a Theme from one TOML file; raise ValueError with a reason."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: cannot read ({exc})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{path}: not valid TOML ({exc})") from None
    if "name" not in data or "primary" not in data:
        raise ValueError(f"{path}: a theme needs at least 'name' and 'primary'")
    # Theme() accepts any string; a bad colour would only fail when applied,
    # mid-session, so every colour is parsed here.
    colours = {k: v for k, v in data.items() if k in _COLOUR_KEYS}
    colours.update({f"variables.{k}": v for k, v in data.get("variables", {}).items() if k not in _NON_COLOUR_VARIABLES})
    for key, value in colours.items():
        try:
            Color.parse(value)
        except Exception:
            raise ValueError(f"{path}: {key} = {value!r} is not a colour") from None
    try:
        return Theme(**data)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{path}: {exc}") from None


def load_themes(dirs: list[Path] | None = None) -> ThemeLoad:
    """Load every ``*.toml`` theme, built-ins first so user files can override."""
    result = ThemeLoad()
    for directory in dirs if dirs is not None else [BUILTIN_DIR, xdg_dir("config") / "themes"]:
        if not directory.is_dir():
            continue
        for path in sorted(directory.glob("*.toml")):
            try:
                result.themes.append(load_theme_file(path))
            except ValueError as exc:
                result.problems.append(str(exc))
    return result
