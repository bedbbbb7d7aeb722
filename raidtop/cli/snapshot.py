"""``raidtop snapshot --json``: sample twice and print the rates."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from raidtop.cli import one_shot, options


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
    one_shot.add_sampling_options(snap)
    snap.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Sample twice, ``args.interval`` seconds apart, and print one JSON document."""
    from raidtop.config import md_expected_members
    from raidtop.output.snapshot_json import snapshot_json

    root: Path = args.root
    if one_shot.root_refused(root):
        return 2
    expected, notes = md_expected_members()
    for note in notes:
        print(f"raidtop: {note}", file=sys.stderr)
    sampler, poller = one_shot.judged_sampling(root, args.smart_wait, md_expected_members=expected)
    # One document, once: every process's I/O and the cgroups' per-device share are worth two /proc walks.
    sampler.processes.want_processes = True
    first = sampler.sample()
    time.sleep(max(0.0, args.interval))
    one_shot.wait_for_smart(poller, args.smart_wait, "they are left out")
    snap = sampler.sample()
    doc = snapshot_json(snap, first.events)
    doc["mdadm"] = mdadm_json(root, snap)
    from raidtop.audit.detect import audit_snapshot
    from raidtop.output.snapshot_json import audit_json

    findings, _ = audit_snapshot(sampler.root, snap)
    doc["audit"] = audit_json(findings)
    one_shot.print_json(doc)
    return 0


def mdadm_json(root: Path, snap) -> dict:
    """``mdadm --detail``'s fields for each md array (``unavailable`` says why there are none)."""
    from dataclasses import asdict

    from raidtop.collect.md.mdadm_detail import read_mdadm_detail
    from raidtop.collect.source import Root

    return {a.name: asdict(read_mdadm_detail(Root(root), a.name)) for a in snap.arrays if a.source != "dm-raid"}
