"""Command line: ``raidtop`` (the dashboard) and ``raidtop snapshot --json``."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from raidtop import __version__


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for every raidtop command."""
    parser = argparse.ArgumentParser(
        prog="raidtop",
        description="Live terminal dashboard for Linux storage and md software RAID.",
    )
    parser.add_argument("--version", action="version", version=f"raidtop {__version__}")
    parser.add_argument(
        "--root", type=Path, default=Path("/"),
        help="read /proc and /sys under DIR instead of / (fixtures, recordings)",
    )
    parser.add_argument(
        "--interval", type=float, default=1.0, metavar="S", help="seconds between samples (default 1)"
    )
    parser.add_argument("--theme", default=None, help="theme name (see themes/)")
    sub = parser.add_subparsers(dest="command")
    snap = sub.add_parser("snapshot", help="sample twice and print the rates as JSON")
    snap.add_argument("--json", action="store_true", required=True, help="print JSON (the only format)")
    snap.add_argument("--interval", type=float, default=argparse.SUPPRESS, metavar="S",
                      help="seconds between the two samples (default 1)")
    snap.add_argument("--root", type=Path, default=argparse.SUPPRESS, help="as for raidtop")
    return parser


def run_snapshot(root: Path, interval: float) -> int:
    """Sample twice, ``interval`` seconds apart, and print one JSON document."""
    from raidtop.collect.sampler import Sampler
    from raidtop.snapshot_json import snapshot_json

    if not root.is_dir():
        print(f"raidtop: --root {root}: not a directory", file=sys.stderr)
        return 2
    sampler = Sampler(root)
    first = sampler.sample()
    time.sleep(max(0.0, interval))
    doc = snapshot_json(sampler.sample(), first.events)
    try:
        json.dump(doc, sys.stdout, indent=1)
        sys.stdout.write("\n")
        sys.stdout.flush()
    except BrokenPipeError:
        # `raidtop snapshot --json | head` is normal use, not an error.
        sys.stderr.close()
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``raidtop`` console script."""
    args = build_parser().parse_args(argv)
    if args.interval <= 0:
        print("raidtop: --interval must be positive", file=sys.stderr)
        return 2
    if args.command == "snapshot":
        return run_snapshot(args.root, args.interval)
    if not args.root.is_dir():
        print(f"raidtop: --root {args.root}: not a directory", file=sys.stderr)
        return 2
    from raidtop.app import RaidtopApp
    from raidtop.config import Config

    app = RaidtopApp(Config(root=args.root, interval=args.interval, theme=args.theme))
    app.run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
