"""Issue 29: ``raidtop watch`` in a real terminal (tmux, 80×24): live lines, q leaves them with the prompt below."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.app.test_watch_app import rebuilding_root

REPO = Path(__file__).resolve().parents[2]
needs_tmux = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux (.ci/run installs it)")
PROMPT = "PROMPT$"


class Pane:
    """A tmux server of its own with one 80×24 pane running ``command``."""

    def __init__(self, command: str) -> None:
        self.tmux = ["tmux", "-L", f"raidtop-watch-{uuid.uuid4().hex[:8]}"]
        env = dict(os.environ, TERM="xterm-256color", PYTHONPATH=str(REPO))
        subprocess.run(
            [*self.tmux, "new-session", "-d", "-x", "80", "-y", "24", "-c", str(REPO), command], check=True, env=env
        )

    def send(self, *keys: str) -> None:
        subprocess.run([*self.tmux, "send-keys", *keys], check=True)

    def lines(self) -> list[str]:
        shown = subprocess.run([*self.tmux, "capture-pane", "-p"], capture_output=True, text=True, check=True).stdout
        return shown.rstrip("\n").split("\n")

    def pid(self) -> int:
        out = subprocess.run([*self.tmux, "display-message", "-p", "#{pane_pid}"], capture_output=True, text=True)
        return int(out.stdout.strip())

    def wait_for(self, condition, what: str, seconds: float = 60) -> list[str]:
        deadline = time.monotonic() + seconds  # a bound on a busy machine, not a timing assertion
        while time.monotonic() < deadline:
            lines = self.lines()
            if condition(lines):
                return lines
            time.sleep(0.2)
        raise AssertionError(f"{what} never showed:\n" + "\n".join(self.lines()))

    def close(self) -> None:
        subprocess.run([*self.tmux, "kill-server"], capture_output=True)


def watch_command(root: Path) -> str:
    return f"{shlex.quote(sys.executable)} -m raidtop watch --root {shlex.quote(str(root))}"


@needs_tmux
def test_q_leaves_the_last_lines_and_the_prompt_below_them(tmp_path):
    root = rebuilding_root(tmp_path / "root")
    pane = Pane(f"env PS1={shlex.quote(PROMPT + ' ')} bash --norc --noprofile")
    try:
        pane.wait_for(lambda lines: any(line.startswith(PROMPT) for line in lines), "the shell's prompt")
        pane.send("clear; echo before-watch; " + watch_command(root), "Enter")
        pane.wait_for(lambda lines: any("md127" in line and "[UUUUU_]" in line for line in lines), "md127's row")
        pane.send("q")
        lines = pane.wait_for(lambda lines: lines[-1].rstrip() == PROMPT, "the prompt after q")
        shown = [line.rstrip() for line in lines if line.strip()]
        row = next(i for i, line in enumerate(shown) if "md127" in line)
        assert shown[0] == "before-watch"  # drawn under what was there, nothing above it erased
        assert shown[1].startswith("raidtop watch · root")
        assert "~ recovering" in shown[row] and "[UUUUU_]" in shown[row] and "%" in shown[row]
        assert shown[row + 1].startswith("md127: degraded")
        assert shown[-1] == PROMPT and len(shown) == row + 3  # the prompt right below the last line
        assert all(len(line) <= 80 for line in shown)
        assert not any("\ufffd" in line or "\x1b" in line for line in shown)  # the last frame printed as colours
    finally:
        pane.close()


@needs_tmux
def test_a_hung_up_terminal_stops_it(tmp_path):
    root = rebuilding_root(tmp_path / "root")
    pane = Pane("exec " + watch_command(root))
    try:
        pane.wait_for(lambda lines: any("md127" in line for line in lines), "md127's row")
        pid = pane.pid()
    finally:
        pane.close()  # the terminal goes away: SIGHUP
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and Path(f"/proc/{pid}").exists():
        time.sleep(0.1)
    assert not Path(f"/proc/{pid}").exists(), "raidtop watch outlived its terminal"


def test_without_a_terminal_it_points_to_the_json_command(tmp_path):
    root = rebuilding_root(tmp_path / "root")
    done = subprocess.run(
        [sys.executable, "-m", "raidtop", "watch", "--root", str(root)],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=dict(os.environ, PYTHONPATH=str(REPO)),
        timeout=60,
    )
    assert done.returncode == 2
    assert "raidtop: watch draws on a terminal; for a script use raidtop snapshot --json" in done.stderr


@needs_tmux
def test_without_md_it_says_so_and_exits_0(tmp_path):
    (tmp_path / "root" / "proc").mkdir(parents=True)
    pane = Pane(f"env PS1={shlex.quote(PROMPT + ' ')} bash --norc --noprofile")
    try:
        pane.wait_for(lambda lines: any(line.startswith(PROMPT) for line in lines), "the shell's prompt")
        pane.send(watch_command(tmp_path / "root") + "; echo rc=$?", "Enter")
        lines = pane.wait_for(lambda lines: any(line.startswith("rc=") for line in lines), "the exit status")
        said = " ".join(" ".join(lines).split())
        assert "raidtop watch: no md arrays on this machine" in said
        assert "rc=0" in said
    finally:
        pane.close()
