"""``raidtop record``: store what raidtop reads, for replay and post-mortems."""

from __future__ import annotations

import argparse
import signal
import sys
import time
from pathlib import Path

from raidtop.cli import options


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``record`` subcommand."""
    rec = subparsers.add_parser("record", help="record the raw inputs raidtop reads into a file for --replay")
    rec.add_argument("-o", "--output", type=Path, required=True, metavar="FILE", help="recording to write (xz-compressed)")
    rec.add_argument("--interval", type=options.INTERVAL, default=argparse.SUPPRESS, metavar="S", help="seconds between samples (default 1)")
    rec.add_argument("--duration", type=options.DURATION, default=None, metavar="D", help="stop after D seconds (default: until Ctrl+C)")
    rec.add_argument("--root", type=Path, default=argparse.SUPPRESS, help="as for raidtop")
    rec.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Sample every ``interval`` seconds until ``duration`` or Ctrl+C, writing each tick."""
    from raidtop.collect.recording import RecordingRoot, RecordingWriter
    from raidtop.collect.sampler import Sampler
    from raidtop.collect.source import Root

    if not args.root.is_dir():
        print(f"raidtop: --root {args.root}: not a directory", file=sys.stderr)
        return 2
    try:
        recorder = RecordingRoot(Root(args.root))
        writer = RecordingWriter(args.output, args.interval, recorder)
    except OSError as exc:
        print(f"raidtop: cannot write {args.output}: {exc.strerror}", file=sys.stderr)
        return 1
    sampler = Sampler(recorder)
    stop = False

    def request_stop(*_: object) -> None:
        nonlocal stop
        stop = True

    signal.signal(signal.SIGINT, request_stop)
    signal.signal(signal.SIGTERM, request_stop)
    started = time.monotonic()
    try:
        while not stop:
            tick = time.monotonic()
            snap = sampler.sample()
            events = [{"array": e.array, "event": e.event, "member": e.member} for e in snap.events]
            writer.add(snap.time, recorder.take_frame(), events=events)
            if args.duration is not None and tick - started + args.interval > args.duration:
                break
            time.sleep(max(0.0, args.interval - (time.monotonic() - tick)))
    finally:
        writer.close()
    size = writer.size_bytes
    per = size / writer.frames if writer.frames else 0
    print(f"recorded {writer.frames} samples to {args.output}: {size} bytes ({per:.0f} bytes per sample, "
          f"{writer.raw_bytes} bytes before compression)", file=sys.stderr)
    return 0
