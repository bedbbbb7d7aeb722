"""The README names only commands, options and keys that exist, and every key the app binds.

Commands: every ``raidtop …`` the README writes in code (a code span or a
code block) is run with ``--help``: it exits 0, each subcommand it names is
one the parser knows, and each ``--option`` it names appears in that
command's help. Keys: every key of the "### Keys" table is bound, by a
Binding with an id, where the table's "where" column says; and every Binding
with an id of those places (the app, the dashboard, the member grid, every
table) has a row.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest
from textual.binding import Binding, BindingType
from textual.screen import Screen

from raidtop.__main__ import build_parser, main
from raidtop.app.keys import APP_BINDINGS, DEMO_BINDINGS
from raidtop.screens.dashboard.keys import DASHBOARD_BINDINGS, DEMO_DISK_BAD
from raidtop.screens.lab.screen import LabScreen
from raidtop.screens.array_detail import ArrayDetailScreen
from raidtop.screens.dialogs import CommandDialog, ConfirmDialog
from raidtop.screens.explain import ExplainScreen
from raidtop.screens.smart import SmartScreen
from raidtop.widgets.arrays_panel import ArraysPanel
from raidtop.widgets.text_table import TextTable

README = Path(__file__).resolve().parents[1] / "README.md"
CODE_SPAN = re.compile(r"`(raidtop(?: [^`]*)?)`")
OPTION = re.compile(r"--[a-z][a-z0-9-]*")

# ------------------------------------------------------------------ commands


def documented_commands(text: str) -> list[str]:
    """Every ``raidtop …`` command line the README writes in code, as written (``\\|`` unescaped)."""
    found = [m.group(1).replace("\\|", "|") for m in CODE_SPAN.finditer(text)]
    in_block = False
    for line in text.splitlines():
        if line.startswith("```"):
            in_block = not in_block
        elif in_block and line.lstrip().startswith("raidtop"):
            found.append(line.strip().split("  #")[0].split(" # ")[0].strip())
    return found


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def command_path(line: str) -> tuple[list[list[str]], list[str]]:
    """The subcommand paths a documented line names (``lab create|fail`` names two) and its options.

    A bare word where the parser expects a subcommand must be one: the README
    naming a command that does not exist is what this test is for.
    """
    words = line.split()[1:]
    parser, path = build_parser(), []
    paths: list[list[str]] = []
    for word in words:
        choices = _subparsers(parser)
        if word.startswith(("-", "[", "<")) or not choices or word == "…":
            break
        names = [w for w in word.split("|") if w not in {"…", "..."}]
        unknown = [n for n in names if n not in choices]
        assert not unknown, f"README: `{line}` names no raidtop command {unknown} (known: {sorted(choices)})"
        if len(names) > 1:  # alternatives end the path: each is checked on its own
            paths = [[*path, n] for n in names]
            break
        path.append(word)
        parser = choices[word]
    options = OPTION.findall(" ".join(words))
    return paths or [path], options


def test_the_readme_names_commands_in_code():
    commands = documented_commands(README.read_text())
    # Guards the tests below against passing because they parsed nothing.
    assert len(commands) > 30
    assert any(c.startswith("raidtop exporter --replay") for c in commands)
    assert any(c.startswith("raidtop lab create|") for c in commands)


def _help(path: list[str], capsys) -> str:
    with pytest.raises(SystemExit) as ended:
        main([*path, "--help"])
    out = capsys.readouterr().out
    assert ended.value.code == 0, f"raidtop {' '.join(path)} --help exited {ended.value.code}"
    return out


def test_every_documented_command_answers_help_and_has_the_options_the_readme_names(capsys):
    helps: dict[tuple[str, ...], str] = {}
    missing, checked = [], 0
    for line in documented_commands(README.read_text()):
        paths, options = command_path(line)
        for path in paths:
            key = tuple(path)
            if key not in helps:
                helps[key] = _help(path, capsys)
        if len(paths) == 1:  # `lab create|fail|…` lists commands, not one command's options
            checked += len(options)
            missing += [f"`{line}`: {o}" for o in options if o not in helps[tuple(paths[0])]]
    assert not missing, "README names options its command does not have:\n" + "\n".join(missing)
    assert len(helps) > 15 and checked > 60  # the top level, every subcommand, their options


def test_a_command_or_option_the_readme_invents_fails_the_check(capsys):
    with pytest.raises(AssertionError, match="names no raidtop command"):
        command_path("raidtop frobnicate --json")
    paths, options = command_path("raidtop exporter --listen H:P --no-such-option")
    assert (
        paths == [["exporter"]]
        and "--no-such-option" not in _help(paths[0], capsys)
        and options[-1] == "--no-such-option"
    )


# ---------------------------------------------------------------------- keys

README_KEY_NAMES = {
    "Esc": "escape",
    "Enter": "enter",
    "Tab": "tab",
    "Shift+Tab": "shift+tab",
    "Ctrl+P": "ctrl+p",
    "F1": "f1",
    "?": "question_mark",
    "+": "plus",
    "-": "minus",
    ".": "full_stop",
    ",": "comma",
    ">": "greater_than_sign",
    "<": "less_than_sign",
    "[": "left_square_bracket",
    "]": "right_square_bracket",
    "↑": "up",
    "↓": "down",
    "PgUp": "pageup",
    "PgDn": "pagedown",
    "Home": "home",
    "End": "end",
}
"""How the README writes a key (as the footer shows it) → Textual's key name."""
TEXTUAL_KEYS = {"ctrl+p"}
"""Keys Textual itself binds without an id (the command palette): they exist, raidtop does not declare them."""
KEY_METHODS = {"enter": TextTable}
"""Keys a widget answers with a ``key_…`` method instead of a Binding: Enter on a table, which a Binding on
the focused table would take from the screens that bind Enter themselves (Benchmarks' run). Checked to exist."""


