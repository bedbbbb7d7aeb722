"""What a terminal dashboard costs to run: raidtop next to glances and a bare Textual app.

Usage (from the repository root)::

    /path/to/python perf/tui_cost.py                 # 40 s per app, one round
    /path/to/python perf/tui_cost.py --rounds 2      # interleaved rounds, medians
    /path/to/python perf/tui_cost.py --glances /tmp/glances-venv/bin/glances

``python`` must have raidtop's dependencies (Textual 8.x); raidtop is started as
``.venv/bin/raidtop`` when that exists, else as ``python -m raidtop`` from the
repository. glances comes from its own venv (``pip install glances`` into
``/tmp/glances-venv`` or ``perf/out/glances-venv``, both outside git).

Each app runs alone in its own tmux server at 120×40 with a 1 s refresh;
tui_measure.py says how each figure is taken.

Not part of the test run: results depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from tui_measure import REPO, AppSpec, Measurement, measure, prewarm, time_first_frame  # noqa: E402

BUDGETS = (
    "raidtop: steady CPU ≤ 0.75× glances -t 1, output ≤ 4 KB/s (issue 30), peak RSS ≤ 64 MB, first frame ≤ 0.6 s "
    "and ≤ 1.3× the bare Textual app's in the same run (issue 30)"
)


# ---------------------------------------------------------------- the apps


def raidtop_argv(python: str) -> tuple[str, ...]:
    """The project's console script when the venv exists, else ``python -m raidtop``."""
    script = REPO / ".venv/bin/raidtop"
    if script.exists():
        return (str(script),)
    return (python, "-m", "raidtop")


def app_specs(
    python: str,
    glances: str | None,
    with_comparable: bool,
    raidtop_cmd: str | None = None,
    also: tuple[str, ...] = (),
    before: str | None = None,
) -> list[AppSpec]:
    """raidtop, its experimental variants, glances -t 1 (and like-for-like), and the DataTable reference.

    ``before``: another checkout, run as ``raidtop-before`` from its own directory
    (``python -m`` puts the working directory first on sys.path) without writing bytecode there.
    """
    argv = tuple(shlex.split(raidtop_cmd)) if raidtop_cmd else raidtop_argv(python)
    apps = [AppSpec("raidtop", argv, "Disks")]
    if before:
        command = ("env", "PYTHONDONTWRITEBYTECODE=1", python, "-m", "raidtop")
        apps.append(AppSpec("raidtop-before", command, "Disks", cwd=Path(before)))
    for variant in also:
        name, _, command = variant.partition("=")
        words = [python if word == "python" else word for word in shlex.split(command)]
        apps.append(AppSpec(name, tuple(words), "Disks"))
    if glances:
        base = (glances, "-t", "1", "--disable-check-update")
        apps.append(AppSpec("glances", base, "LOAD"))
        if with_comparable:
            # Same panels as raidtop: no process list, one line per CPU.
            apps.append(AppSpec("glances-noproc", (*base, "--disable-process", "--percpu"), "LOAD"))
    apps.append(AppSpec("textual-datatable", (python, str(REPO / "perf/datatable_reference.py")), "col0"))
    return apps


def find_glances(explicit: str | None) -> str | None:
    """An explicit path, else a glances venv in the usual places, else PATH."""
    candidates = (
        [explicit]
        if explicit
        else [
            str(REPO / "perf/out/glances-venv/bin/glances"),
            "/tmp/glances-venv/bin/glances",
            shutil.which("glances"),
        ]
    )
    return next((c for c in candidates if c and os.access(c, os.X_OK)), None)


# ---------------------------------------------------------------- report


