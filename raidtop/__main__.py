"""Command line: ``raidtop`` (the dashboard) and its subcommands (raidtop.cli)."""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from raidtop import __version__
from raidtop.cli import SUBCOMMANDS, options


def build_parser(subcommands: bool = True) -> argparse.ArgumentParser:
    """The argument parser for every raidtop command (``subcommands=False``: the dashboard's options only)."""
    parser = options.Parser(
        prog="raidtop",
        description="Live terminal dashboard for Linux storage and md software RAID.",
    )
    parser.add_argument("--version", action="version", version=f"raidtop {__version__}")
    options.add_dashboard_options(parser)
    parser.add_argument(
        "--web", action="store_true", help="serve the dashboard to a browser on localhost (textual-serve)"
    )
    parser.add_argument("--port", type=options.PORT, default=8000, help="port for --web (default 8000)")
    if not subcommands:
        parser.set_defaults(command=None)
        return parser
    sub = parser.add_subparsers(dest="command")
    for name in SUBCOMMANDS:
        importlib.import_module(f"raidtop.cli.{name}").register(sub)
    return parser


def parse_arguments(argv: list[str] | None) -> argparse.Namespace:
    """The command line, read without importing a subcommand's module when none is named.

    The ten subcommand modules and what they import cost the dashboard 0.8 MB
    of memory and their import time before the first frame. A command line
    that names no subcommand and asks for no help is read by the dashboard's
    own options; anything that parser leaves over (a mistyped subcommand, say)
    goes to the full parser, which says what is wrong as it always did.
    """
    tokens = sys.argv[1:] if argv is None else list(argv)
    if not set(tokens) & {*SUBCOMMANDS, "-h", "--help"}:
        args, left_over = build_parser(subcommands=False).parse_known_args(tokens)
        if not left_over:
            return args
    return build_parser().parse_args(tokens)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``raidtop`` console script."""
    from raidtop.cli.plain_output import install

    install()  # before argparse, which echoes arguments back in its errors
    args = parse_arguments(argv)
    if args.command is not None:
        return args.func(args)
    for flag, given in (("--present", args.present), ("--demo-recording", args.demo_recording)):
        if given and not args.demo:
            print(f"raidtop: {flag} is for the demo: use raidtop --demo {flag}", file=sys.stderr)
            return 2
    go_on, recording = options.read_inputs(args)
    if not go_on:
        return 2
    if args.web:
        return serve_web(args)
    if not (sys.stdin.isatty() and sys.stdout.isatty()) and not os.environ.get("TEXTUAL_DRIVER"):
        # Without a terminal Textual's input thread spins on the end of stdin (a core, and
        # hundreds of MB of frames a minute to a file); --web's children bring their own driver.
        print(
            "raidtop: the dashboard needs a terminal on stdin and stdout; for a script use "
            "raidtop snapshot --json, for a few lines raidtop watch",
            file=sys.stderr,
        )
        return 2
    leave_tls_out()
    tune_malloc()
    from raidtop.app import startup_gc

    startup_gc.pause()  # resumed by the app once its first frame is drawn
    from raidtop.app.raidtop_app import RaidtopApp
    from raidtop.themes import theme_for_terminal

    # Only for a real terminal run: tests and --web (a browser) keep truecolor.
    theme = args.theme or (theme_for_terminal(dict(os.environ)) if sys.stdout.isatty() else None)
    app = RaidtopApp(options.dashboard_config(args, theme=theme), recording=recording)
    app.run()
    # 129/143 after SIGHUP/SIGTERM, 1 after a crash: a script sees how it ended.
    return app.return_code or 0


def leave_tls_out() -> None:
    """Keep the ``ssl`` module (and the OpenSSL libraries it maps) out of the dashboard's process.

    asyncio imports ``ssl`` for TLS transports, which the dashboard never opens:
    it reads /proc and /sys and talks to its terminal. libcrypto, libssl and
    the module are 4.4 MB of its memory (issue 30, item 4). asyncio and the
    standard library treat a missing ``ssl`` as "no TLS here"; the commands
    that speak TLS (``fleet``, ``exporter``) are other processes and import it
    as usual. Only before anything has imported it: a process that already
    holds ``ssl`` keeps it.
    """
    sys.modules.setdefault("ssl", None)  # type: ignore[arg-type]  # None: "import ssl" raises ImportError


def tune_malloc() -> None:
    """Set glibc's malloc for a long-running process with a few threads.

    One arena for all threads: glibc gives each thread that allocates an
    arena of its own (up to eight a core), each holding its own free memory;
    for the dashboard's few threads (sampling, bounded reads, device events)
    that was 0.4 to 0.7 MB. Python's allocator serves small objects either
    way and the GIL already has the threads take turns.

    Blocks of 32 KiB and more that the heap has no free room for are mapped
    on their own and returned when freed, rather than growing the heap: by
    default glibc raises that threshold as mapped blocks are freed and grows
    its heap for them, where the ones made and dropped each sample left pages
    resident one after another (0.7 MB at 500 devices after a few minutes;
    about 12 blocks a second are mapped instead).

    Before any thread starts; without glibc's ``mallopt`` (musl), nothing.
    (Issue 30, item 4.)
    """
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return
    mallopt(M_ARENA_MAX, 1)
    mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)


M_ARENA_MAX = -8
"""glibc's ``mallopt`` parameter for the most arenas (malloc.h)."""
M_MMAP_THRESHOLD = -3
"""glibc's ``mallopt`` parameter for the size from which a block is mapped on its own (malloc.h)."""
MMAP_THRESHOLD = 32 * 1024
"""Blocks this large or larger are mapped on their own."""


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
    # Each visitor's raidtop gets every dashboard option this one was given.
    command = [sys.executable, "-m", "raidtop", *options.dashboard_argv(options.dashboard_config(args))]
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
