"""``raidtop lab``: build md arrays on loop devices, break them, time the rebuilds, tear down.

Every command the lab runs is printed as it runs (``$ mdadm …``) and
appended to the action log. Exit status: 0 done, 1 refused or failed
(a damaged or unreadable registry included: one sentence says which file
and why), 2 bad arguments, 3 this machine cannot run the lab (what is
missing is printed, with what to do).

Also runnable as ``python -m raidtop.cli.lab …`` (same arguments).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from raidtop.cli import options

EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_UNAVAILABLE = 3


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``lab`` subcommand and its own subcommands."""
    lab = subparsers.add_parser(
        "lab",
        help="failure lab: md arrays on loop devices to fail, rebuild and compare",
        description=__doc__.split("\n\n")[0],
    )
    _fill(lab)


def _fill(lab: argparse.ArgumentParser) -> None:
    lab.add_argument(
        "--lab-dir",
        type=Path,
        default=None,
        metavar="DIR",
        help="where images, the registry and the history live (default $RAIDTOP_LAB_DIR or $XDG_DATA_HOME/raidtop/lab)",
    )
    lab.set_defaults(func=run, lab_command=None)
    sub = lab.add_subparsers(dest="lab_command", metavar="COMMAND")

    create = sub.add_parser("create", help="create an array on fresh loop devices")
    create.add_argument("--level", required=True, help="0, 1, 4, 5, 6 or 10")
    create.add_argument("--disks", type=options.DISKS, required=True, help="number of disks")
    create.add_argument("--size", type=options.LAB_DISK_SIZE, default="64M", help="size of each disk (default 64M)")
    create.add_argument(
        "--chunk", type=options.CHUNK_KIB, default=None, metavar="KIB", help="chunk size in KiB (default 64)"
    )
    create.add_argument("--bitmap", action="store_true", help="internal write-intent bitmap (fast re-add)")
    create.add_argument("--fs", choices=("ext4", "xfs"), default=None, help="make a filesystem, aligned to the stripe")
    create.add_argument("--mount", default=None, metavar="DIR", help="mount the filesystem there")
    create.add_argument("--wait", action="store_true", help="wait for the initial resync and time it")

    sub.add_parser("list", help="the lab's arrays, their state and timelines").add_argument(
        "--json", action="store_true", help="print JSON"
    )
    sub.add_parser("doctor", help="say what this machine lacks for the lab")

    for verb, text in (("fail", "mark a member faulty (mdadm --fail)"), ("remove", "remove a faulty or spare member")):
        parser = sub.add_parser(verb, help=text)
        parser.add_argument("array")
        parser.add_argument("member")

    add = sub.add_parser("add", help="add a fresh disk (a new image and loop device)")
    add.add_argument("array")
    add.add_argument("--spare", action="store_true", help="add it as a spare (mdadm --add-spare)")
    add.add_argument("--wait", action="store_true", help="wait for the rebuild and time it")

    re_add = sub.add_parser("re-add", help="put a removed lab disk back (mdadm --re-add)")
    re_add.add_argument("array")
    re_add.add_argument("member", nargs="?", default=None, help="default: the disk removed last")
    re_add.add_argument("--wait", action="store_true", help="wait for the rebuild and time it")

    replace = sub.add_parser("replace", help="copy a member onto a spare, then fail it (mdadm --replace)")
    replace.add_argument("array")
    replace.add_argument("member")
    replace.add_argument("--wait", action="store_true", help="wait for the copy and time it")

    for verb in ("check", "repair"):
        parser = sub.add_parser(verb, help=f"start a {verb} (echo {verb} > md/sync_action)")
        parser.add_argument("array")
        parser.add_argument("--wait", action="store_true", help="wait until it finishes")

    speed = sub.add_parser("speed", help="set an array's rebuild speed limit (md/sync_speed_max)")
    speed.add_argument("array")
    speed.add_argument("limit", type=options.SPEED_LIMIT, help="KiB/s, or 'system' for the system default")

    wait = sub.add_parser("wait", help="wait until an array is idle, recording its timeline")
    wait.add_argument("array")
    wait.add_argument("--timeout", type=options.TIMEOUT, default=600.0, metavar="S")

    teardown = sub.add_parser("teardown", help="stop the lab's arrays, detach its loops, delete its images")
    teardown.add_argument("arrays", nargs="*", help="only these arrays (default: everything the lab made)")

    from raidtop.cli import lab_course, lab_experiments, lab_faults

    lab_experiments.fill(sub)
    lab_course.fill(sub)
    lab_faults.fill(sub)


