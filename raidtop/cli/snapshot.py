"""``raidtop snapshot --json``: sample twice and print the rates."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from raidtop.cli import options


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``snapshot`` subcommand."""
    snap = subparsers.add_parser("snapshot", help="sample twice and print the rates as JSON")
    snap.add_argument("--json", action="store_true", required=True, help="print JSON (the only format)")
    snap.add_argument(
        "--interval",
        type=options.INTERVAL,
        default=argparse.SUPPRESS,
        metavar="S",
        help="seconds between the two samples (default 1)",
    )
    snap.add_argument("--root", type=Path, default=argparse.SUPPRESS, help="as for raidtop")
    snap.add_argument(
        "--smart-wait",
        type=options.SMART_INTERVAL,
        default=30.0,
        metavar="S",
        help="wait up to S seconds for every disk's SMART reading (default 30; 0 = no SMART)",
    )
    snap.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Sample twice, ``args.interval`` seconds apart, and print one JSON document."""
    from raidtop.presentation.judgement import judged_sampler, smart_poller
    from raidtop.output.snapshot_json import snapshot_json

    root: Path = args.root
    if not root.is_dir():
        print(f"raidtop: --root {root}: not a directory", file=sys.stderr)
        return 2

    poller = smart_poller(root, 600.0 if args.smart_wait > 0 else 0.0)
    from raidtop.config import md_expected_members

    expected, notes = md_expected_members()
    for note in notes:
        print(f"raidtop: {note}", file=sys.stderr)
    sampler = judged_sampler(root, smart=poller, md_expected_members=expected)
    # One document, once: every process's I/O and the cgroups' per-device share are worth two /proc walks.
    sampler.processes.want_processes = True
    first = sampler.sample()
    time.sleep(max(0.0, args.interval))
    if poller is not None and not poller.wait_for_all(args.smart_wait):
        print(
            f"raidtop: some disks gave no SMART answer within {args.smart_wait:g} s; they are left out", file=sys.stderr
        )
    snap = sampler.sample()
    doc = snapshot_json(snap, first.events)
    doc["mdadm"] = mdadm_json(root, snap)
    from raidtop.audit.detect import audit_snapshot
    from raidtop.output.snapshot_json import audit_json

    findings, _ = audit_snapshot(sampler.root, snap)
    doc["audit"] = audit_json(findings)
    try:
        json.dump(doc, sys.stdout, indent=1)
        sys.stdout.write("\n")
        sys.stdout.flush()
    except BrokenPipeError:
        # `raidtop snapshot --json | head` is normal use, not an error.
        sys.stderr.close()
    return 0


def mdadm_json(root: Path, snap) -> dict:
    """``mdadm --detail``'s fields for each md array (``unavailable`` says why there are none)."""
    from dataclasses import asdict

    from raidtop.collect.md.mdadm_detail import read_mdadm_detail
    from raidtop.collect.source import Root

    return {a.name: asdict(read_mdadm_detail(Root(root), a.name)) for a in snap.arrays if a.source != "dm-raid"}
