"""raidtop.collect and raidtop.actions never import Textual.

They read and change the system for the app, the ``snapshot`` command and the
tests alike, so they must work where Textual is absent or not wanted. Two
checks: importing every module with Textual made unimportable (catches indirect
imports through other raidtop modules), and a scan of their source (catches an
import inside a function that the first check would not execute).
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[2]
LAYERS = ("collect", "actions")


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
