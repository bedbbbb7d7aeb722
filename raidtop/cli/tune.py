"""``raidtop tune``: change one tuning knob from a script, with the Tuning screen's checks.

Usage::

    raidtop tune DEVICE ATTR VALUE [--dry-run] [--force]
    raidtop tune --list [DEVICE] [--json]
    raidtop tune --undo [--dry-run] [--force]
    raidtop tune --log [--json]

DEVICE is a block device (``sda``, ``/dev/nvme0n1``), an md array (``md0``) or
``raid`` for the system-wide md limits (``raidtop tune raid speed_limit_max
500000``). The value is validated before anything is written, written, read
back, and logged (kind ``tune``) in the action log.

``--undo`` reverts the most recent change in the log that was not undone yet,
whichever raidtop process made it, and refuses when the knob was changed
since (``--force`` overrides). Setting ``write_cache`` to ``write through``
needs ``--force``: it can lose data on power failure (see the warning).

Exit codes: 0 done (or nothing to do), 1 refused or failed (the reason is
printed; without root, with the command to run under sudo), 2 usage error.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

EPILOG = """\
examples:
  raidtop tune sda scheduler mq-deadline
  raidtop tune md0 stripe_cache_size 8192
  raidtop tune md0 sync_speed_max system      # back to the system-wide limit
  raidtop tune raid speed_limit_min 50000
  raidtop tune --list sda
  raidtop tune --undo
