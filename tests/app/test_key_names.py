"""Keys are written and typed as Textual would, without looking names up in the Unicode database.

Textual's own answers (``App.get_key_display``, ``textual.keys.key_to_character``)
are the reference for every key raidtop's table holds; the dashboard then runs
without a single ``unicodedata`` name lookup, which had made 0.9 MB resident.
"""

from __future__ import annotations

import importlib
import pkgutil
import string
import unicodedata

import pytest
import textual.keys
import textual.screen
from textual.app import App
from textual.binding import Binding

import raidtop
from raidtop.app.raidtop_app import RaidtopApp
from raidtop.config import Config
from raidtop.presentation.key_names import _KNOWN, key_character, key_display

from tests.conftest import DATA

_PLAIN = [*_KNOWN, *string.ascii_letters, *string.digits]
_KEYS = [*_PLAIN, *(f"ctrl+{k}" for k in _PLAIN), *(f"shift+{k}" for k in _PLAIN), "ctrl+shift+p", "alt+x"]


@pytest.fixture(scope="module")
def textual_app() -> App:
    return App()


@pytest.mark.parametrize("key", _KEYS)
def test_a_key_is_shown_as_textual_shows_it(key: str, textual_app: App) -> None:
    assert key_display(key) == App.get_key_display(textual_app, Binding(key, "noop"))


@pytest.mark.parametrize("key", _KEYS)
def test_a_key_types_the_character_textual_says(key: str) -> None:
    def never(name: str) -> str | None:
        raise AssertionError(f"{name} is in the table: Textual need not be asked")

    assert key_character(key, never) == textual.keys.key_to_character(key)


def test_a_key_not_in_the_table_is_left_to_textual(textual_app: App) -> None:
    assert key_display("ctrl+pound_sign") == App.get_key_display(textual_app, Binding("ctrl+pound_sign", "x"))
    assert key_character("pound_sign", textual.keys.key_to_character) == "£"


def _bound_keys() -> set[str]:
    keys: set[str] = set()
    for info in pkgutil.walk_packages(raidtop.__path__, "raidtop."):
        if not info.name.startswith(("raidtop.app", "raidtop.screens", "raidtop.widgets")):
            continue
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            for binding in getattr(value, "BINDINGS", None) or []:
                key = binding.key if isinstance(binding, Binding) else binding[0]
                keys.update(k.strip() for k in key.split(","))
    return keys


def test_every_key_raidtop_binds_is_in_the_table() -> None:
    keys = _bound_keys()
    assert len(keys) > 30  # the walk found the screens' bindings
    missing = sorted(k for k in keys if k.split("+")[-1] not in _KNOWN and not k.split("+")[-1].isalnum())
    assert not missing, f"add to raidtop/presentation/key_names.py: {missing}"


def test_the_screens_binding_chain_asks_the_table_first() -> None:
    import inspect

    assert getattr(textual.screen.key_to_character, "answers_raidtop_keys", False)
    # Textual still calls the function by this module-level name (else the table is not asked).
    assert "key_to_character(key)" in inspect.getsource(textual.screen.Screen._binding_chain.fget)


async def test_the_dashboard_and_its_help_look_no_key_name_up(monkeypatch: pytest.MonkeyPatch) -> None:
    looked_up: list[str] = []
    real_lookup, real_name = unicodedata.lookup, unicodedata.name

    def lookup(name: str) -> str:
        looked_up.append(name)
        return real_lookup(name)

    def name(character: str, *default: str) -> str:
        looked_up.append(character)
        return real_name(character, *default)

    monkeypatch.setattr(unicodedata, "lookup", lookup)
    monkeypatch.setattr(unicodedata, "name", name)
    textual.keys.format_key.cache_clear()
    textual.keys.key_to_character.cache_clear()
    app = RaidtopApp(Config(root=DATA / "root1", interval=0.5))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause(0.5)
        app.action_help()
        await pilot.pause(0.3)
        assert "Help" in type(app.screen).__name__ or app.screen is not app.dashboard
    assert looked_up == []