def _other_screens() -> list[type[Screen]]:
    """Every screen and dialog raidtop pushes over the dashboard (imported, so each class is defined)."""
    import importlib
    import pkgutil

    import raidtop.screens

    for module in pkgutil.walk_packages(raidtop.screens.__path__, "raidtop.screens."):
        importlib.import_module(module.name)
    found: list[type[Screen]] = []
    todo = list(Screen.__subclasses__())
    while todo:
        cls = todo.pop()
        todo += cls.__subclasses__()
        if cls.__module__.startswith("raidtop.screens.") and cls.__name__ not in {"DashboardScreen", "FleetScreen"}:
            found.append(cls)
    return found


def _bindings(source: list[BindingType]) -> list[Binding]:
    return [b for b in source if isinstance(b, Binding)]


def _everywhere() -> list[Binding]:
    return [b for b in APP_BINDINGS if b not in DEMO_BINDINGS and not (b.id or "").startswith("replay-")]


def _dashboard() -> list[Binding]:
    return [*_everywhere(), *(b for b in DASHBOARD_BINDINGS if b is not DEMO_DISK_BAD)]


WHERE = {
    "everywhere": _everywhere,
    "live": _everywhere,
    "dashboard": _dashboard,
    "Arrays panel": lambda: _bindings(TextTable.BINDINGS),
    "Disks panel": _dashboard,
    "member grid": lambda: _bindings(ArraysPanel.BINDINGS),
    "member grid of a demo or lab array": lambda: _bindings(ArraysPanel.BINDINGS),
    "member grid of a lab array": lambda: _bindings(ArraysPanel.BINDINGS),
    "Lab screen": lambda: _bindings(LabScreen.BINDINGS),
    "replay": lambda: [b for b in APP_BINDINGS if (b.id or "").startswith("replay-")],
    "demo": lambda: list(DEMO_BINDINGS),
    "demo only": lambda: [DEMO_DISK_BAD],
    "tables": lambda: _bindings(TextTable.BINDINGS),
    "every other screen and dialog": lambda: [b for s in _other_screens() for b in _bindings(s.BINDINGS)],
    "every confirmation": lambda: _bindings(ConfirmDialog.BINDINGS),
    "array detail": lambda: _bindings(ArrayDetailScreen.BINDINGS),
    "SMART": lambda: _bindings(SmartScreen.BINDINGS),
    "Explain": lambda: _bindings(ExplainScreen.BINDINGS),
    "confirmations": lambda: _bindings(ConfirmDialog.BINDINGS),
    "commands to run by hand": lambda: _bindings(CommandDialog.BINDINGS),
}
"""The key table's "where" words → the bindings that place answers with."""
COVERED = ("everywhere", "replay", "demo", "demo only", "dashboard", "member grid", "tables")
"""The places whose every Binding with an id the key table must list (other screens have their sections)."""


