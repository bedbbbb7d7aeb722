"""The wheel as a user gets it: built, installed into a fresh venv, run from there.

An editable install and PYTHONPATH both see the checkout, so they hid that a
wheel carried no theme files (the app started with "theme 'raidtop-dark' not
found"). Here nothing of the checkout is importable: the venv is new, the
working directory is a temporary one, and raidtop runs from its own console
script. Dependencies come from PyPI through pip's cache, as ``pip install``
fetches them for a user.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import uuid
import zipfile
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[2]
ROOT = PROJECT / "tests" / "data" / "ui" / "root1"
WAIT_S = 60  # a guard against a hang, not a timing assertion
pytestmark = pytest.mark.wheel


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A fresh venv with the freshly built wheel installed; returns its bin directory."""
    work = tmp_path_factory.mktemp("wheel")
    # Build from a copy: building in place leaves build/ and *.egg-info in the checkout.
    source = work / "source"
    source.mkdir()
    for folder in ("raidtop", "themes"):
        # Not the editable install's compiled module: the wheel's build must make its own.
        shutil.copytree(PROJECT / folder, source / folder, ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(PROJECT / name, source / name)
    dist = work / "dist"
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(source)], cwd=work)
    (wheel,) = dist.glob("raidtop-*.whl")
    venv = work / "venv"
    run([sys.executable, "-m", "venv", str(venv)], cwd=work)
    run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check", str(wheel)],
        cwd=work,
    )
    return venv / "bin"


def run(args: list[str], cwd: Path, **kwargs) -> subprocess.CompletedProcess[str]:
    """Run a build or install step; fail with its own words when it fails."""
    result = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=600, env=user_env(cwd), **kwargs)
    assert result.returncode == 0, (
        f"{args[:4]} exited {result.returncode}:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    )
    return result


def user_env(home: Path) -> dict[str, str]:
    """A user's environment: nothing points at the checkout; config and data dirs are empty."""
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME"}}
    # pip's cache stays the user's own (so a second run installs from it).
    env.setdefault("PIP_CACHE_DIR", str(Path.home() / ".cache" / "pip"))
    env.update(XDG_CONFIG_HOME=str(home / "config"), XDG_DATA_HOME=str(home / "data"), TERM="xterm-256color")
    return env


def run_installed(installed: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The installed console script with ``args``, run from ``home`` as its user; it must exit 0."""
    result = subprocess.run(
        [str(installed / "raidtop"), *args],
        cwd=home,
        env=user_env(home),
        capture_output=True,
        text=True,
        timeout=WAIT_S,
    )
    assert result.returncode == 0, result.stderr
    return result


def test_the_wheel_carries_the_themes_and_no_dead_dependency(installed: Path):
    (wheel,) = installed.parent.parent.glob("dist/raidtop-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata = next(archive.read(n).decode() for n in names if n.endswith(".dist-info/METADATA"))
    themes = sorted(Path(n).name for n in names if n.startswith("raidtop/themes/") and n.endswith(".toml"))
    assert themes == ["raidtop-16color.toml", "raidtop-dark.toml", "raidtop-high-contrast.toml", "raidtop-light.toml"]
    assert "raidtop/demo/data/rebuild.xz" in names  # the demo's recorded rebuild, package data too
    # What a user's install pulls in: the test extra's lines carry `extra == "test"`.
    requires = [line for line in metadata.splitlines() if line.startswith("Requires-Dist:") and "extra ==" not in line]
    assert requires and not any("psutil" in line for line in requires)  # raidtop reads /proc through its Root


def test_the_wheel_carries_the_compiled_disk_code_and_the_installed_raidtop_uses_it(installed: Path, tmp_path: Path):
    (wheel,) = installed.parent.parent.glob("dist/raidtop-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
    for module in ("raidtop/collect/_diskstats_native", "raidtop/collect/rates/_disk_rates_native"):
        assert any(n.startswith(f"{module}.") and n.endswith(".so") for n in names), names
        assert f"{module}.pyi" in names
    check = "from raidtop.collect import native; print(None not in (native.diskstats_parse, native.disk_rates))"
    result = subprocess.run(
        [str(installed / "python"), "-c", check],
        cwd=tmp_path,
        env=user_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=WAIT_S,
    )
    assert result.stdout.strip() == "True", result.stderr


def test_snapshot_json_from_the_installed_wheel(installed: Path, tmp_path: Path):
    result = run_installed(installed, tmp_path, "snapshot", "--json", "--interval", "0.2", "--root", str(ROOT))
    document = json.loads(result.stdout)
    assert document["disks"], document.keys()
    # The installed copy ran, not the checkout.
    where = subprocess.run(
        [str(installed / "python"), "-c", "import raidtop; print(raidtop.__file__)"],
        cwd=tmp_path,
        env=user_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=WAIT_S,
    )
    assert str(installed.parent) in where.stdout and str(PROJECT) not in where.stdout


def test_the_bundled_recording_replays_by_name_from_the_installed_wheel(installed: Path, tmp_path: Path):
    # The README's `--replay builtin:rebuild`: no clone, no path into site-packages to guess.
    (tmp_path / "textfile").mkdir()
    run_installed(installed, tmp_path, "exporter", "--replay", "builtin:rebuild", "--textfile", "textfile", "--once")
    assert 'raidtop_md_info{array="md6",' in (tmp_path / "textfile" / "raidtop.prom").read_text()


def tui_screen(installed: Path, home: Path, *extra: str) -> tuple[str, int]:
    """Start the installed TUI in a private tmux server, wait for the dashboard, press q.

    Returns the screen as text (with any notification still on it) and the exit code.
    """
    if shutil.which("tmux") is None:
        pytest.fail("tmux is needed to run the installed TUI on a terminal (.ci/run installs it)")
    socket, session = f"raidtop-wheel-{uuid.uuid4().hex[:8]}", "wheel"
    status_file = home / "exit-status"
    command = f"{installed / 'raidtop'} --root {ROOT} {' '.join(extra)}; echo $? > {status_file}; sleep 30"
    tmux = ["tmux", "-L", socket]
    subprocess.run(
        [*tmux, "new-session", "-d", "-s", session, "-x", "160", "-y", "50", "-c", str(home), command],
        check=True,
        env=user_env(home),
    )
    try:
        screen = ""
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline and "sdq" not in screen:
            time.sleep(0.2)
            screen = subprocess.run([*tmux, "capture-pane", "-p", "-t", session], capture_output=True, text=True).stdout
        assert "sdq" in screen, f"the dashboard never appeared:\n{screen}"
        # Theme notices are raised before the first sample; one more frame makes sure one would show.
        time.sleep(0.5)
        screen = subprocess.run([*tmux, "capture-pane", "-p", "-t", session], capture_output=True, text=True).stdout
        subprocess.run([*tmux, "send-keys", "-t", session, "q"], check=True)
        while time.monotonic() < deadline and not status_file.exists():
            time.sleep(0.2)
        assert status_file.exists(), "raidtop did not exit after q"
        return screen, int(status_file.read_text().strip())
    finally:
        subprocess.run([*tmux, "kill-server"], check=False, capture_output=True)


def test_the_installed_tui_finds_its_theme_and_quits_with_0(installed: Path, tmp_path: Path):
    screen, code = tui_screen(installed, tmp_path)
    assert "not found" not in screen, screen
    assert code == 0


def test_a_missing_theme_notice_would_be_seen(installed: Path, tmp_path: Path):
    """The check above can fail: an unknown theme's notice is on the same captured screen."""
    screen, code = tui_screen(installed, tmp_path, "--theme", "no-such-theme")
    assert "not found" in screen, screen
    assert code == 0
