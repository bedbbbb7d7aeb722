"""raidtop next to atop at 10, 500 and 2000 block devices, with few and with 2000 processes (issue 30, item 1).

Usage (as root, from the repository root)::

    .venv/bin/python perf/versus_atop.py                     # 30 s per tool and setting
    .venv/bin/python perf/versus_atop.py --sizes 0,500 --seconds 20
    .venv/bin/python perf/versus_atop.py --sizes 0 --rounds 3     # each tool 3 times, interleaved

One run, one machine state: for each device count (loop devices added to
the ones before, on perf/scale.py's private tmpfs; 0 = the host's own), first
with the processes already there, then with ``--sleepers`` more sleeping
processes, it measures raidtop with its Processes panel shown (``6``),
raidtop as it starts (panel hidden) and ``atop 1`` (which always shows its
process list), each alone in its own tmux at 120×40 with a 1 s refresh
(perf/tui_measure.py). One device is read by fio at 100 IOPS throughout. It
prints one table and raidtop's same-run ratio to atop per setting.

More tools by ``--tools``: ``glances``; ``textual-clock`` (perf/textual_clock.py,
a Textual app that only shows the time: the floor under any Textual
dashboard); ``raidtop-processes-before`` with ``--before CHECKOUT`` (an earlier
tree, panel shown, for a change measured in the same run).

``--rounds N`` measures every tool N times per setting, the tools taking turns
(A B C, A B C, ...), so a slow drift of the machine (another tenant, a kernel
thread such as kdamond) falls on every tool alike. Each ratio is then given as
the median of the rounds' own ratios (each round's tool over that round's
atop) with the lowest and highest: one 30 s run of atop has varied from
0.56 % to 0.96 % of a core on the same machine, more than the budget's margin.

Everything it sets up is undone on exit, Ctrl-C, SIGTERM or SIGHUP
(scale.py's ``LoopFarm.close``: our devices detached, the nodes losetup made
removed, sleepers and fio stopped, the tmpfs unmounted). Not part of the test
run: results depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from scale import LoopFarm, block_device_count, process_count, tool_specs, with_loop_farm  # noqa: E402
from tui_cost import find_glances, machine_lines  # noqa: E402
from tui_measure import Measurement, measure, prewarm  # noqa: E402

TOOLS = ("raidtop-processes", "raidtop", "atop")


def main() -> int:
    """Grow the devices step by step, measure each tool with few and many processes, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="0,500,2000", help="loop devices in total at each step (default 0,500,2000)")
    parser.add_argument(
        "--sleepers", type=int, default=2000, help="sleeping processes for the second setting (0: no second setting)"
    )
    parser.add_argument("--seconds", type=float, default=30.0, help="run length per tool (default 30)")
    parser.add_argument("--warmup", type=float, default=5.0, help="start-up window before steady state (default 5)")
    parser.add_argument("--rounds", type=int, default=1, help="times each tool is measured per setting, in turns")
    parser.add_argument("--tools", default=",".join(TOOLS), help="comma-separated, in run order")
    parser.add_argument("--python", default=sys.executable, help="interpreter with raidtop's dependencies")
    parser.add_argument(
        "--glances", help="path to glances, for --tools ...,glances (default: found as perf/scale.py finds it)"
    )
    parser.add_argument("--before", help="a checkout of an earlier tree, for --tools ...,raidtop-processes-before")
    args = parser.parse_args()
    if os.geteuid() != 0:
        print("versus_atop.py attaches loop devices and mounts a tmpfs: run it as root", file=sys.stderr)
        return 2
    try:
        sizes = [int(part) for part in args.sizes.split(",")]
    except ValueError:
        print(f"--sizes takes counts separated by commas, not {args.sizes!r}", file=sys.stderr)
        return 2
    if args.rounds < 1:
        print("--rounds must be at least 1", file=sys.stderr)
        return 2
    if any(b < a for a, b in zip(sizes, sizes[1:], strict=False)) or min(sizes) < 0:
        print("--sizes must be ≥ 0 and growing", file=sys.stderr)
        return 2
    missing = [name for name in ("tmux", "losetup", "fio", "atop") if shutil.which(name) is None]
    if missing:
        print(f"needed and not found: {', '.join(missing)}", file=sys.stderr)
        return 2
    specs = tool_specs(args.tools.split(","), args.python, find_glances(args.glances), args.before)

    def measured(farm: LoopFarm) -> int:
        rows: list[tuple[int, int, int, Measurement]] = []
        for line in machine_lines():
            print(line)
        for spec in specs:
            print(f"tool      {spec.name}: {' '.join(spec.argv)}")
        prewarm(args.python)
        with tempfile.TemporaryDirectory(prefix="raidtop-versus-atop-") as tmp:
            for size in sizes:
                farm.attach(size - len(farm.devices))
                if farm.fio is None and farm.devices:
                    farm.start_fio(1)
                for sleepers in dict.fromkeys((0, args.sleepers)):  # --sleepers 0: few processes only
                    farm.start_sleepers(sleepers)
                    devices, processes = block_device_count(), process_count()
                    print(f"  {devices} block devices, {processes} processes", file=sys.stderr)
                    for turn in range(1, args.rounds + 1):
                        for spec in specs:
                            result = measure(spec, args.seconds, args.warmup, Path(tmp))
                            rows.append((devices, processes, turn, result))
                            print(f"    {spec.name} (round {turn}): {result.steady_cpu_pct:.2f} %", file=sys.stderr)
                    farm.stop_sleepers()
        print()
        print_table(rows)
        print(f"load at end {Path('/proc/loadavg').read_text().strip()}")
        return 0

    return with_loop_farm(measured, "versus-atop benchmark")


