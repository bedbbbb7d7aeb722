"""Issue 30: the dashboard's input thread sleeps until a key comes (Textual's polls ten times a second).

A small Textual app on raidtop's driver runs in a real terminal (a private
tmux server); the test reads the input thread's context switches from /proc
while nothing is typed, then types a lone Esc (which only the parser's
timeout can tell from an escape sequence) and ``q``.
"""

from __future__ import annotations

import shutil
import sys
import time
from pathlib import Path

import pytest

from raidtop.app import quiet_driver
from raidtop.app.quiet_driver import POLL_S, parser_wait, quiet_driver_class
from tests.terminal_pane import terminal_pane


APP = """
import sys, threading
from textual.app import App
from textual.widgets import Static
from raidtop.app.quiet_driver import quiet_driver_class

OUT = sys.argv[1]

class Probe(App):
    def compose(self):
        yield Static("probe up")
    def on_mount(self):
        thread = next(t for t in threading.enumerate() if t.name == "textual-input")
        with open(OUT, "a") as out:
            out.write(f"driver {type(self._driver).__name__}\\ninput {thread.native_id}\\n")
    def on_key(self, event):
        with open(OUT, "a") as out:
            out.write(f"key {event.key}\\n")
        if event.key == "q":
            self.exit()

Probe(driver_class=quiet_driver_class()).run()
"""


def _wakeups(pid: int, tid: int) -> int:
    for line in Path(f"/proc/{pid}/task/{tid}/status").read_text().splitlines():
        if line.startswith("voluntary_ctxt_switches:"):
            return int(line.split()[1])
    raise AssertionError("no voluntary_ctxt_switches line")


def _wait_for(path: Path, text: str, seconds: float = 30) -> str:
    deadline = time.monotonic() + seconds  # a bound on a busy machine, not a timing assertion
    while time.monotonic() < deadline:
        shown = path.read_text() if path.exists() else ""
        if text in shown:
            return shown
        time.sleep(0.1)
    raise AssertionError(f"{text!r} never came: {path.read_text() if path.exists() else ''!r}")


@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux (.ci/run installs it)")
def test_the_input_thread_sleeps_until_a_key_and_esc_and_q_still_arrive(tmp_path):
    script, out = tmp_path / "probe.py", tmp_path / "out.txt"
    script.write_text(APP)
    with terminal_pane([sys.executable, str(script), str(out)], "quiet", width=80, height=24) as pane:
        shown = _wait_for(out, "input ")
        assert "driver QuietLinuxDriver" in shown
        tid = int(shown.split("input ")[1].split()[0])
        before = _wakeups(pane.pid, tid)
        time.sleep(2)
        # Textual's driver wakes ~20 times in 2 s; a blocked thread not at all (a stray signal aside).
        assert _wakeups(pane.pid, tid) - before <= 2
        pane.send("Escape")
        _wait_for(out, "key escape")
        pane.send("q")
        _wait_for(out, "key q")
        assert pane.wait_gone(), "q did not end the app: the exit event did not wake the thread"


class _Parser:
    def __init__(self, deadline):
        self._timeout_time = deadline


def test_the_thread_sleeps_without_a_timeout_unless_the_parser_holds_an_esc():
    assert parser_wait(_Parser(None), now=100.0) is None
    assert parser_wait(_Parser(100.05), now=100.0) == pytest.approx(0.05)
    assert parser_wait(_Parser(99.0), now=100.0) == 0.0  # overdue: tick at once
    assert parser_wait(object(), now=100.0) == POLL_S  # a parser shaped otherwise: poll as Textual does


def test_textual_driver_setting_and_other_platforms_keep_textuals_choice(monkeypatch):
    from textual import constants

    assert quiet_driver_class() is quiet_driver.QuietLinuxDriver
    monkeypatch.setattr(constants, "DRIVER", "textual.drivers.headless_driver:HeadlessDriver")
    assert quiet_driver_class() is None
    monkeypatch.setattr(constants, "DRIVER", None)
    monkeypatch.setattr(quiet_driver, "LinuxDriver", None)
    assert quiet_driver_class() is None
