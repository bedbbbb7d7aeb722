"""``raidtop exporter``: serve md metrics to Prometheus, or write them for node_exporter."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path

from raidtop.cli import options

SPEED = options.seconds(0.01, 10000)


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``exporter`` subcommand."""
    from raidtop.exporter.listen import DEFAULT_LISTEN, parse_listen

    p = subparsers.add_parser(
        "exporter",
        help="serve md metrics to Prometheus (read-only)",
        description="Serve raidtop's md metrics on /metrics for Prometheus, or write them to a "
        "node_exporter textfile directory. Reads only; changes nothing.",
    )
    p.add_argument(
        "--listen",
        type=parse_listen,
        default=None,
        metavar="HOST:PORT",
        help=f"address to serve /metrics on (default {DEFAULT_LISTEN}: this host only)",
    )
    p.add_argument(
        "--interval",
        type=options.INTERVAL,
        default=argparse.SUPPRESS,
        metavar="S",
        help="seconds between samples (default 1); a scrape returns the latest",
    )
    p.add_argument("--root", type=Path, default=argparse.SUPPRESS, help="as for raidtop")
    p.add_argument(
        "--replay",
        type=options.recording,
        default=None,
        metavar="FILE",
        help="serve a recording instead of this system: " + options.RECORDING_HELP,
    )
    p.add_argument(
        "--smart-interval",
        type=options.SMART_INTERVAL,
        default=600.0,
        metavar="S",
        help="ask smartctl about each disk at most every S seconds (default 600; 0 = off)",
    )
    p.add_argument("--replay-speed", type=SPEED, default=1.0, metavar="X", help="replay X times faster (default 1)")
    p.add_argument(
        "--textfile",
        type=Path,
        default=None,
        metavar="DIR",
        help="write DIR/raidtop.prom atomically for node_exporter's textfile collector "
        "(every interval; no HTTP unless --listen is given too)",
    )
    p.add_argument("--once", action="store_true", help="with --textfile: sample, write once and exit")
    p.add_argument("--tls-cert", type=Path, default=None, metavar="FILE", help="serve HTTPS with this certificate")
    p.add_argument("--tls-key", type=Path, default=None, metavar="FILE", help="private key for --tls-cert")
    p.add_argument(
        "--tls-client-ca",
        type=Path,
        default=None,
        metavar="FILE",
        help="require client certificates signed by this CA (mutual TLS)",
    )
    p.set_defaults(func=run)


def _fail(message: str) -> int:
    from raidtop.untrusted import plain

    print(f"raidtop exporter: {plain(message)}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    """Check the options, then serve until SIGTERM/SIGINT (or write once)."""
    from raidtop.exporter.listen import DEFAULT_LISTEN, parse_listen

    problem = _check(args)
    if problem:
        return _fail(problem)
    from raidtop.exporter.service import Exporter, LiveSource, ReplaySource

    source: ReplaySource | LiveSource
    if args.replay is not None:
        from raidtop.collect.recording.roots import RecordingError, read_recording

        try:
            source = ReplaySource(read_recording(args.replay), args.replay_speed)
        except RecordingError as exc:
            return _fail(str(exc))
    else:
        source = LiveSource(args.root, smart_interval=args.smart_interval)
    exporter = Exporter(source, args.interval, args.textfile)
    exporter.sample_once()
    if args.once:
        # Two samples an interval apart: rates (and the slow-member rule) need a previous one.
        threading.Event().wait(args.interval)
        exporter.sample_once()
        return 0 if exporter.first_sample.is_set() and not exporter.failing else 1
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stop.set())
    if args.listen is not None or args.textfile is None:
        host, port = args.listen or parse_listen(DEFAULT_LISTEN)
        exporter.add_process_metrics()
        try:
            _serve(exporter, host, port, args)
        except OSError as exc:
            return _fail(f"cannot serve on {host}:{port}: {exc.strerror or exc}")
        scheme = "https" if args.tls_cert else "http"
        shown = f"[{host}]" if ":" in host else host
        print(
            f"raidtop exporter: serving {scheme}://{shown}:{port}/metrics, sampling every {args.interval:g} s",
            file=sys.stderr,
            flush=True,
        )
    exporter.start()
    stop.wait()
    exporter.stop()
    return 0


def _serve(exporter, host: str, port: int, args: argparse.Namespace) -> None:
    import ssl

    from prometheus_client import start_http_server

    from raidtop.exporter.exposition import cached_app

    try:
        # The library's server and TLS; its app would format the registry on every scrape, so
        # it is swapped at once for one serving the bytes the sampling thread formatted.
        server, _thread = start_http_server(
            port,
            host,
            exporter.registry,
            certfile=str(args.tls_cert) if args.tls_cert else None,
            keyfile=str(args.tls_key) if args.tls_key else None,
            client_cafile=str(args.tls_client_ca) if args.tls_client_ca else None,
            client_auth_required=args.tls_client_ca is not None,
        )
        server.set_app(cached_app(exporter.exposition))
    except ssl.SSLError as exc:
        raise OSError(0, f"TLS set-up failed: {exc.reason or exc}") from None


def _check(args: argparse.Namespace) -> str | None:
    """One sentence about the first option that cannot work, or ``None``."""
    if args.replay is None and not args.root.is_dir():
        return f"--root {args.root}: not a directory"
    if args.once and args.textfile is None:
        return "--once writes the textfile once: give --textfile DIR too"
    if args.textfile is not None and (args.textfile.is_symlink() or not args.textfile.is_dir()):
        return (
            f"--textfile {args.textfile}: not a directory (give node_exporter's textfile directory; links are refused)"
        )
    if (args.tls_cert is None) != (args.tls_key is None):
        return "--tls-cert and --tls-key go together"
    if args.tls_client_ca is not None and args.tls_cert is None:
        return "--tls-client-ca needs --tls-cert and --tls-key"
    for name in ("tls_cert", "tls_key", "tls_client_ca"):
        path = getattr(args, name)
        if path is not None and not path.is_file():
            return f"--{name.replace('_', '-')} {path}: not a file"
    return None
