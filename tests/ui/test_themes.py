"""Themes: every built-in renders the dashboard; a broken file falls back with a notice."""

from __future__ import annotations

from pathlib import Path

import pytest

from raidtop.app import RaidtopApp
from raidtop.config import Config
from raidtop.themes import BUILTIN_DIR, load_themes

from .conftest import DATA, two_root_snapshot

BUILTIN = sorted(p.stem for p in BUILTIN_DIR.glob("*.toml"))


def test_builtin_themes_load_without_problems():
    loaded = load_themes([BUILTIN_DIR])
    assert loaded.problems == []
    assert {t.name for t in loaded.themes} == set(BUILTIN)
    assert {"raidtop-dark", "raidtop-light", "raidtop-high-contrast", "raidtop-16color"} <= set(BUILTIN)


def test_a_broken_theme_file_is_reported_and_skipped(tmp_path: Path):
    (tmp_path / "broken.toml").write_text("name = 'x'\nprimary = [unclosed\n")
    (tmp_path / "nameless.toml").write_text("primary = '#ffffff'\n")
    (tmp_path / "badcolour.toml").write_text("name = 'bad'\nprimary = 'not-a-colour'\n")
    loaded = load_themes([tmp_path])
    assert loaded.themes == []
    assert len(loaded.problems) == 3
    assert any("not valid TOML" in p for p in loaded.problems)


async def test_unknown_theme_falls_back_with_a_notice():
    app = RaidtopApp(Config(root=DATA / "root1", autostart_sampler=False, theme="no-such-theme"))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert app.theme == "raidtop-dark"
        assert any("no-such-theme" in n.message for n in app._notifications)


async def test_theme_key_cycles_raidtop_themes():
    app = RaidtopApp(Config(root=DATA / "root1", autostart_sampler=False))
    async with app.run_test(size=(120, 40)) as pilot:
        seen = [app.theme]
        for _ in BUILTIN:
            await pilot.press("T")
            seen.append(app.theme)
        assert set(seen) == set(BUILTIN) and seen[-1] == seen[0]


@pytest.mark.parametrize("theme", BUILTIN)
def test_each_theme_renders_the_dashboard(snap_compare, theme):
    async def feed(pilot) -> None:
        pilot.app.apply_snapshot(two_root_snapshot())
        await pilot.pause()

    app = RaidtopApp(Config(root=DATA / "root1", autostart_sampler=False, theme=theme))
    assert snap_compare(app, terminal_size=(120, 40), run_before=feed)
