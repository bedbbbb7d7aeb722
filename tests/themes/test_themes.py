"""Themes: every built-in renders the dashboard; a broken file falls back with a notice."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from raidtop.app.raidtop_app import RaidtopApp
from raidtop.config import Config
from raidtop.themes import BUILTIN_DIR, load_themes

from tests.conftest import DATA, two_root_snapshot

BUILTIN = sorted(e.name.removesuffix(".toml") for e in BUILTIN_DIR.iterdir() if e.name.endswith(".toml"))


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


# --- a theme problem is a notice, never a crash (issue 11) -------------------

HOSTILE_THEMES = {
    "colour.toml": "name = 'colour'\nprimary = '[/]'\n",
    "markupname.toml": "name = '[bold red]x[/]'\nprimary = '#ffffff'\n",
    "escapename.toml": "name = \"evil\\u001b]0;PWNED\\u0007\"\nprimary = '#ffffff'\n",
    "style.toml": "name = 'style'\nprimary = '#ffffff'\n[variables]\nfooter-key-style = '[/]'\n",
    "dark.toml": "name = 'darkish'\nprimary = '#ffffff'\ndark = 'yes'\n",
    # Not text where a colour goes: Color.parse fails with AttributeError / TypeError, not ColorParseError.
    "numbercolour.toml": "name = 'numbercolour'\nprimary = 5\n",
    "tablecolour.toml": "name = 'tablecolour'\nprimary = { a = 1 }\n",
}


def test_hostile_theme_files_are_refused_in_words(tmp_path: Path):
    import os

    for name, body in HOSTILE_THEMES.items():
        (tmp_path / name).write_text(body)
    os.mkfifo(tmp_path / "fifo.toml")  # read_text would wait here for ever
    loaded = load_themes([tmp_path])
    assert loaded.themes == []
    assert len(loaded.problems) == len(HOSTILE_THEMES) + 1
    assert any("FIFO" in p for p in loaded.problems)
    assert not any("\x1b" in p or "\x07" in p for p in loaded.problems)


@pytest.mark.parametrize("wanted", ["[/]", "[bold red]X[/]", "\x1b]0;PWNED\x07", "[link=http://x]"])
async def test_a_theme_name_with_markup_or_escapes_falls_back_and_q_quits(wanted: str):
    from tests.hostile import leaks, terminal_bytes

    app = RaidtopApp(Config(root=DATA / "root1", autostart_sampler=False, theme=wanted))
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        app.apply_snapshot(two_root_snapshot())
        await pilot.pause()
        assert app.theme == "raidtop-dark"
        assert any("not found" in n.message for n in app._notifications)
        assert leaks(terminal_bytes(app)) == []
        await pilot.press("q")
    assert app.return_code == 0


async def test_hostile_user_theme_files_leave_a_working_app(tmp_path: Path, monkeypatch):
    import os

    themes = tmp_path / "config" / "raidtop" / "themes"
    themes.mkdir(parents=True)
    for name, body in HOSTILE_THEMES.items():
        (themes / name).write_text(body)
    os.mkfifo(themes / "fifo.toml")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    app = RaidtopApp(Config(root=DATA / "root1", autostart_sampler=False, theme="colour"))
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        app.apply_snapshot(two_root_snapshot())
        await pilot.pause()
        assert app.theme == "raidtop-dark"
        # One pop-up lists every problem, a line each.
        (notice,) = [n for n in app._notifications if n.title == "Theme"]
        assert len(notice.message.splitlines()) == len(HOSTILE_THEMES) + 2
        await pilot.press("q")
    assert app.return_code == 0


def test_a_source_checkout_run_without_installing_finds_its_themes(tmp_path: Path):
    # ``python -m raidtop`` in a clone, with a Python that has the dependencies but not this
    # install: raidtop.themes.builtin does not exist there, the top-level themes/ folder does.
    repo = Path(__file__).resolve().parents[2]
    shutil.copytree(repo / "raidtop", tmp_path / "raidtop", ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    shutil.copytree(repo / "themes", tmp_path / "themes")
    probe = (
        "import sys\n"
        "sys.meta_path[:] = [f for f in sys.meta_path if '__editable__' not in getattr(f, '__module__', '')]\n"
        "import raidtop.themes as t\n"
        "print(t.BUILTIN_DIR)\n"
        "print(sorted(theme.name for theme in t.load_themes().themes))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False
    )
    assert result.returncode == 0, result.stderr
    folder, names = result.stdout.splitlines()
    assert Path(folder) == tmp_path / "themes"
    assert "raidtop-dark" in names