def build_parser() -> argparse.ArgumentParser:
    """The parser for ``python -m raidtop.cli.lab``."""
    parser = options.Parser(prog="raidtop lab", description=__doc__.split("\n\n")[0])
    _fill(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point when run as a module."""
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as stop:  # a usage error (already printed) or --help
        return stop.code if isinstance(stop.code, int) else EXIT_USAGE
    return run(args)


def run(args: argparse.Namespace) -> int:
    """Dispatch one ``raidtop lab`` subcommand."""
    from raidtop.actions.lab.core import Lab
    from raidtop.actions.lab.registry import RegistryDamaged
    from raidtop.actions.lab.commands import CommandEvent

    if args.lab_command is None:
        build_parser().print_help()
        return EXIT_USAGE

    # With --json, stdout is the document alone: the commands go to stderr.
    shown = sys.stderr if getattr(args, "json", False) else sys.stdout

    def show(event: CommandEvent) -> None:
        if event.ok is None:
            print(f"$ {event.command}", file=shown, flush=True)
        elif not event.ok:
            print(f"  failed: {event.error}", file=shown, flush=True)

    import sqlite3  # here, not at the top: every `raidtop` start builds this parser

    lab = Lab(args.lab_dir)
    lab.runner.add_listener(show)
    from raidtop.cli import lab_course, lab_experiments, lab_faults

    handler = (
        lab_experiments.handler(args.lab_command)
        or lab_course.handler(args.lab_command)
        or lab_faults.handler(args.lab_command)
        or globals()[f"_cmd_{args.lab_command.replace('-', '_')}"]
    )
    try:
        return handler(lab, args)
    except BrokenPipeError:
        # `raidtop lab list | head` is normal use, not an error.
        sys.stderr.close()
        return 0
    except (RegistryDamaged, OSError, sqlite3.Error) as exc:
        # Every subcommand reads the registry (and some the history): one sentence, never a traceback.
        print(f"raidtop lab: {_sentence(exc)}", file=sys.stderr)
        return EXIT_FAILED


def _sentence(exc: Exception) -> str:
    import sqlite3

    from raidtop.untrusted import plain

    if isinstance(exc, OSError) and exc.strerror and exc.filename:
        return plain(f"{exc.filename}: {exc.strerror}")
    if isinstance(exc, sqlite3.Error):
        return plain(f"the lab history cannot be used ({exc})")
    return plain(str(exc))


# ---------------------------------------------------------------- subcommands


def _cmd_doctor(lab, args) -> int:
    environment = lab.environment(["raid0", "raid1", "raid5", "raid6", "raid10"], need_fio=True)
    if environment.ready:
        print(f"the lab can run here (kernel {environment.kernel}); lab directory {lab.lab_dir}")
        return 0
    print("the lab cannot run here yet:")
    print(environment.describe())
    return EXIT_UNAVAILABLE


def _cmd_create(lab, args) -> int:
    from raidtop.actions.lab.core import LabError, LabUnavailable
    from raidtop.actions.lab.commands import LabCommandFailed
    from raidtop.actions.lab.spec import DEFAULT_CHUNK_KIB, LabSpec, SpecError, level_name, parse_size

    try:
        spec = LabSpec(
            level_name(args.level),
            args.disks,
            parse_size(args.size),
            args.chunk or DEFAULT_CHUNK_KIB,
            args.bitmap,
            args.fs,
            args.mount,
        )
        record = lab.create(spec)
    except SpecError as exc:
        print(f"raidtop lab: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except LabUnavailable as exc:
        print(f"raidtop lab: {exc}", file=sys.stderr)
        return EXIT_UNAVAILABLE
    except (LabError, LabCommandFailed) as exc:
        print(f"raidtop lab: {exc}", file=sys.stderr)
        return EXIT_FAILED
    print(
        f"created /dev/{record.name}: {record.level} on "
        + ", ".join(f"/dev/{i.loop}" for i in lab.state().images_of(record.name))
    )
    if args.wait:
        return _wait_and_report(lab, record.name, 600.0)
    return 0


def _cmd_list(lab, args) -> int:
    from raidtop.actions.lab.timeline import describe, format_rebuild
    from raidtop.collect.md.read import read_md

    state = lab.state()
    reading = read_md(lab.root)
    if any(a.state == "active" for a in state.arrays):
        lab.observe_snapshot(reading.arrays)
    views = lab.views(reading.arrays)
    if args.json:
        json.dump(_views_json(lab, views), sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    environment = lab.environment()
    if not environment.ready:
        print("note: the lab cannot create arrays here:\n" + environment.describe())
    if not views and not state.images:
        print(f"the lab has nothing (lab directory {lab.lab_dir})")
        return 0
    for view in views:
        record = view.record
        md = view.md
        status = "not running" if not view.running else (md.health if md else "running")
        pattern = md.status_string if md and md.status_string else ""
        members = ", ".join(
            i.loop or "?" for i in view.images if i.state == "attached" and i.loop not in view.removed_loops
        )
        if view.removed_loops:
            members += f"; removed: {', '.join(view.removed_loops)} (still attached; teardown detaches it)"
        print(
            f"{record.name}  {record.level}  {record.raid_disks} × {record.disk_size_bytes >> 20} MiB  "
            f"{status} {pattern}  rebuild {format_rebuild(record.last_rebuild)}  disks: {members}"
        )
        if view.gone_loops:
            print(f"  gone: {', '.join(view.gone_loops)} no longer hold the lab's images (teardown cleans up)")
        for event in record.timeline:
            print(f"  {time.strftime('%H:%M:%S', time.localtime(event.time))}  {describe(event, record)}")
    loose = [i for i in state.images if i.array not in {a.name for a in state.arrays}]
    for image in loose:
        print(f"loose image {image.path} ({image.state}{', ' + image.loop if image.loop else ''})")
    return 0


def _views_json(lab, views) -> dict:
    from dataclasses import asdict

    return {
        "lab_dir": str(lab.lab_dir),
        "arrays": [
            {
                **{k: v for k, v in asdict(v.record).items() if k != "watch"},
                "running": v.running,
                "health": v.md.health if v.md else None,
                "status": v.md.status if v.md else None,
                "loops": [i.loop for i in v.images if i.state == "attached" and i.loop not in v.removed_loops],
                "removed_loops": list(v.removed_loops),
                "gone_loops": list(v.gone_loops),
                "last_rebuild_s": v.record.last_rebuild.seconds if v.record.last_rebuild else None,
            }
            for v in views
        ],
    }


def _member(lab, verb: str, array: str, member: str | None, wait: bool = False) -> int:
    from raidtop.actions.lab.members import LabMemberActions
    from raidtop.actions.member_actions import ActionRefused

    try:
        LabMemberActions(lab).run(verb, array, member)
    except ActionRefused as exc:
        print(f"raidtop lab: {verb.replace('_', '-')} refused: {exc}", file=sys.stderr)
        return EXIT_FAILED
    return _wait_and_report(lab, array.removeprefix("/dev/"), 600.0) if wait else 0


def _cmd_fail(lab, args) -> int:
    return _member(lab, "fail", args.array, args.member)


def _cmd_remove(lab, args) -> int:
    return _member(lab, "remove", args.array, args.member)


def _cmd_add(lab, args) -> int:
    return _member(lab, "add_spare" if args.spare else "add", args.array, None, args.wait)


def _cmd_re_add(lab, args) -> int:
    return _member(lab, "re_add", args.array, args.member, args.wait)


def _cmd_replace(lab, args) -> int:
    return _member(lab, "replace", args.array, args.member, args.wait)


def _cmd_check(lab, args) -> int:
    return _member(lab, "check", args.array, None, args.wait)


def _cmd_repair(lab, args) -> int:
    return _member(lab, "repair", args.array, None, args.wait)


def _cmd_speed(lab, args) -> int:
    from raidtop.actions.lab.members import LabMemberActions
    from raidtop.actions.member_actions import ActionRefused

    text = args.limit.strip().lower()
    if text != "system" and not text.isdigit():
        print("raidtop lab: the limit is KiB/s (a whole number) or 'system'", file=sys.stderr)
        return EXIT_USAGE
    try:
        LabMemberActions(lab).speed_limit_plan(args.array, None if text == "system" else int(text)).execute()
    except (ActionRefused, OSError) as exc:
        print(f"raidtop lab: speed refused: {exc}", file=sys.stderr)
        return EXIT_FAILED
    return 0


def _cmd_wait(lab, args) -> int:
    return _wait_and_report(lab, args.array.removeprefix("/dev/"), args.timeout)


def _wait_and_report(lab, name: str, timeout: float) -> int:
    from raidtop.actions.lab.core import LabError
    from raidtop.actions.lab.timeline import format_rebuild

    try:
        record = lab.wait_idle(name, timeout)
    except LabError as exc:
        print(f"raidtop lab: {exc}", file=sys.stderr)
        return EXIT_FAILED
    if record is not None and record.rebuilds:
        last = record.rebuilds[-1]
        print(f"{name} is idle; last {last.kind} took {format_rebuild(last)}")
    else:
        print(f"{name} is idle")
    return 0


def _cmd_teardown(lab, args) -> int:
    report = lab.teardown(args.arrays or None)
    for line in report.lines():
        print(line)
    return 0 if report.clean else EXIT_FAILED


if __name__ == "__main__":
    sys.exit(main())