def median_of(runs: list[Measurement], extra_frames: list[tuple[float | None, float | None]] = ()) -> Measurement:
    """Field-wise medians of several runs of one app (first frame: of every launch)."""
    launches = [(r.first_frame_s, r.first_frame_cpu_s) for r in runs] + list(extra_frames)
    frames = [wall for wall, _ in launches if wall is not None]
    frame_cpu = [cpu for _, cpu in launches if cpu is not None]
    return Measurement(
        name=runs[0].name,
        startup_cpu_pct=statistics.median(r.startup_cpu_pct for r in runs),
        steady_cpu_pct=statistics.median(r.steady_cpu_pct for r in runs),
        peak_rss_mb=statistics.median(r.peak_rss_mb for r in runs),
        bytes_per_s=statistics.median(r.bytes_per_s for r in runs),
        startup_bytes=int(statistics.median(r.startup_bytes for r in runs)),
        first_frame_s=statistics.median(frames) if frames else None,
        first_frame_cpu_s=statistics.median(frame_cpu) if frame_cpu else None,
    )


def print_table(results: list[Measurement], rounds: int, launches: int) -> None:
    """Side by side, then raidtop's ratios to glances and its budgets."""
    print(f"\nmedians over {rounds} round(s); first frame: median of {launches} launches")
    header = (
        f"{'app':<18} {'steady CPU %':>12} {'start-up CPU %':>14} {'peak RSS MB':>11} {'out B/s':>8} "
        f"{'start-up B':>10} {'first frame s':>13} {'CPU s to it':>11}"
    )
    print(header)
    print("-" * len(header))
    for r in results:
        frame = f"{r.first_frame_s:.2f}" if r.first_frame_s is not None else "n/a"
        frame_cpu = f"{r.first_frame_cpu_s:.2f}" if r.first_frame_cpu_s is not None else "n/a"
        print(
            f"{r.name:<18} {r.steady_cpu_pct:>12.2f} {r.startup_cpu_pct:>14.1f} {r.peak_rss_mb:>11.1f} "
            f"{r.bytes_per_s:>8.0f} {r.startup_bytes:>10} {frame:>13} {frame_cpu:>11}"
        )
    by_name = {r.name: r for r in results}
    references = ("glances", "glances-noproc", "textual-datatable")
    for subject in (r for r in results if r.name not in references):
        print()
        for other in references:
            o = by_name.get(other)
            if o is not None and o.steady_cpu_pct > 0:
                out_ratio = subject.bytes_per_s / o.bytes_per_s if o.bytes_per_s else float("inf")
                print(
                    f"{subject.name} / {other:<17} CPU {subject.steady_cpu_pct / o.steady_cpu_pct:5.2f}x  "
                    f"RSS {subject.peak_rss_mb / o.peak_rss_mb:5.2f}x  output {out_ratio:6.2f}x"
                )
        print(f"budgets ({subject.name}): {BUDGETS.split(': ', 1)[1]}")
        for verdict in budget_verdicts(subject, by_name.get("glances"), by_name.get("textual-datatable")):
            print("  " + verdict)


def budget_verdicts(raidtop: Measurement, glances: Measurement | None, bare: Measurement | None = None) -> list[str]:
    """One line per budget: held, or missed by how much."""
    checks = [("output KB/s", raidtop.bytes_per_s / 1000.0, 4.0), ("peak RSS MB", raidtop.peak_rss_mb, 64.0)]
    if raidtop.first_frame_s is not None:
        checks.append(("first frame s", raidtop.first_frame_s, 0.6))
        if bare is not None and bare.first_frame_s:
            checks.append(("first frame / bare", raidtop.first_frame_s / bare.first_frame_s, 1.3))
    if glances is not None:
        checks.append(("steady CPU / glances", raidtop.steady_cpu_pct / glances.steady_cpu_pct, 0.75))
    lines = []
    for label, value, limit in checks:
        verdict = "ok" if value <= limit else f"MISS by {value / limit:.2f}x"
        lines.append(f"{label:<22} {value:8.3f}  (≤ {limit})  {verdict}")
    return lines


