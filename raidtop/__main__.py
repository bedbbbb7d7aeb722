"""Command line: ``raidtop`` (the dashboard) and its subcommands (raidtop.cli)."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from pathlib import Path

from raidtop import __version__
from raidtop.cli import SUBCOMMANDS, options


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for every raidtop command."""
    parser = options.Parser(
        prog="raidtop",
        description="Live terminal dashboard for Linux storage and md software RAID.",
    )
    parser.add_argument("--version", action="version", version=f"raidtop {__version__}")
    parser.add_argument(
        "--root",
        type=Path,
        default=Path("/"),
        help="read /proc and /sys under DIR instead of / (fixtures, recordings)",
    )
    parser.add_argument(
        "--interval", type=options.INTERVAL, default=1.0, metavar="S", help="seconds between samples (default 1)"
    )
    parser.add_argument(
        "--theme",
        default=None,
        help=(
            "theme name (built-in: raidtop-dark, raidtop-light, raidtop-high-contrast, raidtop-16color; "
            "or a file in ~/.config/raidtop/themes/)"
        ),
    )
    parser.add_argument("--no-bell", action="store_true", help="do not ring the bell on Fail and DegradedArray")
    parser.add_argument(
        "--demo",
        action="store_true",
        help="classroom demo: a simulated array to fail, remove and add disks on (no root, no md)",
    )
    parser.add_argument(
        "--web", action="store_true", help="serve the dashboard to a browser on localhost (textual-serve)"
    )
    parser.add_argument("--port", type=options.PORT, default=8000, help="port for --web (default 8000)")
    parser.add_argument(
        "--smart-interval",
        type=options.SMART_INTERVAL,
        default=600.0,
        metavar="S",
        help="ask smartctl about each disk at most every S seconds (default 600; 0 = off)",
    )
    parser.add_argument(
        "--replay", type=Path, default=None, metavar="FILE", help="replay a recording made with `raidtop record` or R"
    )
    sub = parser.add_subparsers(dest="command")
    for name in SUBCOMMANDS:
        importlib.import_module(f"raidtop.cli.{name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``raidtop`` console script."""
    from raidtop.cli.plain_output import install

    install()  # before argparse, which echoes arguments back in its errors
    args = build_parser().parse_args(argv)
    if args.command is not None:
        return args.func(args)
    if not args.root.is_dir():
        print(f"raidtop: --root {args.root}: not a directory", file=sys.stderr)
        return 2
    recording = None
    if args.replay is not None:
        from raidtop.collect.recording.roots import RecordingError, read_recording

        try:
            # Read once, here; the app is handed what was read.
            recording = read_recording(args.replay)
        except RecordingError as exc:
            print(f"raidtop: {exc}", file=sys.stderr)
            return 2
    if args.web:
        return serve_web(args)
    from raidtop.app import startup_gc

    startup_gc.pause()  # resumed by the app once its first frame is drawn
    from raidtop.app.raidtop_app import RaidtopApp
    from raidtop.config import Config
    from raidtop.themes import theme_for_terminal

    # Only for a real terminal run: tests and --web (a browser) keep truecolor.
    theme = args.theme or (theme_for_terminal(dict(os.environ)) if sys.stdout.isatty() else None)
    app = RaidtopApp(
        Config(
            root=args.root,
            interval=args.interval,
            theme=theme,
            bell=not args.no_bell,
            replay=args.replay,
            demo=args.demo,
            smart_interval=args.smart_interval,
        ),
        recording=recording,
    )
    app.run()
    # 129/143 after SIGHUP/SIGTERM, 1 after a crash: a script sees how it ended.
    return app.return_code or 0


def serve_web(args: argparse.Namespace) -> int:
    """Serve the same dashboard in a browser: each visitor gets their own raidtop process.

    Only on localhost, only under a random address printed here, only to
    raidtop's own page (see raidtop.cli.web): the dashboard can change the system.
    """
    import shlex

    try:
        from raidtop.cli.web import GuardedServer
    except ImportError:
        print("raidtop: --web needs textual-serve (pip install textual-serve)", file=sys.stderr)
        return 1
    command = [sys.executable, "-m", "raidtop", "--root", str(args.root), "--interval", str(args.interval)]
    command += ["--smart-interval", str(args.smart_interval)]
    if args.theme:
        command += ["--theme", args.theme]
    if args.replay:
        command += ["--replay", str(args.replay)]
    if args.demo:
        command += ["--demo"]
    server = GuardedServer(shlex.join(command), port=args.port)
    print(f"raidtop: serving on {server.url} (only this address works; Ctrl+C stops)", file=sys.stderr, flush=True)
    try:
        server.serve()
    except OSError as exc:
        reason = exc.strerror or str(exc)
        print(f"raidtop: cannot serve on localhost port {args.port}: {reason}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