RATIO_TOOLS = ("raidtop-processes", "raidtop-processes-before", "raidtop", "raidtop-before", "textual-clock")
"""The tools whose steady CPU is given over atop's."""


def print_table(rows: list[tuple[int, int, int, Measurement]]) -> None:
    """Every measurement, then each tool's steady CPU over atop's per setting (over the rounds: median, low, high)."""
    print("| block devices | processes | round | tool | steady CPU % | peak RSS MB | out B/s |")
    print("|---|---|---|---|---|---|---|")
    for devices, processes, turn, r in rows:
        figures = f"{r.steady_cpu_pct:.2f} | {r.peak_rss_mb:.1f} | {r.bytes_per_s:.0f}"
        print(f"| {devices} | {processes} | {turn} | {r.name} | {figures} |")
    print()
    settings: dict[tuple[int, int], dict[int, dict[str, Measurement]]] = {}
    for devices, processes, turn, r in rows:
        settings.setdefault((devices, processes), {}).setdefault(turn, {})[r.name] = r
    for (devices, processes), turns in settings.items():
        parts = []
        for name in (*RATIO_TOOLS, "glances"):
            ratios = round_ratios(turns, name, "atop")
            if ratios:
                parts.append(f"{name} / atop {spread(ratios)}")
        ratios = round_ratios(turns, "raidtop-processes", "glances")
        if ratios:
            parts.append(f"raidtop-processes / glances {spread(ratios)}")
        print(f"{devices:5d} devices {processes:5d} processes: " + "  ".join(parts))
    print("budget (issue 30, item 1): raidtop-processes / atop ≤ 1.00x in every setting (the median over the rounds)")


def round_ratios(turns: dict[int, dict[str, Measurement]], name: str, over: str) -> list[float]:
    """``name``'s steady CPU over ``over``'s, one ratio per round that measured both."""
    ratios = []
    for by_name in turns.values():
        top, bottom = by_name.get(name), by_name.get(over)
        if top is not None and bottom is not None and bottom.steady_cpu_pct > 0:
            ratios.append(top.steady_cpu_pct / bottom.steady_cpu_pct)
    return ratios


def spread(ratios: list[float]) -> str:
    """``1.02x`` for one round; ``1.02x (0.91-1.10)`` for several: the median, then the lowest and highest."""
    if len(ratios) == 1:
        return f"{ratios[0]:4.2f}x"
    return f"{statistics.median(ratios):4.2f}x ({min(ratios):.2f}-{max(ratios):.2f})"


if __name__ == "__main__":
    sys.exit(main())