def key_table(text: str) -> list[tuple[list[str], list[str], str]]:
    """The "### Keys" table's rows: (Textual key names, where, the row as written)."""
    section = text.split("\n### Keys\n", 1)[1]
    rows = []
    for line in section.splitlines():
        if line.startswith("|") and not line.startswith(("| key", "|---")):
            keys_cell, where_cell = (c.strip() for c in line.strip("|").split("|")[:2])
            where = [w.strip() for w in where_cell.split(",")]
            # A place may start a sentence ("Array detail, SMART"): its first letter's case is not part of the name.
            where = [w if w in WHERE else w[:1].lower() + w[1:] for w in where]
            rows.append((_key_names(keys_cell), where, line))
        elif rows and not line.startswith("|"):
            break
    return rows


def _key_names(cell: str) -> list[str]:
    names = []
    for span in re.findall(r"`([^`]+)`", cell):
        for word in span.replace(" / ", " ").split():
            if re.fullmatch(r"\d–\d", word):  # `1`–`5` is written as two spans; a range in one span too
                names += [str(d) for d in range(int(word[0]), int(word[-1]) + 1)]
            else:
                names.append(README_KEY_NAMES.get(word, word.lower() if "+" in word else word))
    # `1`–`5`: the dash sits between two spans.
    ranged = re.fullmatch(r"`(\d)`–`(\d)`", cell)
    if ranged:
        names = [str(d) for d in range(int(ranged[1]), int(ranged[2]) + 1)]
    return names


def _bound(binding: Binding) -> set[str]:
    return {k.strip() for k in binding.key.split(",")}


def test_the_key_table_is_read():
    rows = key_table(README.read_text())
    assert len(rows) > 30 and any(keys == ["1", "2", "3", "4", "5"] for keys, _, _ in rows)


def key_problems(text: str) -> list[str]:
    """Keys the table names that are not a Binding with an id where its "where" column says."""
    wrong = []
    for keys, where, line in key_table(text):
        unknown = [w for w in where if w not in WHERE]
        assert not unknown, f"README key table names a place the test does not know: {unknown} in {line}"
        bindings = [b for w in where for b in WHERE[w]()]
        for key in keys:
            if key in KEY_METHODS and hasattr(KEY_METHODS[key], f"key_{key}"):
                continue
            if key not in TEXTUAL_KEYS and not any(key in _bound(b) and b.id for b in bindings):
                wrong.append(f"{key!r} ({', '.join(where)}): {line}")
    return wrong


def missing_rows(text: str) -> list[str]:
    """Bindings with an id of the :data:`COVERED` places that no row of the table names where they are bound."""
    listed: set[str | None] = set()
    for keys, where, _line in key_table(text):
        for binding in (b for w in where if w in WHERE for b in WHERE[w]()):
            if _bound(binding) & set(keys):
                listed.add(binding.id)
    covered = {b.id: b for place in COVERED for b in WHERE[place]() if b.id}
    return [f"{id_} ({b.key})" for id_, b in covered.items() if id_ not in listed]


def test_every_key_the_readme_names_is_a_binding_with_an_id_where_it_says():
    wrong = key_problems(README.read_text())
    assert not wrong, "README names keys that are not a Binding with an id there:\n" + "\n".join(wrong)


def test_every_binding_of_the_places_the_table_covers_has_a_row():
    missing = missing_rows(README.read_text())
    assert not missing, "Bindings with an id the README's key table does not list:\n" + "\n".join(missing)


def test_a_key_the_readme_invents_or_leaves_out_fails_the_check():
    text = README.read_text()
    explain_row = next(line for line in text.splitlines() if line.startswith("| `x` | dashboard |"))
    invented = text.replace(explain_row, explain_row + "\n| `Ctrl+K` | dashboard | invented |")
    assert key_problems(invented) == ["'ctrl+k' (dashboard): | `Ctrl+K` | dashboard | invented |"]
    assert missing_rows(text.replace(explain_row + "\n", "")) == ["explain (x)"]


def test_every_screen_and_dialog_goes_back_with_escape():
    # The table's "Esc … every other screen and dialog" row, for each one rather than for any one.
    screens = _other_screens()
    assert len(screens) > 10
    without = [s.__name__ for s in screens if not any("escape" in _bound(b) and b.id for b in _bindings(s.BINDINGS))]
    assert not without, f"screens Esc does not leave: {without}"
