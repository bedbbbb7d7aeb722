"""``raidtop lab fault`` and ``raidtop lab clear``: put a lab member behind a device-mapper fault and back.

``fault ARRAY MEMBER --delay MS | --flakey UP,DOWN | --error START+LEN | --unreadable START+LEN``
takes the loop member out of the array and adds it back on a dm ``delay``, ``flakey``,
``error``-range or ``dust`` (unreadable until rewritten) device over the same loop;
``clear ARRAY DM`` reverses it.
Every command is printed before it runs and logged (action log kind ``lab``);
``--dry-run`` prints the exact commands and runs nothing.
"""

from __future__ import annotations

import argparse
import shlex
import sys

EXIT_FAILED = 1
EXIT_USAGE = 2


def fill(sub: argparse._SubParsersAction) -> None:
    """Add ``fault`` and ``clear`` to ``raidtop lab``."""
    fault = sub.add_parser("fault", help="put a member behind a dm delay, flakey, error or unreadable range")
    fault.add_argument("array")
    fault.add_argument("member", help="a loop member of the array")
    kind = fault.add_mutually_exclusive_group(required=True)
    kind.add_argument("--delay", metavar="MS", help="every request waits MS milliseconds (a slow disk)")
    kind.add_argument(
        "--flakey", metavar="UP,DOWN", help="works UP seconds, fails every request DOWN seconds, repeating"
    )
    kind.add_argument(
        "--error", metavar="START+LEN", help="sectors START..START+LEN-1 fail for good (only a replacement clears)"
    )
    kind.add_argument(
        "--unreadable",
        metavar="START+LEN",
        help="sectors START..START+LEN-1 (whole 4 KiB blocks) fail reads until written (dm-dust; md rewrites them)",
    )
    fault.add_argument("--dry-run", action="store_true", help="print the commands, run nothing")
    clear = sub.add_parser("clear", help="take a member out of its dm fault and back onto its loop device")
    clear.add_argument("array")
    clear.add_argument("member", help="the dm device (dm-N) the fault put in the array")
    clear.add_argument("--dry-run", action="store_true", help="print the commands, run nothing")


def handler(command: str):
    """The function for ``raidtop lab COMMAND``, or ``None``."""
    return {"fault": _cmd_fault, "clear": _cmd_clear}.get(command)


def spec_from(args: argparse.Namespace):
    """The FaultSpec the options ask for, or a sentence saying what is wrong."""
    from raidtop.actions.lab.dmtables import FaultRefused, parse_fault

    from raidtop.actions.lab.dmtables import FAULT_KINDS

    kind = next(k for k in FAULT_KINDS if getattr(args, k, None) is not None)
    try:
        return parse_fault(kind, getattr(args, kind))
    except FaultRefused as exc:
        return str(exc)


def _cmd_fault(lab, args) -> int:
    from raidtop.actions.lab.dmfault import plan_fault

    spec = spec_from(args)
    if isinstance(spec, str):
        print(f"raidtop lab: fault: {spec}", file=sys.stderr)
        return EXIT_USAGE
    return _run(lambda: plan_fault(lab, args.array, args.member, spec), args.dry_run, "fault")


def _cmd_clear(lab, args) -> int:
    from raidtop.actions.lab.dmfault import plan_clear

    return _run(lambda: plan_clear(lab, args.array, args.member), args.dry_run, "clear")


def _run(make_plan, dry_run: bool, verb: str) -> int:
    from raidtop.actions.lab.commands import LabCommandFailed
    from raidtop.actions.member_actions import ActionRefused
    from raidtop.untrusted import plain

    try:
        plan = make_plan()
        if dry_run:
            for argv in plan.commands:
                print(shlex.join(argv))
            return 0
        plan.execute()
    except ActionRefused as exc:
        print(f"raidtop lab: {verb} refused: {plain(str(exc))}", file=sys.stderr)
        return EXIT_FAILED
    except LabCommandFailed as exc:
        print(f"raidtop lab: {verb} stopped: {plain(str(exc))}", file=sys.stderr)
        return EXIT_FAILED
    return 0
