"""The dashboard's options, declared once: CLI -> Config -> argv and back, and --web keeps every one."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from dataclasses import fields
from pathlib import Path

import pytest

from raidtop import __main__ as entry
from raidtop.cli import SUBCOMMANDS, options
from raidtop.config import Config


def _config(argv: list[str]) -> Config:
    return options.dashboard_config(entry.build_parser().parse_args(argv))


def test_no_options_give_the_default_config():
    assert _config([]) == Config()


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["--no-bell"],
        ["--root", "/tmp/x", "--interval", "2m", "--theme", "raidtop-light", "--demo"],
        ["--smart-interval", "0", "--replay", "rec.jsonl.gz", "--no-bell", "--interval", "0.5"],
        ["--demo", "--present", "--demo-recording"],
    ],
)
def test_every_option_survives_the_round_trip(argv):
    config = _config(argv)
    assert _config(options.dashboard_argv(config)) == config


def test_each_option_sets_its_own_field():
    config = _config(["--no-bell", "--demo", "--interval", "5", "--smart-interval", "60", "--root", "/srv"])
    assert (config.bell, config.demo, config.interval, config.smart_interval, config.root) == (
        False,
        True,
        5.0,
        60.0,
        Path("/srv"),
    )
    assert options.dashboard_argv(Config()) == ["--root", "/", "--interval", "1.0", "--smart-interval", "600.0"]


def test_every_option_names_a_config_field():
    names = {f.name for f in fields(Config)}
    assert {o.field for o in options.DASHBOARD_OPTIONS} <= names
    # What no option sets is for tests only.
    assert names - {o.field for o in options.DASHBOARD_OPTIONS} == {"autostart_sampler"}


def test_web_starts_each_visitor_with_every_option(monkeypatch, capsys):
    started = []

    class Recorded:
        """Stands in for the HTTP server: only the command it would run is looked at."""

        def __init__(self, command: str, port: int) -> None:
            started.append((shlex.split(command), port))
            self.url = "http://localhost:1/x/"

        def serve(self) -> None:
            return None

    monkeypatch.setattr("raidtop.cli.web.GuardedServer", Recorded)
    argv = ["--web", "--port", "8123", "--no-bell", "--demo", "--theme", "raidtop-16color", "--interval", "2"]
    assert entry.main(argv) == 0
    command, port = started[0]
    assert port == 8123
    assert command[:3] == [sys.executable, "-m", "raidtop"]
    assert _config(command[3:]) == _config(argv)
    assert "--no-bell" in command and "--web" not in command and "--port" not in command


def test_no_bell_help_names_every_event_that_rings(capsys):
    from raidtop.model.md_events import BELL_EVENTS

    with pytest.raises(SystemExit):
        entry.build_parser().parse_args(["--help"])
    help_text = " ".join(capsys.readouterr().out.split())  # argparse wraps the line anywhere
    said = help_text.rsplit("--no-bell", 1)[1].split("--demo", 1)[0]  # the option list, not the usage line
    assert BELL_EVENTS and all(name in said for name in BELL_EVENTS)
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    row = next(line for line in readme.splitlines() if line.startswith("| `raidtop --no-bell` |"))
    assert all(name in row for name in BELL_EVENTS), row


@pytest.mark.parametrize("flag", ["--present", "--demo-recording"])
def test_the_demos_own_options_without_the_demo_are_refused_in_a_sentence(flag, capsys):
    assert entry.main([flag]) == 2
    assert capsys.readouterr().err == f"raidtop: {flag} is for the demo: use raidtop --demo {flag}\n"


def test_the_dashboards_command_line_imports_no_subcommand():
    """Issue 30: the subcommands' modules cost the dashboard 0.8 MB; a dashboard command line never loads them."""
    script = (
        "import sys, raidtop.__main__ as entry\n"
        "args = entry.parse_arguments(['--interval', '2', '--root', '/'])\n"
        "print(args.command, args.interval)\n"
        "print(' '.join(m for m in sys.modules if m.startswith('raidtop.cli.')))\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    first, loaded = result.stdout.splitlines()
    assert first == "None 2.0"
    assert not {f"raidtop.cli.{name}" for name in SUBCOMMANDS} & set(loaded.split()), loaded


def test_the_dashboard_loads_no_sqlite():
    """Issue 30: SQLite (its library ~1 MB of the dashboard's memory) is for the stores: benchmarks and the lab."""
    script = "import sys, raidtop.__main__, raidtop.app.raidtop_app\nprint(any('sqlite' in m for m in sys.modules))\n"
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"


_RUNNING_DASHBOARD = """
import asyncio, sys
from pathlib import Path
from raidtop.app.raidtop_app import RaidtopApp
from raidtop.config import Config

async def main():
    app = RaidtopApp(Config(root=Path(sys.argv[1]), interval=0.5))
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(100):
            await pilot.pause(0.05)
            if app.live.latest is not None and not app.live.latest.since_boot:
                break
        assert app.live.latest is not None and not app.live.latest.since_boot, "no second sample"
    print(" ".join(sorted(sys.modules)))

asyncio.run(main())
"""


def test_a_running_dashboard_holds_no_module_it_does_not_use():
    """Issue 30, the dashboard's memory: each of these held 0.4-1 MB for work the dashboard never does.

    sqlite3 is for the benchmark and lab stores, statistics was one median,
    importlib.resources and the zipfile module it pulls in read themes only
    from a zipped install, quopri an mdstat pasted from a mail.
    """
    root = Path(__file__).resolve().parents[1] / "data" / "sysstat" / "root1"
    result = subprocess.run(
        [sys.executable, "-c", _RUNNING_DASHBOARD, str(root)], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]
    loaded = set(result.stdout.split())
    assert "raidtop.collect.sampler" in loaded and "raidtop.themes" in loaded  # it did run and sample
    unused = {"sqlite3", "_sqlite3", "statistics", "zipfile", "importlib.resources", "quopri"}
    assert not unused & loaded, sorted(unused & loaded)


def test_a_subcommand_a_typo_or_a_root_named_like_one_still_reads_as_before(capsys):
    assert entry.parse_arguments(["snapshot", "--json"]).command == "snapshot"
    args = entry.parse_arguments(["--root", "snapshot"])  # a directory that happens to share a name
    assert (args.command, str(args.root)) == (None, "snapshot")
    with pytest.raises(SystemExit) as stop:
        entry.parse_arguments(["snapsot"])
    assert stop.value.code == 2
    assert "invalid choice: 'snapsot'" in capsys.readouterr().err


@pytest.mark.parametrize("no_terminal", ["stdin", "stdout"])
def test_the_dashboard_without_a_terminal_says_so_and_exits_2(no_terminal):
    """Found in issue 30: with stdin at its end Textual's input thread spun a core, writing 40 MB of frames a second."""
    env = {k: v for k, v in os.environ.items() if k != "TEXTUAL_DRIVER"}
    leader, terminal = os.openpty()  # the other side is a real terminal
    try:
        result = subprocess.run(
            [sys.executable, "-m", "raidtop"],
            stdin=subprocess.DEVNULL if no_terminal == "stdin" else terminal,
            stdout=terminal if no_terminal == "stdin" else subprocess.PIPE,
            stderr=subprocess.PIPE,
            timeout=60,
            env=env,
        )
        os.set_blocking(leader, False)
        try:
            drawn = os.read(leader, 65536)
        except BlockingIOError:
            drawn = b""
    finally:
        os.close(terminal)
        os.close(leader)
    assert result.returncode == 2
    assert result.stderr.decode().strip() == (
        "raidtop: the dashboard needs a terminal on stdin and stdout; for a script use "
        "raidtop snapshot --json, for a few lines raidtop watch"
    )
    assert drawn == b"" and not result.stdout  # not one frame
