"""``raidtop audit [--json]``: will the next rebuild succeed? Each array's findings, worst first.

Exit status, as ``raidtop smart`` has it: 3 when any finding is critical;
otherwise 1 when something could not be read (the audit is then partial);
otherwise 0 (warnings and notes are shown, not errors). 2 for a usage error.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from raidtop.cli import options

EXIT_CRITICAL = 3


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``audit`` subcommand."""
    audit = subparsers.add_parser(
        "audit", help="rebuild readiness: each array's findings, the fix and the rule's source"
    )
    audit.add_argument("--json", action="store_true", help="print JSON: {\"findings\": [...], \"notes\": [...]}")
    audit.add_argument("--root", type=Path, default=argparse.SUPPRESS, help="as for raidtop")
    audit.add_argument(
        "--smart-wait",
        type=options.SMART_INTERVAL,
        default=30.0,
        metavar="S",
        help="wait up to S seconds for every disk's SMART reading (default 30; 0 = no SMART)",
    )
    audit.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Sample, audit, print; see the module docstring for the exit status."""
    from raidtop.audit.detect import audit_snapshot
    from raidtop.presentation.judgement import judged_sampler, smart_poller
    from raidtop.collect.source import Root

    root: Path = args.root
    if not root.is_dir():
        print(f"raidtop: --root {root}: not a directory", file=sys.stderr)
        return 2
    poller = smart_poller(root, 600.0 if args.smart_wait > 0 else 0.0)
    sampler = judged_sampler(root, smart=poller)
    snap = sampler.sample()
    if poller is not None:
        if not poller.wait_for_all(args.smart_wait):
            print(
                f"raidtop: some disks gave no SMART answer within {args.smart_wait:g} s; their rules are skipped",
                file=sys.stderr,
            )
        snap = sampler.sample()
    findings, notes = audit_snapshot(sampler.root if isinstance(sampler.root, Root) else Root(root), snap)
    try:
        if args.json:
            from raidtop.output.snapshot_json import audit_json

            json.dump(
                {"findings": audit_json(findings), "notes": list(notes), "md_absence": snap.md_absence},
                sys.stdout,
                indent=1,
            )
            sys.stdout.write("\n")
        else:
            _print_text(findings, notes, snap.md_absence)
        sys.stdout.flush()
    except BrokenPipeError:
        sys.stderr.close()
    if any(f.severity == "critical" for f in findings):
        return EXIT_CRITICAL
    return 1 if notes else 0


def _print_text(findings, notes, absence) -> None:
    from raidtop.untrusted import plain

    if absence:
        print(plain(absence))
    array = None
    for f in findings:
        if f.array != array:
            array = f.array
            print(plain(array))
        print(f"  {f.severity.upper()}: {plain(f.text)} [{f.rule}]")
        for line in f.evidence:
            print(f"      {plain(line)}")
        if f.fix:
            print(f"      fix: {plain(f.fix)}")
        print(f"      source: {plain(f.source)}")
    if not findings and not absence:
        print("No findings.")
    for note in notes:
        print(f"raidtop: {plain(note)}", file=sys.stderr)
