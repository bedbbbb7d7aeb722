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
    (tmp_path / "raidtop" / "model_md.py").open("a").write("\nimport textual  # planted\n")
    result = lint_imports(cwd=tmp_path)
    assert result.returncode != 0
    assert "raidtop.collect.planted_ui -> rich (l.1)" in result.stdout
    assert "raidtop.model.md -> textual (l." in result.stdout
    assert "raidtop.collect.planted_action -> raidtop.actions.action_log" in result.stdout
    assert "raidtop.widgets.planted_screen -> raidtop.screens.help" in result.stdout


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
