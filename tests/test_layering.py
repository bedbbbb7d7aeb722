"""The layers: import-linter's contracts, and collect/actions importing without Textual.

collect and actions read and change the system for the app, the ``snapshot``
command and the tests alike, so they must work where Textual is absent or not
wanted; widgets only show what screens hand them. The contracts live in
pyproject.toml ``[tool.importlinter]`` and are checked by ``lint-imports``
here. The runtime check below adds what a static graph cannot see: importing
every module with Textual made unimportable, including any import a module
makes by name (importlib) rather than with an import statement.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[1]
LAYERS = ("collect", "actions")
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def lint_imports(*contracts: str, cwd: Path = PROJECT) -> subprocess.CompletedProcess[str]:
    """Run import-linter on the tree at ``cwd`` (its pyproject.toml, its raidtop)."""
    args = [str(LINT_IMPORTS), "--no-cache", "--no-logo"]
    for contract in contracts:
        args += ["--contract", contract]
    # PYTHONPATH: import-linter finds the package to graph by importing it.
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(cwd)}
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize(
    "contract",
    [
        "core-without-ui",
        "collect-reads-only",
        "widgets-only-show",
        "layers",
    ],
)
def test_import_contract_is_kept(contract: str) -> None:
    result = lint_imports(contract)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "BROKEN" not in result.stdout


def test_the_contracts_catch_a_planted_import(tmp_path: Path) -> None:
    """A copy of the tree with one bad import per contract: each is reported broken."""
    shutil.copytree(PROJECT / "raidtop", tmp_path / "raidtop", ignore=shutil.ignore_patterns("__pycache__", "data"))
    shutil.copy(PROJECT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / "raidtop" / "collect" / "planted_ui.py").write_text("import rich.text\n")
    (tmp_path / "raidtop" / "collect" / "planted_action.py").write_text("from raidtop.actions import action_log\n")
    (tmp_path / "raidtop" / "widgets" / "planted_screen.py").write_text("from raidtop.screens import help\n")
    with (tmp_path / "raidtop" / "model" / "md.py").open("a") as model:
        model.write("\nimport textual  # planted\n")
    # The layers: a reader that reaches up to a judgement, the model reaching up to a reader.
    (tmp_path / "raidtop" / "collect" / "planted_judge.py").write_text("from raidtop.presentation import smart_rules\n")
    (tmp_path / "raidtop" / "model" / "planted_reader.py").write_text("from raidtop.collect import source\n")
    result = lint_imports(cwd=tmp_path)
    assert result.returncode != 0
    assert "raidtop.collect.planted_ui -> rich (l.1)" in result.stdout
    assert "raidtop.model.md -> textual (l." in result.stdout
    assert "raidtop.collect.planted_action -> raidtop.actions.action_log" in result.stdout
    assert "raidtop.widgets.planted_screen -> raidtop.screens.help" in result.stdout
    assert "raidtop.collect.planted_judge -> raidtop.presentation.smart_rules" in result.stdout
    assert "raidtop.model.planted_reader -> raidtop.collect.source" in result.stdout


def test_a_new_top_level_room_must_be_given_its_layer(tmp_path: Path) -> None:
    """The layers contract is exhaustive: a package nobody placed breaks it until pyproject.toml names it."""
    shutil.copytree(PROJECT / "raidtop", tmp_path / "raidtop", ignore=shutil.ignore_patterns("__pycache__", "data"))
    shutil.copy(PROJECT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / "raidtop" / "unplaced").mkdir()
    (tmp_path / "raidtop" / "unplaced" / "__init__.py").write_text("")
    result = lint_imports("layers", cwd=tmp_path)
    assert result.returncode != 0
    assert "raidtop.unplaced" in result.stdout and "exhaustive" in result.stdout


def layer_modules() -> list[str]:
    """Dotted names of every module file under the Textual-free packages."""
    names = []
    for layer in LAYERS:
        for path in sorted((PROJECT / "raidtop" / layer).rglob("*.py")):
            parts = path.relative_to(PROJECT).with_suffix("").parts
            names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def test_layer_modules_import_without_textual() -> None:
    modules = layer_modules()
    assert "raidtop.collect.sampler" in modules and "raidtop.collect.rates" in modules
    script = textwrap.dedent(
        """
        import importlib, sys

        class NoTextual:
            def find_spec(self, name, path=None, target=None):
                if name == "textual" or name.startswith("textual."):
                    raise ImportError(f"{name} imported from a Textual-free layer")
                return None

        sys.meta_path.insert(0, NoTextual())
        for module in sys.argv[1:]:
            importlib.import_module(module)
        leaked = sorted(m for m in sys.modules if m == "textual" or m.startswith("textual."))
        assert not leaked, leaked
        print(len(sys.argv) - 1)
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script, *modules], cwd=PROJECT, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == str(len(modules))


IMPORT_TEXTUAL = re.compile(r"^\s*(?:import\s+textual\b|from\s+textual\b)", re.MULTILINE)


def test_layer_sources_do_not_mention_a_textual_import() -> None:
    offenders = []
    for layer in LAYERS:
        for path in (PROJECT / "raidtop" / layer).rglob("*.py"):
            if IMPORT_TEXTUAL.search(path.read_text()):
                offenders.append(str(path.relative_to(PROJECT)))
    assert offenders == []


def test_the_scan_recognises_textual_imports() -> None:
    """The pattern itself: so an empty offender list means something."""
    assert IMPORT_TEXTUAL.search("import os\n    from textual.app import App\n")
    assert IMPORT_TEXTUAL.search("import textual\n")
    assert not IMPORT_TEXTUAL.search("# textual is not imported here\nimport textwrap\n")


def import_cycles(graph) -> list[list[str]]:
    """Every circle of modules that import each other (strongly connected, more than one module), sorted.

    Imports inside functions count: a circle hidden behind a deferred import is
    still two modules that cannot be understood, moved or tested apart.
    """
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    for start in sorted(graph.modules):
        if start in index:
            continue
        # Tarjan's algorithm, iterative: the package is deeper than Python's recursion limit likes.
        work = [(start, iter(sorted(graph.find_modules_directly_imported_by(start))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.find_modules_directly_imported_by(child)))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                members = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    members.append(member)
                    if member == node:
                        break
                if len(members) > 1:
                    cycles.append(sorted(members))
    return sorted(cycles)


def test_no_import_cycles() -> None:
    import grimp

    graph = grimp.build_graph("raidtop")
    cycles = import_cycles(graph)
    described = []
    for members in cycles:
        inside = set(members)
        arrows = [
            f"  {m} -> {i}" for m in members for i in sorted(graph.find_modules_directly_imported_by(m)) if i in inside
        ]
        described.append(f"circle of {len(members)}:\n" + "\n".join(arrows))
    assert cycles == [], "\n".join(described)


def test_the_cycle_finder_finds_a_planted_circle() -> None:
    import grimp

    graph = grimp.ImportGraph()
    for importer, imported in [("p.a", "p.b"), ("p.b", "p.c"), ("p.c", "p.a"), ("p.c", "p.d"), ("p.e", "p.e2")]:
        graph.add_import(importer=importer, imported=imported)
    graph.add_import(importer="p.e2", imported="p.e")
    assert import_cycles(graph) == [["p.a", "p.b", "p.c"], ["p.e", "p.e2"]]
