"""Themes are TOML files: the built-ins live in the top-level themes/ folder, users' own in the XDG config dir.

The built-ins are package data found through the import system, so an
installed wheel (pip, pipx) finds them wherever the package landed; the
user's ``~/.config/raidtop/themes/*.toml`` load after them and may override one
by name.
"""

from __future__ import annotations

import importlib.util
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal, cast

from textual.color import Color, ColorParseError
from textual.css.constants import VALID_STYLE_FLAGS
from textual.theme import Theme

from raidtop.config import xdg_dir
from raidtop.safeio import UnsafeFile, read_bounded
from raidtop.untrusted import plain

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable


def _builtin_dir() -> Path | Traversable:
    """The built-in themes' folder: a directory on disk, or (a zipped install) a folder inside the zip.

    importlib.resources is imported only for the zip: with the zipfile module
    it pulls in, it held 1 MB of a dashboard that needs neither (issue 30).
    """
    spec = importlib.util.find_spec(f"{__name__}.builtin")
    if spec is None:
        # A source checkout run without installing it (``python -m raidtop`` in the repository
        # with some other environment's Python): the top-level folder that the wheel maps here.
        return Path(__file__).resolve().parents[2] / "themes"
    for location in spec.submodule_search_locations or []:
        if Path(location).is_dir():
            return Path(location)
    from importlib import resources

    return resources.files(f"{__name__}.builtin")


BUILTIN_DIR: Path | Traversable = _builtin_dir()
"""The built-in themes' folder."""
DEFAULT_THEME = "raidtop-dark"
SIXTEEN_COLOUR_THEME = "raidtop-16color"
_COLOUR_KEYS = (
    "primary",
    "secondary",
    "accent",
    "foreground",
    "background",
    "surface",
    "panel",
    "boost",
    "success",
    "warning",
    "error",
)
_NON_COLOUR_VARIABLES = {"input-cursor-text-style", "footer-key-style", "button-focus-text-style"}
_THEME_KEYS = {"name", "dark", "ansi", "luminosity_spread", "text_alpha", "variables", *_COLOUR_KEYS}
_THEME_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}")
_MAX_THEME_BYTES = 64 * 1024


@dataclass
class ThemeLoad:
    """Themes that loaded and sentences about files that did not."""

    themes: list[Theme] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def load_theme_file(path: Path) -> Theme:
    """Build a Theme from one TOML file; raise ValueError with a one-line reason.

    Everything a theme holds ends up in CSS or on screen, and a bad value
    would only fail when applied, mid-session, so every field is checked here.
    """
    shown = plain(path)
    try:
        # Bounded and non-blocking: a FIFO or /dev/zero named *.toml is refused, not waited on.
        data = read_bounded(path, _MAX_THEME_BYTES)
    except UnsafeFile as exc:
        raise ValueError(f"{shown}: cannot read ({exc.reason})") from None
    except OSError as exc:
        raise ValueError(f"{shown}: cannot read ({exc.strerror or exc})") from None
    return theme_from_toml(data, shown)


def theme_from_toml(raw: bytes, shown: str) -> Theme:
    """Build a Theme from a theme file's bytes; ``shown`` names it in the ValueError's sentence."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{shown}: not UTF-8 text") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{shown}: not valid TOML ({plain(exc)})") from None
    if "name" not in data or "primary" not in data:
        raise ValueError(f"{shown}: a theme needs at least 'name' and 'primary'")
    name = data["name"]
    # The name is typed after --theme and listed in the command palette: an
    # identifier, never text with markup or escapes in it.
    if not isinstance(name, str) or not _THEME_NAME.fullmatch(name):
        raise ValueError(f"{shown}: name {plain(repr(name))} is not a theme name (letters, digits, '-', '_', '.')")
    unknown = sorted(set(data) - _THEME_KEYS)
    if unknown:
        raise ValueError(f"{shown}: unknown key {plain(repr(unknown[0]))}")
    for key in ("dark", "ansi"):
        if key in data and not isinstance(data[key], bool):
            raise ValueError(f"{shown}: {key} must be true or false")
    for key in ("luminosity_spread", "text_alpha"):
        if key in data and (isinstance(data[key], bool) or not isinstance(data[key], (int, float))):
            raise ValueError(f"{shown}: {key} must be a number")
    variables = data.get("variables", {})
    if not isinstance(variables, dict) or not all(isinstance(v, str) for v in variables.values()):
        raise ValueError(f"{shown}: [variables] must map names to strings")
    colours = {k: v for k, v in data.items() if k in _COLOUR_KEYS}
    colours.update({f"variables.{k}": v for k, v in variables.items() if k not in _NON_COLOUR_VARIABLES})
    for key, value in colours.items():
        try:
            # A TOML value that is not text fails with AttributeError or TypeError, not ColorParseError.
            Color.parse(value)
        except (ColorParseError, AttributeError, TypeError, ValueError):
            raise ValueError(f"{shown}: {plain(key)} = {plain(repr(value))} is not a colour") from None
    for key in _NON_COLOUR_VARIABLES & set(variables):
        if not variables[key].split() or not set(variables[key].split()) <= VALID_STYLE_FLAGS:
            raise ValueError(
                f"{shown}: {key} = {plain(repr(variables[key]))} is not a text style (e.g. \"bold reverse\")"
            )
    try:
        return Theme(**data)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{shown}: {plain(exc)}") from None


def theme_for_terminal(environ: dict[str, str]) -> str | None:
    """The 16-colour theme when the terminal has no more than 16 colours, else None (the default).

    The test is the one Textual itself uses to choose how it writes colours
    (rich's detection: TEXTUAL_COLOR_SYSTEM, then COLORTERM=truecolor/24bit,
    then a TERM ending in -256color). TERM=linux, TERM=screen and a bare
    TERM=xterm come out as 8/16 colours, where Textual turns the truecolor
    themes' greens, yellows and reds into the same plain white.
    """
    from rich.console import Console
    from textual import constants

    if environ.get("NO_COLOR"):
        return None  # colour is off anyway: the markers carry the meaning
    # TEXTUAL_COLOR_SYSTEM, one of rich's names; Textual hands it to rich the same way.
    wanted = cast(Literal["auto", "standard", "256", "truecolor", "windows"] | None, constants.COLOR_SYSTEM)
    system = Console(color_system=wanted, force_terminal=True, _environ=environ).color_system
    return SIXTEEN_COLOUR_THEME if system in ("standard", "windows") else None


def load_themes(dirs: list[Path | Traversable] | None = None) -> ThemeLoad:
    """Load every ``*.toml`` theme, built-ins first so user files can override."""
    result = ThemeLoad()
    for directory in dirs if dirs is not None else [BUILTIN_DIR, xdg_dir("config") / "themes"]:
        if not directory.is_dir():
            continue
        for entry in sorted(directory.iterdir(), key=lambda e: e.name):
            if not entry.name.endswith(".toml"):
                continue
            try:
                result.themes.append(_load_entry(entry))
            except ValueError as exc:
                result.problems.append(str(exc))
    return result


def _load_entry(entry: Path | Traversable) -> Theme:
    if isinstance(entry, Path):
        return load_theme_file(entry)
    # Inside a zipped package: only the built-ins live there, written by us,
    # but still held to the same size cap as a user's file.
    with entry.open("rb") as stream:
        raw = stream.read(_MAX_THEME_BYTES + 1)
    if len(raw) > _MAX_THEME_BYTES:
        raise ValueError(f"{plain(entry.name)}: larger than {_MAX_THEME_BYTES} bytes")
    return theme_from_toml(raw, plain(entry.name))
