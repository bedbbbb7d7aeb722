"""``raidtop lab study|sweep|tradeoff|bitmap|grow|results``: the lab's experiments from the command line.

Each prints the commands it runs as ``$ …`` (stdout, like every lab
command), its progress as ``# step i/n, about T left: …`` (stderr), the
result table at the end, and keeps the result in the lab history
(``raidtop lab results``). Ctrl-C, SIGTERM or SIGHUP stop it: what it made
is torn down, what it measured so far is kept, and it exits 1.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from raidtop.cli import options

EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_UNAVAILABLE = 3


def fill(sub: argparse._SubParsersAction) -> None:
    """Add the experiment subcommands to ``raidtop lab``."""
    from raidtop.actions.experiments import defaults

    study = sub.add_parser(
        "study",
        help="compare RAID levels, repeated: fio IOPS, MiB/s and latency, "
        "writes during a rebuild, rebuild time, capacity",
    )
    study.add_argument("--levels", default="0,1,5", help="comma-separated levels (default 0,1,5)")
    study.add_argument(
        "--disks",
        type=options.DISKS,
        default=defaults.STUDY_DISKS,
        help=f"disks for every level, raised to a level's minimum (default {defaults.STUDY_DISKS})",
    )
    study.add_argument("--size", type=options.LAB_DISK_SIZE, default="64M", help="size of each disk (default 64M)")
    study.add_argument(
        "--runtime",
        type=options.FIO_RUNTIME,
        default=defaults.STUDY_RUNTIME_S,
        metavar="S",
        help=f"seconds per fio run (default {defaults.STUDY_RUNTIME_S})",
    )
    study.add_argument(
        "--runs",
        type=options.integer(1, 20, "a number of runs"),
        default=defaults.STUDY_RUNS,
        metavar="N",
        help=f"repetitions; the table shows mean ± sd (default {defaults.STUDY_RUNS})",
    )
    study.add_argument(
        "--no-fill", dest="fill", action="store_false", help="skip writing each array end to end before measuring"
    )
    study.add_argument(
        "--ramp",
        type=options.integer(0, 600, "seconds"),
        default=0,
        metavar="S",
        help="fio ramp_time before each measurement (default 0)",
    )
    study.add_argument(
        "--no-during-rebuild",
        dest="during_rebuild",
        action="store_false",
        help="skip the write load measured while the array rebuilds",
    )
    _outputs(study)

    sweep = sub.add_parser("sweep", help="chunk × block-size sweep: fio throughput for every pair, per pattern")
    sweep.add_argument("--level", default="5", help="0, 4, 5, 6 or 10 (default 5)")
    sweep.add_argument("--disks", type=options.DISKS, default=defaults.SWEEP_DISKS, help="disks (default 3)")
    sweep.add_argument("--chunk", default="16K,64K,256K,1M", help="chunk sizes (default 16K,64K,256K,1M)")
    sweep.add_argument("--bs", default="4K,64K,1M", help="fio block sizes (default 4K,64K,1M)")
    sweep.add_argument(
        "--rw", default=",".join(defaults.SWEEP_PATTERNS), help="patterns (default read,write,randread,randwrite)"
    )
    sweep.add_argument(
        "--runtime",
        type=options.FIO_RUNTIME,
        default=defaults.SWEEP_RUNTIME_S,
        metavar="S",
        help=f"seconds per fio job (default {defaults.SWEEP_RUNTIME_S})",
    )
    sweep.add_argument("--size", type=options.LAB_DISK_SIZE, default="32M", help="size of each disk (default 32M)")
    _outputs(sweep)

    trade = sub.add_parser("tradeoff", help="rebuild time against the load's IOPS and p99 latency, per speed limit")
    trade.add_argument("--level", default="5", help="1, 4, 5, 6 or 10 (default 5)")
    trade.add_argument("--disks", type=options.DISKS, default=defaults.TRADEOFF_DISKS, help="disks (default 3)")
    trade.add_argument(
        "--limits",
        default=",".join(defaults.TRADEOFF_LIMITS),
        help="KiB/s per rebuild, or max (default 1000,10000,50000,max)",
    )
    trade.add_argument(
        "--load", default=defaults.TRADEOFF_LOAD, help="fio preset run during each rebuild (default rand-rw)"
    )
    trade.add_argument(
        "--runtime",
        type=options.FIO_RUNTIME,
        default=defaults.TRADEOFF_BASELINE_S,
        metavar="S",
        help=f"seconds of the undisturbed baseline (default {defaults.TRADEOFF_BASELINE_S})",
    )
    trade.add_argument("--size", type=options.LAB_DISK_SIZE, default="32M", help="size of each disk (default 32M)")
    _outputs(trade)

    bitmap = sub.add_parser("bitmap", help="resync after a short outage, with and without a write-intent bitmap")
    bitmap.add_argument("--writes", default="1M,8M,32M", help="MiB written while a member is out (default 1M,8M,32M)")
    bitmap.add_argument("--level", default="1", help="1, 4, 5, 6 or 10 (default 1)")
    bitmap.add_argument("--disks", type=options.DISKS, default=defaults.BITMAP_DISKS, help="disks (default 2)")
    bitmap.add_argument("--size", type=options.LAB_DISK_SIZE, default="64M", help="size of each disk (default 64M)")
    _outputs(bitmap)

    grow = sub.add_parser("grow", help="grow a lab array onto more disks or convert its level (mdadm --grow)")
    grow.add_argument("array")
    grow.add_argument("--disks", type=options.DISKS, default=None, help="raid devices after the reshape")
    grow.add_argument("--level", default=None, help="level after the conversion (raid1 → 5, raid5 → 6, …)")
    grow.add_argument("--timeout", type=options.TIMEOUT, default=1800.0, metavar="S", help="longest wait per reshape")
    _outputs(grow)

    results = sub.add_parser("results", help="the experiments in the lab history; one by id, as CSV or JSON")
    results.add_argument("id", nargs="?", type=options.integer(1, 2**62, "an experiment id"), default=None)
    _outputs(results)


def _outputs(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--csv", type=Path, default=None, metavar="FILE", help="also write the result as CSV")
    parser.add_argument("--json", action="store_true", help="print the result as JSON instead of the table")


def handler(command: str):
    """The function for ``raidtop lab COMMAND``, or ``None`` when it is not an experiment."""
    return {
        "study": _cmd_study,
        "sweep": _cmd_sweep,
        "tradeoff": _cmd_tradeoff,
        "bitmap": _cmd_bitmap,
        "grow": _cmd_grow,
        "results": _cmd_results,
    }.get(command)


def _fail(text: str, code: int = EXIT_FAILED) -> int:
    from raidtop.untrusted import plain

    print(f"raidtop lab: {plain(text, multiline=True)}", file=sys.stderr)
    return code


def _run(lab, args, what: str, levels, need_fio: bool, plan, start) -> int:
    """Check the machine and the parameters, run ``start(control)`` under the signal guard, report."""
    from raidtop.actions.lab.commands import LabCommandFailed
    from raidtop.actions.lab.core import LabError, LabUnavailable
    from raidtop.actions.experiments.experiment import Control, stop_on_signals
    from raidtop.actions.lab.spec import SpecError

    environment = lab.environment(levels, need_fio=need_fio)
    if not environment.ready:
        return _fail(f"the {what} cannot run here:\n" + environment.describe(), EXIT_UNAVAILABLE)
    try:
        checked = plan()
    except SpecError as exc:
        return _fail(str(exc), EXIT_USAGE)
    except LabError as exc:
        return _fail(str(exc))

    def progress(event) -> None:
        print(f"# {event.line()}", file=sys.stderr, flush=True)

    control = Control(progress)
    try:
        with stop_on_signals(control, lambda text: print(f"# {text}", file=sys.stderr, flush=True)):
            result = start(checked, control)
    except LabUnavailable as exc:
        return _fail(str(exc), EXIT_UNAVAILABLE)
    except (LabError, LabCommandFailed, SpecError) as exc:
        return _fail(f"{what} stopped: {exc}")
    return _report(lab, args, result)


def _report(lab, args, result) -> int:
    from raidtop.actions.experiments.results import json_text, result_table, write_csv

    if args.json:
        print(json_text(result))
    else:
        print()
        print(result_table(result) if result.rows else "(no measurement finished)")
        if result.experiment_id is not None:
            print(f"\nstored as experiment {result.experiment_id} in {lab.store.path}")
    if args.csv is not None:
        write_csv(result, args.csv)
        print(f"wrote {args.csv}", file=sys.stderr if args.json else sys.stdout)
    if result.stopped:
        return _fail("stopped before the end; what it made was torn down, what it measured is kept")
    return 0


def _cmd_study(lab, args) -> int:
    from raidtop.actions.experiments import study
    from raidtop.actions.lab.spec import SpecError, parse_size

    try:  # a level that does not exist is a usage error, whatever this machine lacks
        levels = study.parse_levels(args.levels)
    except SpecError as exc:
        return _fail(str(exc), EXIT_USAGE)

    def plan():
        params = study.StudyParams(
            levels,
            args.disks,
            parse_size(args.size),
            args.runtime,
            args.runs,
            args.fill,
            args.ramp,
            args.during_rebuild,
        )
        return study.check_params(params)[0]

    return _run(
        lab, args, "study", list(levels), True, plan, lambda params, control: study.run_study(lab, params, control)
    )


def _cmd_sweep(lab, args) -> int:
    from raidtop.actions.experiments import chunk_sweep as sweep
    from raidtop.actions.lab.spec import level_name, parse_size

    def plan():
        return sweep.check_params(
            sweep.SweepParams(
                level_name(args.level),
                args.disks,
                sweep.parse_chunks(args.chunk),
                sweep.parse_block_sizes(args.bs),
                sweep.parse_patterns(args.rw),
                args.runtime,
                parse_size(args.size),
            )
        )

    return _run(
        lab,
        args,
        "sweep",
        [_level(args.level)],
        True,
        plan,
        lambda params, control: sweep.run_chunk_sweep(lab, params, control),
    )


def _cmd_tradeoff(lab, args) -> int:
    from raidtop.actions.experiments import tradeoff
    from raidtop.actions.lab.spec import level_name, parse_size

    def plan():
        return tradeoff.TradeoffParams(
            level_name(args.level),
            args.disks,
            tradeoff.parse_limits(args.limits),
            args.load,
            args.runtime,
            parse_size(args.size),
        )

    return _run(
        lab,
        args,
        "trade-off",
        [_level(args.level)],
        True,
        plan,
        lambda params, control: tradeoff.run_tradeoff(lab, params, control),
    )


def _cmd_bitmap(lab, args) -> int:
    from raidtop.actions.experiments import bitmap_study
    from raidtop.actions.lab.spec import level_name, parse_size

    def plan():
        return bitmap_study.check_params(
            bitmap_study.BitmapParams(
                bitmap_study.parse_writes(args.writes), level_name(args.level), args.disks, parse_size(args.size)
            )
        )

    return _run(
        lab,
        args,
        "bitmap study",
        [_level(args.level)],
        False,
        plan,
        lambda params, control: bitmap_study.run_bitmap_study(lab, params, control),
    )


def _cmd_grow(lab, args) -> int:
    from raidtop.actions.experiments.grow import plan_grow, run_grow

    if args.disks is None and args.level is None:
        return _fail("grow needs --disks N, --level L or both", EXIT_USAGE)

    def plan():
        checked = plan_grow(lab, args.array, args.disks, args.level)
        for line in checked.commands:
            print(f"# will run: {line}", file=sys.stderr)
        return checked

    levels = [_level(args.level)] if args.level else []
    return _run(
        lab, args, "grow", levels, False, plan, lambda checked, control: run_grow(lab, checked, control, args.timeout)
    )


def _cmd_results(lab, args) -> int:
    from raidtop.actions.experiments.results import json_text, stored_results, summary

    found = stored_results(lab.store, args.id)
    if args.id is not None and not found:
        return _fail(f"the lab history has no experiment {args.id} (raidtop lab results lists them)")
    if args.id is None:
        if args.csv is not None:
            return _fail("--csv exports one experiment: give its id (raidtop lab results ID --csv FILE)", EXIT_USAGE)
        if args.json:
            print(json_text(found))
        elif not found:
            print(f"the lab history has no experiments yet ({lab.store.path})")
        for result in found if not args.json else ():
            print(summary(result))
        return 0
    return (
        _report(lab, argparse.Namespace(json=args.json, csv=args.csv), found[0])
        if not found[0].stopped
        else _show_stopped(lab, args, found[0])
    )


def _show_stopped(lab, args, result) -> int:
    # A stored partial result is still a result: shown and exported, exit 0.
    from dataclasses import replace

    return _report(lab, args, replace(result, stopped=False))


def _level(text: str) -> str:
    from raidtop.actions.lab.spec import SpecError, level_name

    try:
        return level_name(text)
    except SpecError:
        return "raid5"  # the parameter check says what is wrong, after the machine check
