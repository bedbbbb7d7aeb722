"""``raidtop bench PRESET --target PATH``: run a fio preset, store it, print the numbers.

The same guards as the Benchmarks screen apply: a raw device must be one
raidtop's lab created, or named again with ``--allow-raw-device``. Ctrl-C,
SIGTERM and a hang-up (SIGHUP, a dropped SSH session) all stop fio the same
way: one SIGINT to fio, the partial result stored, the test file removed, the
action logged, and exit 128 + the signal number (130, 143, 129). The handlers
are raidtop's own, installed whatever it inherited: a shell that starts a
background job with SIGINT ignored must not make Ctrl-C a no-op.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from typing import Any, TextIO

from raidtop.cli import options

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
"""Signals that stop a running benchmark cleanly."""


def _say(text: str, stream: TextIO | None = None, end: str = "\n") -> None:
    """Print, ignoring a terminal that went away (a hang-up must not cost the cleanup)."""
    try:
        print(text, end=end, file=stream or sys.stdout, flush=True)
    except (OSError, ValueError):
        pass


def _err(text: str) -> None:
    _say(text, sys.stderr)


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``bench`` subcommand."""
    bench = subparsers.add_parser(
        "bench",
        help="run a fio preset against a directory or a lab device and store the result",
        description="Run a fio benchmark preset; results go to the history the Benchmarks screen shows.",
    )
    bench.add_argument("preset", nargs="?", help="preset name (see --list)")
    bench.add_argument("--target", metavar="PATH", help="a directory (a test file is written there) or a block device")
    bench.add_argument(
        "--runs", type=options.RUNS, default=1, metavar="N", help="run N passes and report mean ± stddev (default 1)"
    )
    bench.add_argument(
        "--runtime",
        type=options.FIO_RUNTIME,
        default=None,
        metavar="S",
        help="seconds per pass (default: the preset's, else 15)",
    )
    bench.add_argument(
        "--size",
        type=options.FIO_SIZE,
        default=None,
        metavar="SIZE",
        help="test-file size for a directory target (default 1G)",
    )
    bench.add_argument(
        "--allow-raw-device",
        default=None,
        metavar="DEV",
        help="allow writing to this raw device although raidtop's lab did not create it (destroys its data)",
    )
    bench.add_argument("--json", action="store_true", help="print the results as JSON")
    bench.add_argument("--list", action="store_true", help="list the presets and exit")
    bench.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Plan, run ``--runs`` passes and print; the exit code says how it went."""
    from raidtop.actions.fio.presets import load_presets
    from raidtop.actions.fio.session import Batch
    from raidtop.actions.fio.store import RunStore

    presets = load_presets()
    for problem in presets.problems:
        _err(f"raidtop bench: {problem}")
    if args.list:
        for listed in presets.presets:
            runtime = presets.runtime_of(listed)
            print(f"{listed.name:<16} {listed.summary:<28} {runtime:>4} s  {listed.description}")
        return 0
    if not args.preset or not args.target:
        print(
            "raidtop bench: give a PRESET and --target PATH (raidtop bench --list shows the presets)", file=sys.stderr
        )
        return 2
    preset = presets.get(args.preset)
    if preset is None:
        print(f"raidtop bench: no preset {args.preset!r}; choose one of {', '.join(presets.names)}", file=sys.stderr)
        return 2
    if args.runs < 1 or (args.runtime is not None and args.runtime < 1):
        print("raidtop bench: --runs and --runtime must be positive", file=sys.stderr)
        return 2
    history = RunStore()
    batch = Batch()
    received: list[int] = []

    def on_signal(signum: int, _frame: Any) -> None:
        # fio runs in its own session: it hears only the one SIGINT the batch forwards.
        received.append(signum)
        batch.cancel()

    previous = {sig: signal.signal(sig, on_signal) for sig in STOP_SIGNALS}
    try:
        code = _plan_and_run(args, preset, presets, history, batch, received)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return 128 + received[0] if received else code


def _plan_and_run(args: argparse.Namespace, preset, presets, history, batch, received: list[int]) -> int:
    """Everything after the preset is known, with the stop signals already caught."""
    from raidtop.actions.fio.compare import METRIC_BY_KEY, export_document, summarise_passes
    from raidtop.actions.fio.guards import TargetRefused
    from raidtop.actions.fio.session import FioMissing, plan_run, run_repeat
    from raidtop.actions.fio.store import HistoryUnavailable

    try:
        # Where the result goes is checked before fio runs, not discovered after.
        history.ensure_writable()
        plan = plan_run(
            preset,
            args.target,
            presets=presets,
            runtime_s=args.runtime,
            size=args.size,
            allow_raw_device=args.allow_raw_device,
        )
    except (TargetRefused, FioMissing, HistoryUnavailable) as exc:
        _err(f"raidtop bench: {exc}")
        return 2
    if received:
        return 1  # stopped while planning: fio never started
    if plan.command.engine_note:
        _err(f"raidtop bench: {plan.command.engine_note}")
    _err(f"running: {plan.command.display}")
    _err(f"  Handoff: {plan.handoff}")  # the confirmation's own sentence: how the command shown becomes the one run
    show_progress = sys.stderr.isatty() and not args.json

    def on_point(point) -> None:
        lat = f"{point.lat_us / 1000:.2f} ms" if point.lat_us is not None else "-"
        _say(
            f"\r  {point.t_s:5.0f} s  {point.iops:10.0f} IOPS  {point.mib_s:9.1f} MiB/s  {lat:>10}", sys.stderr, end=""
        )

    def on_pass(number: int, record) -> None:
        if show_progress:
            _err("")
        if not args.json:
            _say(_pass_line(number, args.runs, record))

    records: list = []
    done = threading.Event()

    def work() -> None:
        try:
            records.extend(
                run_repeat(
                    plan, history, args.runs, batch=batch, on_point=on_point if show_progress else None, on_pass=on_pass
                )
            )
        finally:
            done.set()

    # fio is started and waited for by this thread, which lives as long as fio:
    # the parent-death signal that stops fio is tied to the thread that forked it.
    worker = threading.Thread(target=work, name="raidtop-bench", daemon=True)
    worker.start()
    # A short timed wait: the signal handlers run between waits, in this thread.
    while not done.wait(0.2):
        pass
    worker.join()
    kept = [r for r in records if r.stored is not None]
    stored = [r.stored for r in kept]
    summary = summarise_passes(stored) if len(stored) > 1 else None
    if args.json:
        doc = {
            "preset": preset.name,
            "target": plan.target.path,
            "command": plan.command.display,
            "engine": plan.command.engine,
            "engine_note": plan.command.engine_note,
            "history": str(history.path),
            "runs": [dict(entry, message=rec.message) for entry, rec in zip(export_document(stored), kept)],
            "failures": [r.message for r in records if r.stored is None],
        }
        if summary is not None:
            doc["summary"] = {
                s.key: {"mean": s.mean, "stddev": s.stddev, "values": list(s.values)}
                for s in summary.stats
                if s.mean is not None
            }
        _say(json.dumps(doc, indent=1))
    else:
        for record in records:
            if record.stored is None:
                _err(f"raidtop bench: {record.message}")
        if summary is not None and summary.runs:
            _say(f"mean ± stddev over {len(summary.runs)} complete passes:")
            for stat in summary.stats:
                if stat.mean is not None:
                    _say(f"  {METRIC_BY_KEY[stat.key].label:<22} {stat.mean:12.1f} ± {stat.stddev:.1f}")
        if stored:
            ids = ", ".join(f"#{s.id}" for s in stored)
            _say(f"stored as {ids} in {history.path}")
    return 0 if records and all(r.outcome.ok for r in records) and len(records) == args.runs else 1


def _pass_line(number: int, total: int, record) -> str:
    head = f"pass {number}/{total}:" if total > 1 else "result:"
    if record.stored is None or record.stored.result is None:
        return f"{head} no result ({record.message})"
    result = record.stored.result
    parts = []
    for name in ("read", "write"):
        d = result.direction(name)
        if d.active:
            lat = f"{d.lat_mean_us / 1000:.2f} ms" if d.lat_mean_us is not None else "-"
            p99 = f"{d.lat_p99_us / 1000:.2f} ms" if d.lat_p99_us is not None else "-"
            parts.append(f"{name} {d.iops:,.0f} IOPS {d.mib_s:,.1f} MiB/s lat {lat} p99 {p99}")
    flag = f" [partial: {record.message}]" if record.stored.partial else ""
    return f"{head} " + "; ".join(parts or ["no I/O"]) + flag
