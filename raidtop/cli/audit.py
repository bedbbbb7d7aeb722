"""``raidtop audit [--json]``: will the next rebuild succeed? Each array's findings, worst first.

Exit status, as ``raidtop smart`` has it: 3 when any finding is critical;
otherwise 1 when something could not be read (the audit is then partial);
otherwise 0 (warnings and notes are shown, not errors). 2 for a usage error.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from raidtop.cli import one_shot

EXIT_CRITICAL = 3


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``audit`` subcommand."""
    audit = subparsers.add_parser(
        "audit", help="rebuild readiness: each array's findings, the fix and the rule's source"
    )
    audit.add_argument("--json", action="store_true", help="print JSON: {\"findings\": [...], \"notes\": [...]}")
    one_shot.add_sampling_options(audit)
    audit.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Sample, audit, print; see the module docstring for the exit status."""
    from raidtop.audit.detect import audit_snapshot
    from raidtop.collect.source import Root

    root: Path = args.root
    if one_shot.root_refused(root):
        return 2
    sampler, poller = one_shot.judged_sampling(root, args.smart_wait)
    snap = sampler.sample()
    if poller is not None:
        one_shot.wait_for_smart(poller, args.smart_wait, "their rules are skipped")
        snap = sampler.sample()
    findings, notes = audit_snapshot(sampler.root if isinstance(sampler.root, Root) else Root(root), snap)
    if args.json:
        from raidtop.output.snapshot_json import audit_json

        one_shot.print_json({"findings": audit_json(findings), "notes": list(notes), "md_absence": snap.md_absence})
    else:
        try:
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
