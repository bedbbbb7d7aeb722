"""``raidtop fleet``: every host's arrays, from Prometheus or over ssh (read-only)."""

from __future__ import annotations

import argparse
import sys

from raidtop.cli import options

REFRESH = options.seconds(1, 3600)


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``fleet`` subcommand."""
    from raidtop.exporter.listen import parse_prometheus_url

    p = subparsers.add_parser("fleet", help="every host's arrays, from Prometheus or over ssh",
                              description="A live view of many hosts' md arrays, worst first. Reads only.")
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--prometheus", type=parse_prometheus_url, metavar="URL",
                        help="a Prometheus server that scrapes `raidtop exporter`s, e.g. http://localhost:9090")
    source.add_argument("--ssh", nargs="+", metavar="HOST",
                        help="run `raidtop snapshot --json` on each HOST over your own ssh")
    p.add_argument("--refresh", type=REFRESH, default=5.0, metavar="S", help="seconds between refreshes (default 5)")
    p.add_argument("--ssh-config", default=None, metavar="FILE", help="ssh -F FILE (default: your ~/.ssh/config)")
    p.add_argument("--remote-command", default=None, metavar="CMD",
                   help="what to run on each host (default `raidtop snapshot --json`)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Check the hosts, then run the fleet view."""
    from raidtop.fleet_app import FleetApp

    if args.prometheus:
        from raidtop.fleet.prometheus import PrometheusSource

        source, label = PrometheusSource(args.prometheus), args.prometheus
    else:
        from raidtop.fleet.ssh import REMOTE_COMMAND, SshSource, check_host

        for host in args.ssh:
            problem = check_host(host)
            if problem:
                print(f"raidtop fleet: --ssh {problem}", file=sys.stderr)
                return 2
        source = SshSource(args.ssh, ssh_config=args.ssh_config, remote_command=args.remote_command or REMOTE_COMMAND)
        label = f"ssh: {len(args.ssh)} host{'s' if len(args.ssh) != 1 else ''}"
    FleetApp(source, label, args.refresh).run()
    return 0
