"""``raidtop watch``: the arrays' state and rebuild progress inline, in place of ``watch cat /proc/mdstat``."""

from __future__ import annotations

import argparse
import contextlib
import sys

from raidtop.cli import options

WATCH_OPTIONS = ("root", "interval", "theme", "replay")
"""The dashboard's options that mean something to a few lines of arrays (from the one table in cli/options.py)."""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``watch`` subcommand."""
    watch = subparsers.add_parser(
        "watch",
        help="the arrays' state and rebuild progress in a few lines, live (q or Ctrl+C stops)",
        description="Print each md array's level, state, [n/m], [UU_], sync progress, speed and ETA in a few "
        "lines under the prompt, updated every interval, as the dashboard's Arrays panel says them: "
        "watch cat /proc/mdstat, readable. q or Ctrl+C stops and leaves the last lines on the terminal.",
    )
    options.add_dashboard_options(watch, WATCH_OPTIONS)
    watch.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Watch until q, Ctrl+C or a hang-up; 0, or 128+signal after SIGHUP/SIGTERM, 2 for bad input."""
    go_on, recording = options.read_inputs(args)
    if not go_on:
        return 2
    if not sys.stdout.isatty():
        print("raidtop: watch draws on a terminal; for a script use raidtop snapshot --json", file=sys.stderr)
        return 2
    import os

    from raidtop.app.watch_app import WatchApp
    from raidtop.themes import theme_for_terminal

    theme = args.theme or theme_for_terminal(dict(os.environ))
    md_loaded = (args.root / "proc" / "mdstat").exists()
    app = WatchApp(options.dashboard_config(args, theme=theme), recording=recording, md_loaded=md_loaded)
    # On exit Textual prints the last frame, colours and all, to sys.stdout: the terminal itself, not the
    # wrapper that turns escape sequences into U+FFFD (every text in the frame is already plain).
    with contextlib.redirect_stdout(getattr(sys.stdout, "inner", sys.stdout)):
        app.run(inline=True, inline_no_clear=True)
    return app.return_code or 0
