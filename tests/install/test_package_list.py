"""pyproject.toml lists raidtop's packages by hand (the themes folder is mapped
into the package), so a new package left off the list would be missing from
the wheel: this test names it before a user finds out."""

from __future__ import annotations

import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _setuptools_table() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]


def test_every_package_under_raidtop_is_listed_for_the_wheel():
    listed = set(_setuptools_table()["packages"])
    # Every folder is a package to setuptools, also one holding only data (demo/data).
    on_disk = {
        ".".join(folder.relative_to(REPO).parts)
        for folder in [REPO / "raidtop", *(REPO / "raidtop").rglob("*")]
        if folder.is_dir() and folder.name != "__pycache__"
    }
    assert on_disk - listed == set(), "add these to [tool.setuptools] packages in pyproject.toml"
    mapped = set(_setuptools_table()["package-dir"])
    assert listed - on_disk == mapped


def test_the_builtin_themes_live_in_the_top_level_themes_folder():
    table = _setuptools_table()
    assert table["package-dir"]["raidtop.themes.builtin"] == "themes"
    names = sorted(p.name for p in (REPO / "themes").glob("*.toml"))
    assert names == ["raidtop-16color.toml", "raidtop-dark.toml", "raidtop-high-contrast.toml", "raidtop-light.toml"]
    assert not list((REPO / "raidtop" / "themes").glob("*.toml")), "built-in themes belong in themes/, not the package"
