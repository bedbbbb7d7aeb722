"""``raidtop lab faults-course``: a slow disk, a flakey disk and unreadable sectors, one step each, for a class.

Runs as the other experiments do (commands printed as ``$ …``, progress on
stderr, Ctrl-C tears down, the result in the lab history: ``raidtop lab
results ID``); each step is printed as a numbered heading with what to look at
in raidtop, then its commands, then what md showed. ``--dry-run`` prints the
outline and runs nothing. Without md, device-mapper or (for step 3) dm-dust it
refuses with the lab's sentences and exits 3.
"""

from __future__ import annotations

import argparse
import sys

from raidtop.cli import options
from raidtop.cli.lab_experiments import EXIT_UNAVAILABLE, EXIT_USAGE, _fail, _outputs, _run


def fill(sub: argparse._SubParsersAction) -> None:
    """Add ``faults-course`` to ``raidtop lab``."""
    from raidtop.actions.experiments import defaults  # no imports of its own: every `raidtop` start builds this

    course = sub.add_parser(
        "faults-course",
        help="a class on realistic failures: a slow disk, a flakey disk, unreadable sectors (md and device-mapper)",
    )
    course.add_argument(
        "--steps",
        default=",".join(defaults.COURSE_STEPS),
        help=f"which steps, in course order (default {','.join(defaults.COURSE_STEPS)})",
    )
    course.add_argument(
        "--delay",
        type=options.integer(1, 10**6, "milliseconds"),
        default=defaults.COURSE_DELAY_MS,
        metavar="MS",
        help=f"the slow disk's delay per request (default {defaults.COURSE_DELAY_MS})",
    )
    up, down = defaults.COURSE_FLAKEY_S
    course.add_argument(
        "--flakey", default=f"{up},{down}", metavar="UP,DOWN", help=f"the flakey disk's seconds (default {up},{down})"
    )
    course.add_argument(
        "--runtime",
        type=options.integer(1, 600, "seconds"),
        default=defaults.COURSE_RUNTIME_S,
        metavar="S",
        help=f"seconds of fio on the slow disk's array (default {defaults.COURSE_RUNTIME_S})",
    )
    course.add_argument("--size", type=options.LAB_DISK_SIZE, default="32M", help="size of each disk (default 32M)")
    course.add_argument(
        "--no-trace", dest="trace", action="store_false", help="judge the slow disk by diskstats' await, not bpftrace"
    )
    course.add_argument("--dry-run", action="store_true", help="print what the course will do, run nothing")
    _outputs(course)


def handler(command: str):
    """The function for ``raidtop lab COMMAND``, or ``None``."""
    return {"faults-course": _cmd_course}.get(command)


def _cmd_course(lab, args) -> int:
    from raidtop.actions.experiments import faults_course as course
    from raidtop.actions.experiments.course_results import CourseParams
    from raidtop.actions.lab.dmtables import FaultRefused, FaultSpec, check_spec, parse_fault
    from raidtop.actions.lab.spec import SpecError, parse_size
    from raidtop.presentation.member_latency import slow_members_judged

    try:
        check_spec(FaultSpec("delay", delay_ms=args.delay), 1)
        flakey = check_spec(parse_fault("flakey", args.flakey), 1)
        params = CourseParams(
            course.parse_steps(args.steps),
            args.delay,
            flakey.up_s,
            flakey.down_s,
            args.runtime,
            parse_size(args.size),
            args.trace,
        )
    except (SpecError, FaultRefused) as exc:
        return _fail(str(exc), EXIT_USAGE)
    if args.dry_run:
        print("\n".join(course.outline(lab, params)))
        return 0
    environment = lab.environment(["raid1"], need_fio=True)
    missing = [p.text for p in environment.problems] + course.course_missing(lab, params)
    if missing:
        return _fail("the faults course cannot run here:\n" + "\n".join(f"- {m}" for m in missing), EXIT_UNAVAILABLE)
    shown = sys.stderr if args.json else sys.stdout

    def say(text: str) -> None:
        print(text, file=shown, flush=True)

    return _run(
        lab,
        args,
        "faults course",
        ["raid1"],
        True,
        lambda: params,
        lambda checked, control: course.run_faults_course(lab, checked, slow_members_judged, control, say),
    )
