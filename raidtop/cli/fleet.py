"""``raidtop fleet``: every host's arrays, from Prometheus or over ssh (read-only)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from raidtop.cli import options
from raidtop.model.units import counted

REFRESH = options.seconds(1, 3600)


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``fleet`` subcommand."""
    from raidtop.exporter.listen import parse_prometheus_url

    p = subparsers.add_parser(
        "fleet",
        help="every host's arrays, from Prometheus or over ssh",
        description="A live view of many hosts' md arrays, worst first. Reads only.",
    )
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--prometheus",
        type=parse_prometheus_url,
        metavar="URL",
        help="a Prometheus server that scrapes `raidtop exporter`s, e.g. http://localhost:9090",
    )
    source.add_argument(
        "--ssh", nargs="+", metavar="HOST", help="run `raidtop snapshot --json` on each HOST over your own ssh"
    )
    p.add_argument(
        "--bearer-token-file",
        type=Path,
        default=None,
        metavar="FILE",
        help="send the token on FILE's first line to --prometheus (Authorization: Bearer)",
    )
    p.add_argument(
        "--basic-auth-file",
        type=Path,
        default=None,
        metavar="FILE",
        help="send USER:PASSWORD from FILE's first line to --prometheus (HTTP basic auth)",
    )
    p.add_argument(
        "--ca-file",
        type=Path,
        default=None,
        metavar="FILE",
        help="trust only this CA bundle for an https:// --prometheus",
    )
    p.add_argument("--refresh", type=REFRESH, default=5.0, metavar="S", help="seconds between refreshes (default 5)")
    p.add_argument("--ssh-config", default=None, metavar="FILE", help="ssh -F FILE (default: your ~/.ssh/config)")
    p.add_argument(
        "--remote-command",
        default=None,
        metavar="CMD",
        help="what to run on each host (default `raidtop snapshot --json`)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Check the hosts, then run the fleet view."""
    from raidtop.app.fleet_app import FleetApp

    secrets = (args.bearer_token_file, args.basic_auth_file, args.ca_file)
    source: PrometheusSource | SshSource
    if args.prometheus:
        from raidtop.fleet.http_get import FetchError, credentials
        from raidtop.fleet.prometheus import PrometheusSource

        if args.bearer_token_file is not None and args.basic_auth_file is not None:
            print("raidtop fleet: --bearer-token-file or --basic-auth-file, not both", file=sys.stderr)
            return 2
        try:
            auth = credentials(
                bearer_token_file=args.bearer_token_file, basic_auth_file=args.basic_auth_file, ca_file=args.ca_file
            )
        except FetchError as exc:
            print(f"raidtop fleet: {exc}", file=sys.stderr)
            return 2
        source, label = PrometheusSource(args.prometheus, auth=auth), args.prometheus
    elif any(s is not None for s in secrets):
        print(
            "raidtop fleet: --bearer-token-file, --basic-auth-file and --ca-file are for --prometheus "
            "(over --ssh your own ssh configuration decides)",
            file=sys.stderr,
        )
        return 2
    else:
        from raidtop.fleet.ssh import REMOTE_COMMAND, SshSource, check_host

        for host in args.ssh:
            problem = check_host(host)
            if problem:
                print(f"raidtop fleet: --ssh {problem}", file=sys.stderr)
                return 2
        source = SshSource(args.ssh, ssh_config=args.ssh_config, remote_command=args.remote_command or REMOTE_COMMAND)
        label = f"ssh: {counted(len(args.ssh), 'host')}"
    app = FleetApp(source, label, args.refresh)
    app.run()
    # 129/130/143 after SIGHUP/SIGINT/SIGTERM: a script sees how it ended.
    return app.return_code or 0
