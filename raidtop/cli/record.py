"""``raidtop record``: store what raidtop reads, for replay and post-mortems."""

from __future__ import annotations

import argparse
import math
import signal
import sys
import time
from pathlib import Path

from raidtop.cli import options


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``record`` subcommand."""
    rec = subparsers.add_parser("record", help="record the raw inputs raidtop reads into a file for --replay")
    rec.add_argument(
        "-o", "--output", type=Path, required=True, metavar="FILE", help="recording to write (xz-compressed)"
    )
    rec.add_argument(
        "--interval",
        type=options.INTERVAL,
        default=argparse.SUPPRESS,
        metavar="S",
        help="seconds between samples (default 1)",
    )
    rec.add_argument(
        "--duration",
        type=options.DURATION,
        default=None,
        metavar="D",
        help="stop after D (seconds, or 5s, 2m, 1h; default: until Ctrl+C)",
    )
    rec.add_argument("--root", type=Path, default=argparse.SUPPRESS, help="as for raidtop")
    rec.add_argument(
        "--smart-interval",
        type=options.SMART_INTERVAL,
        default=600.0,
        metavar="S",
        help="record SMART, asking smartctl about each disk at most every S seconds (default 600; 0 = off)",
    )
    rec.add_argument(
        "--processes",
        action="store_true",
        help="also record every process's I/O and the cgroups' per-device share (the Processes panel in replay)",
    )
    rec.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Sample every ``interval`` seconds until ``duration`` or Ctrl+C, writing each tick."""
    from raidtop.collect.recording.roots import RecordingRoot, RecordingWriter
    from raidtop.presentation.judgement import judged_sampler, smart_poller
    from raidtop.collect.source import Root
    from raidtop.untrusted import plain

    # Checked here as well as by the parser: with NaN every comparison is
    # false, so the loop below would never sleep and never stop.
    problem = timing_problem(args.interval, args.duration)
    if problem:
        print(f"raidtop: {problem}", file=sys.stderr)
        return 2
    if not args.root.is_dir():
        print(f"raidtop: --root {plain(str(args.root))}: not a directory", file=sys.stderr)
        return 2
    try:
        recorder = RecordingRoot(Root(args.root))
        writer = RecordingWriter(args.output, args.interval, recorder)
    except OSError as exc:
        print(f"raidtop: cannot write {plain(str(args.output))}: {plain(exc.strerror or exc)}", file=sys.stderr)
        return 1
    from raidtop.collect.smart.poller import START_DELAY_S

    sampler = judged_sampler(recorder, smart=smart_poller(args.root, args.smart_interval, start_delay=START_DELAY_S))
    sampler.processes.want_processes = args.processes
    stop = False

    def request_stop(*_: object) -> None:
        nonlocal stop
        stop = True

    signal.signal(signal.SIGINT, request_stop)
    signal.signal(signal.SIGTERM, request_stop)
    started = time.monotonic()
    failed = None
    try:
        while not stop:
            tick = time.monotonic()
            snap = sampler.sample()
            events = [{"array": e.array, "event": e.event, "member": e.member} for e in snap.events]
            writer.add(snap.time, recorder.take_frame(), events=events)
            if args.duration is not None and tick - started + args.interval > args.duration:
                break
            # In slices: a signal handler does not cut time.sleep() short (PEP 475).
            wake = tick + args.interval
            while not stop and (left := wake - time.monotonic()) > 0:
                time.sleep(min(left, 0.25))
    except OSError as exc:  # the disk filled up, the file system went read-only
        failed = f"raidtop: writing {plain(str(args.output))} failed: {plain(exc.strerror or exc)}"
    finally:
        try:
            writer.close()
        except OSError as exc:
            failed = failed or f"raidtop: finishing {plain(str(args.output))} failed: {plain(exc.strerror or exc)}"
    if failed:
        print(failed + f" ({writer.frames} samples were written before)", file=sys.stderr)
        return 1
    size = writer.size_bytes
    per = size / writer.frames if writer.frames else 0
    print(
        f"recorded {writer.frames} samples to {plain(str(args.output))}: {size} bytes ({per:.0f} bytes per sample, "
        f"{writer.raw_bytes} bytes before compression)",
        file=sys.stderr,
    )
    return 0


MAX_INTERVAL_S = 86400.0
"""A day: longer gaps are a typing mistake, and time.sleep() refuses huge values."""


def timing_problem(interval: float, duration: float | None) -> str | None:
    """Why ``--interval``/``--duration`` cannot drive the record loop (one sentence), or ``None``."""
    if not (math.isfinite(interval) and 0 < interval <= MAX_INTERVAL_S):
        return f"--interval must be a number of seconds above 0 and at most {MAX_INTERVAL_S:g} (not {interval!r})"
    if duration is not None and not (math.isfinite(duration) and duration >= 0):
        return f"--duration must be a number of seconds, 0 or more (not {duration!r})"
    return None