exit codes: 0 done, 1 refused or failed, 2 usage error
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``tune`` subcommand."""
    parser = subparsers.add_parser(
        "tune",
        help="change a block-device or md tuning knob (validated, read back, logged)",
        description="Change a block-device or md tuning knob: validated first, read back after, "
        "logged in the action log.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_arguments(parser)
    parser.add_argument("--root", type=Path, default=argparse.SUPPRESS, help="as for raidtop")
    parser.set_defaults(func=run)


# raidtop.actions.tuning.knobs.GLOBAL_TARGET, spelled out: importing the tuning
# package to build --help cost every `raidtop` start ~0.2 s (perf/RESULTS.md).
GLOBAL_TARGET = "raid"


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "words",
        nargs="*",
        metavar="DEVICE ATTR VALUE",
        help=f"what to change; DEVICE {GLOBAL_TARGET!r} means /proc/sys/dev/raid",
    )
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--list", action="store_true", help="list tunable devices, or DEVICE's knobs")
    mode.add_argument("--undo", action="store_true", help="revert the last logged change not undone yet")
    mode.add_argument("--log", action="store_true", help="print the tuning change log")
    parser.add_argument("--dry-run", action="store_true", help="validate and print the command; write nothing")
    parser.add_argument(
        "--force", action="store_true", help="allow write_cache=write through, or an undo of a knob changed since"
    )
    parser.add_argument("--json", action="store_true", help="JSON output for --list and --log")


def run(args: argparse.Namespace) -> int:
    """Carry out one ``raidtop tune`` invocation; returns the exit code."""
    from raidtop.actions.tuning import TuningSession
    from raidtop.collect.source import Root

    root: Path = getattr(args, "root", Path("/"))
    if not root.is_dir():
        return _usage(f"--root {root}: not a directory")
    session = TuningSession(Root(root))
    try:
        if args.list:
            if len(args.words) > 1:
                return _usage("--list takes at most one DEVICE")
            return _list(session, args.words[0] if args.words else None, args.json)
        if args.log:
            if args.words:
                return _usage("--log takes no DEVICE")
            return _print_log(session, args.json)
        if args.undo:
            if args.words:
                return _usage("--undo takes no DEVICE ATTR VALUE")
            return _undo(session, args.dry_run, args.force)
        if len(args.words) != 3:
            return _usage("expected DEVICE ATTR VALUE (or --list, --undo, --log); see raidtop tune --help")
        return _set(session, *args.words, dry_run=args.dry_run, force=args.force)
    except BrokenPipeError:
        # `raidtop tune --list | head` is normal use, not an error.
        sys.stderr.close()
        return 0


def _usage(message: str) -> int:
    print(f"raidtop tune: {message}", file=sys.stderr)
    return 2


def _fail(message: str) -> int:
    print(f"raidtop tune: {message}", file=sys.stderr)
    return 1


def _set(session, target: str, attr: str, value: str, *, dry_run: bool, force: bool) -> int:
    from raidtop.actions.tuning import SPECS, Refusal

    if attr not in SPECS:
        return _usage(f"{attr!r} is not a knob raidtop changes; known: {', '.join(SPECS)}")
    plan = session.plan(target, attr, value)
    if isinstance(plan, Refusal):
        return _fail(plan.message)
    for note in plan.notes:
        print(f"note: {note}", file=sys.stderr)
    command = plan.sudo_command if session.needs_sudo else plan.command
    if plan.warning and not force and not dry_run and not plan.noop:
        return _fail(f"{plan.warning}\nNot changed; add --force to set {attr} to {plan.new!r} anyway.")
    if dry_run:
        print(command)
        return 0
    if plan.noop:
        print(f"{plan.target} {attr} is already {plan.new}; nothing to do")
        return 0
    if session.needs_sudo and not session.can_write(plan):
        return _needs_root(plan)
    return _report(session.apply(plan))


def _needs_root(plan) -> int:
    return _fail(
        f"changing {plan.target} {plan.attr} needs root, and you are not root. Run:\n"
        f"  {plan.sudo_command}\n"
        f"or: sudo raidtop tune {plan.target} {plan.attr} {_quote(plan.new)}"
    )


def _quote(value: str) -> str:
    import shlex

    return shlex.quote(value)


def _report(result) -> int:
    if result.log_error:
        print(f"raidtop tune: note: {result.log_error}", file=sys.stderr)
    if result.status == "needs-root":
        return _fail(f"{result.message}")
    if result.ok:
        print(result.message)
        return 0
    return _fail(result.message)


def _undo(session, dry_run: bool, force: bool) -> int:
    from raidtop.actions.tuning import Refusal, changes_from_log

    changes = changes_from_log(session.logged_changes())
    if not changes:
        print(f"nothing to undo: no change in {session.log.path} is still in effect")
        return 0
    change = changes[-1]
    plans = session.plan_undo(change)
    refused = [p for p in plans if isinstance(p, Refusal)]
    if refused:
        return _fail(refused[0].message)
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(change.time))
    print(f"undoing {change.target} {change.attr} {change.old} → {change.new} (changed {when})")
    if plans[0].warning and not force:
        return _fail(f"{plans[0].warning}\nNot undone; add --force to restore it anyway.")
    if dry_run:
        for plan in plans:
            if not plan.noop:
                print(plan.sudo_command if session.needs_sudo else plan.command)
        return 0
    if session.needs_sudo and not session.can_write(plans[0]):
        return _needs_root(plans[0])
    code = 0
    for plan in plans:
        result = session.apply(plan)
        if result.status == "unchanged" and plan is not plans[0]:
            continue
        code = max(code, _report(result))
    return code


def _list(session, target: str | None, as_json: bool) -> int:
    from raidtop.actions.tuning import TuningError, shell_command

    if target is None:
        targets = session.targets()
        if as_json:
            json.dump(
                [{"name": t.name, "kind": t.kind, "detail": t.detail, "level": t.level} for t in targets],
                sys.stdout,
                indent=1,
            )
            sys.stdout.write("\n")
            return 0
        for t in targets:
            print(f"{t.name:<14} {t.detail}")
        if not targets:
            print("no tunable devices found under /sys/block")
        return 0
    try:
        knobs = session.knobs(target)
    except TuningError as exc:
        return _fail(str(exc))
    if as_json:
        json.dump(
            [
                {
                    "device": k.target,
                    "attribute": k.attr,
                    "value": k.value,
                    "shown": k.shown,
                    "allowed": k.allowed.describe(),
                    "writable": k.writable,
                    "path": k.path,
                }
                for k in knobs
            ],
            sys.stdout,
            indent=1,
        )
        sys.stdout.write("\n")
        return 0
    print(f"{'knob':<18} {'current':<26} {'allowed':<34} command")
    for k in knobs:
        example = k.value if k.value is not None else "VALUE"
        command = shell_command(k.target, k.attr, example, sudo=session.needs_sudo) if k.writable else "(read-only)"
        print(f"{k.attr:<18} {k.shown:<26} {k.allowed.describe():<34} {command}")
    if session.needs_sudo:
        print("\nYou are not root: changes need sudo (the commands above include it).")
    return 0


def _print_log(session, as_json: bool) -> int:
    entries = session.logged_changes()
    if as_json:
        json.dump(
            [{"time": e.time, "command": e.command, "result": e.result, **e.details} for e in entries],
            sys.stdout,
            indent=1,
        )
        sys.stdout.write("\n")
        return 0
    if not entries:
        print(f"no tuning changes logged in {session.log.path}")
    for e in entries:
        d = e.details
        stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(e.time))
        undo = " (undo)" if d.get("undo_of") is not None or d.get("undo_all") else ""
        print(f"{stamp}  {d.get('device')} {d.get('attribute')}: {d.get('old')} → {d.get('new')}{undo}  {e.result}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run ``raidtop tune`` on its own (``python -m raidtop.cli.tune``), for tests and scripts."""
    from raidtop.cli.options import Parser

    parser = Parser(prog="raidtop tune", epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    _add_arguments(parser)
    parser.add_argument("--root", type=Path, default=Path("/"), help="change files under DIR instead of /")
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