def machine_lines() -> list[str]:
    """Date, Python, machine and load: what the numbers depend on."""
    versions = subprocess.run(["tmux", "-V"], capture_output=True, text=True).stdout.strip()
    return [
        f"date      {datetime.datetime.now().astimezone().isoformat(timespec='seconds')}",
        f"python    {platform.python_version()} ({sys.executable}); {versions}",
        f"machine   {platform.machine()}, {os.cpu_count()} cores, {platform.platform()}",
        f"load      {Path('/proc/loadavg').read_text().strip()}",
        block_devices_line(),
    ]


def block_devices_line() -> str:
    """How many devices /sys/block lists, and how many of them are loop nodes with nothing attached.

    ``losetup -f`` makes a node when none is free and a detach leaves it, so
    other runs (a test suite beside a 500-device farm) can leave hundreds that
    every tool then lists: a setting of "10 devices" measures them too. The
    kernel makes 8 at boot (max_loop); more are worth removing before a run.
    """
    names = os.listdir("/sys/block")
    unattached = [
        name
        for name in names
        if name.startswith("loop") and name[4:].isdigit() and not os.path.exists(f"/sys/block/{name}/loop/backing_file")
    ]
    return f"block     {len(names)} in /sys/block, {len(unattached)} of them loop nodes with nothing attached"


def main() -> None:
    """Measure every app ``--rounds`` times, interleaved, and print the comparison."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=40.0, help="run length per app (default 40)")
    parser.add_argument(
        "--warmup", type=float, default=5.0, help="start-up window excluded from steady state (default 5)"
    )
    parser.add_argument("--rounds", type=int, default=1, help="interleaved rounds; medians are printed (default 1)")
    parser.add_argument(
        "--python", default=sys.executable, help="interpreter with Textual for raidtop and the reference"
    )
    parser.add_argument("--glances", help="path to the glances executable")
    parser.add_argument("--before", help="a checkout to measure beside this one as raidtop-before (read only)")
    parser.add_argument("--no-comparable", action="store_true", help="skip the glances --disable-process --percpu run")
    parser.add_argument("--only", help="comma-separated app names to run")
    parser.add_argument(
        "--raidtop-cmd", help="command line to start raidtop with (an experiment), run from the repository"
    )
    parser.add_argument(
        "--also",
        action="append",
        default=[],
        metavar="NAME=CMD",
        help="an extra raidtop variant to measure in the same run ('python' means --python)",
    )
    parser.add_argument(
        "--frame-launches", type=int, default=5, help="extra launches per app timing only the first frame"
    )
    args = parser.parse_args()
    if shutil.which("tmux") is None:
        sys.exit("tmux is required")
    glances = find_glances(args.glances)
    apps = app_specs(args.python, glances, not args.no_comparable, args.raidtop_cmd, tuple(args.also), args.before)
    if args.only:
        wanted = set(args.only.split(","))
        apps = [a for a in apps if a.name in wanted]
    for line in machine_lines():
        print(line)
    print(f"glances   {glances or 'not found: glances rows skipped'}")
    for app in apps:
        print(f"app       {app.name}: {' '.join(app.argv)}")
    runs: dict[str, list[Measurement]] = {a.name: [] for a in apps}
    prewarm(args.python)
    with tempfile.TemporaryDirectory(prefix="raidtop-tui-") as tmp:
        for round_number in range(args.rounds):
            for app in apps:
                result = measure(app, args.seconds, args.warmup, Path(tmp))
                runs[app.name].append(result)
                print(f"  round {round_number + 1} {app.name}: {result}", file=sys.stderr)
        frames: dict[str, list[tuple[float | None, float | None]]] = {a.name: [] for a in apps}
        for _ in range(args.frame_launches):
            for app in apps:
                frames[app.name].append(time_first_frame(app, Path(tmp)))
        print(f"  first frames: {frames}", file=sys.stderr)
    launches = args.rounds + args.frame_launches
    print_table([median_of(runs[name], frames[name]) for name in runs], args.rounds, launches)
    print(f"load at end {Path('/proc/loadavg').read_text().strip()}")


if __name__ == "__main__":
    main()
