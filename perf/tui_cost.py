"""What a terminal dashboard costs to run: raidtop next to glances and a bare Textual app.

Usage (from the repository root)::

    /path/to/python perf/tui_cost.py                 # 40 s per app, one round
    /path/to/python perf/tui_cost.py --rounds 2      # interleaved rounds, medians
    /path/to/python perf/tui_cost.py --glances /tmp/glances-venv/bin/glances

``python`` must have raidtop's dependencies (Textual 8.x); raidtop is started as
``.venv/bin/raidtop`` when that exists, else as ``python -m raidtop`` from the
repository. glances comes from its own venv (``pip install glances`` into
``/tmp/glances-venv`` or ``perf/out/glances-venv``, both outside git).

Each app runs alone in its own tmux server at 120×40 (TERM=tmux-256color,
COLORTERM=truecolor, as in a modern terminal) with a 1 s refresh. How each
figure is taken:

* The pane starts ``sh`` blocked on a FIFO; ``tmux pipe-pane -o`` is attached
  first, then the FIFO is written and the shell ``exec``\\ s the app, so the
  app's PID is the pane's PID and every byte it writes is copied to a file.
  pipe-pane copies only what the program writes to its pty (no tmux redraw
  traffic, no key echo): that file's growth is the app's terminal output.
* CPU: utime + stime from /proc/<pid>/stat (all threads). Start-up is the
  first 5 s after launch; steady state is from 5 s to the end of the run.
* Peak RSS: VmHWM from /proc/<pid>/status just before the app is stopped.
* Time to first frame: from the FIFO write until ``tmux capture-pane`` shows
  a string of the app's first screen (polled every 10 ms).

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
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
WIDTH, HEIGHT = 120, 40
BUDGETS = (
    "raidtop: steady CPU ≤ 0.75× glances -t 1, output ≤ 8 KB/s, peak RSS ≤ 64 MB, first frame ≤ 0.6 s "
    "and ≤ 1.5× the bare Textual app's in the same run"
)


@dataclass(frozen=True)
class AppSpec:
    """One program to measure and the text that shows its first screen is up."""

    name: str
    argv: tuple[str, ...]
    marker: str
    cwd: Path = REPO
    keys: tuple[str, ...] = ()
    """Keys typed once the first screen is up (e.g. raidtop's ``6``: the Processes panel)."""


@dataclass(frozen=True)
class Measurement:
    """One run of one app."""

    name: str
    startup_cpu_pct: float
    steady_cpu_pct: float
    peak_rss_mb: float
    bytes_per_s: float
    startup_bytes: int
    first_frame_s: float | None
    first_frame_cpu_s: float | None = None
    """CPU the app used until its first frame: what it controls, whatever the load."""


# ---------------------------------------------------------------- tmux plumbing


class TmuxServer:
    """A private tmux server (its own socket), so other sessions are never touched."""

    def __init__(self, workdir: Path, label: str) -> None:
        self.socket = f"raidtop-bench-{os.getpid()}-{label}"
        self.config = workdir / "tmux.conf"
        self.config.write_text("set -g default-terminal tmux-256color\nset -g status off\n")

    def run(self, *args: str) -> str:
        """Run one tmux command against this server and return its output."""
        out = subprocess.run(
            ["tmux", "-L", self.socket, "-f", str(self.config), *args],
            check=True,
            capture_output=True,
            text=True,
            env=app_environment(),
        )
        return out.stdout

    def kill(self) -> None:
        """Stop this server (and with it any session left behind)."""
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True)


def app_environment() -> dict[str, str]:
    """This environment minus what would make a launch unlike a user's.

    PYTHONDONTWRITEBYTECODE (set in some sandboxes) would make every launch
    compile raidtop from source; users run from cached bytecode.
    """
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("TMUX", None)
    return env


def prewarm(python: str) -> None:
    """Import raidtop and Textual once so the measured launches find their bytecode cached."""
    subprocess.run(
        [python, "-c", "import raidtop.app.raidtop_app, raidtop.__main__, textual.widgets"],
        cwd=REPO,
        env=app_environment(),
        check=False,
        capture_output=True,
    )


def _stat_fields(pid: int) -> list[str]:
    """Fields 3.. of /proc/<pid>/stat (after the command name, which may hold spaces)."""
    text = Path(f"/proc/{pid}/stat").read_text()
    return text[text.rindex(")") + 2 :].split()


def _read_ticks(pid: int) -> int:
    """CPU of ``pid`` and its children in clock ticks: all threads, reaped and live children.

    utime + stime + cutime + cstime (fields 14-17 of proc(5)) count the app and
    the children it has waited for; children still running (a helper process
    an app keeps) are added from their own stat, so nothing a tool forks is missed.
    """
    fields = _stat_fields(pid)
    own = sum(int(f) for f in fields[11:15])
    return own + sum(_live_child_ticks(pid))


def _live_child_ticks(parent: int) -> list[int]:
    """utime + stime + cutime + cstime of every live descendant of ``parent``."""
    children: dict[int, list[tuple[int, int]]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = _stat_fields(int(entry))
        except (OSError, ValueError):
            continue  # exited while we looked
        ticks = sum(int(f) for f in fields[11:15])
        children.setdefault(int(fields[1]), []).append((int(entry), ticks))
    found, todo = [], [parent]
    while todo:
        for child, ticks in children.get(todo.pop(), []):
            found.append(ticks)
            todo.append(child)
    return found


def _peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024.0
    return float("nan")


def _launch(server: TmuxServer, app: AppSpec, workdir: Path) -> tuple[int, float, Path]:
    """Start ``app`` in a new session with its output copied to a file: (pid, start time, output file)."""
    fifo = workdir / f"{app.name}.go"
    output = workdir / f"{app.name}.out"
    for path in (fifo, output):
        path.unlink(missing_ok=True)
    os.mkfifo(fifo)
    # The shell waits on the FIFO so the output copy is attached before the app starts.
    launcher = ["sh", "-c", 'read _ < "$0"; cd "$1"; shift 2; exec "$@"', str(fifo), str(app.cwd), "--", *app.argv]
    server.run(
        "new-session",
        "-d",
        "-s",
        app.name,
        "-x",
        str(WIDTH),
        "-y",
        str(HEIGHT),
        "-e",
        "COLORTERM=truecolor",
        *launcher,
    )
    server.run("pipe-pane", "-o", "-t", app.name, f"cat > {output}")
    pid = int(server.run("display-message", "-p", "-t", app.name, "#{pane_pid}").strip())
    started = time.monotonic()
    with open(fifo, "w") as go:
        go.write("go\n")
    return pid, started, output


def measure(app: AppSpec, seconds: float, warmup: float, workdir: Path) -> Measurement:
    """Run ``app`` in a fresh tmux server for ``seconds`` and take its figures."""
    server = TmuxServer(workdir, f"{app.name}-{time.monotonic_ns()}")
    try:
        pid, started, output = _launch(server, app, workdir)
        first_frame, first_frame_cpu = _wait_for_marker(server, app, pid, started, timeout=min(15.0, seconds))
        if app.keys:
            server.run("send-keys", "-t", app.name, *app.keys)
        _sleep_until(started + warmup)
        ticks_warm, bytes_warm, at_warm = _read_ticks(pid), _size(output), time.monotonic()
        _sleep_until(started + seconds)
        ticks_end, bytes_end, at_end = _read_ticks(pid), _size(output), time.monotonic()
        peak = _peak_rss_mb(pid)
    finally:
        server.kill()
    return Measurement(
        name=app.name,
        startup_cpu_pct=ticks_warm / CLOCK_TICKS / (at_warm - started) * 100.0,
        steady_cpu_pct=(ticks_end - ticks_warm) / CLOCK_TICKS / (at_end - at_warm) * 100.0,
        peak_rss_mb=peak,
        bytes_per_s=(bytes_end - bytes_warm) / (at_end - at_warm),
        startup_bytes=bytes_warm,
        first_frame_s=first_frame,
        first_frame_cpu_s=first_frame_cpu,
    )


def time_first_frame(app: AppSpec, workdir: Path) -> tuple[float | None, float | None]:
    """Launch ``app`` only to time its first frame (wall and CPU seconds), then stop it."""
    server = TmuxServer(workdir, f"{app.name}-frame-{time.monotonic_ns()}")
    try:
        pid, started, _ = _launch(server, app, workdir)
        return _wait_for_marker(server, app, pid, started, timeout=15.0)
    finally:
        server.kill()


def _wait_for_marker(
    server: TmuxServer, app: AppSpec, pid: int, started: float, timeout: float
) -> tuple[float | None, float | None]:
    """Seconds until the pane shows ``app.marker``, and the app's CPU seconds by then."""
    while time.monotonic() - started < timeout:
        try:
            screen = server.run("capture-pane", "-p", "-t", app.name)
        except subprocess.CalledProcessError:
            raise RuntimeError(f"{app.name} exited during start-up: {' '.join(app.argv)}") from None
        if app.marker in screen:
            return time.monotonic() - started, _read_ticks(pid) / CLOCK_TICKS
        time.sleep(0.01)
    return None, None


def _sleep_until(deadline: float) -> None:
    remaining = deadline - time.monotonic()
    if remaining > 0:
        time.sleep(remaining)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


# ---------------------------------------------------------------- the apps


def raidtop_argv(python: str) -> tuple[str, ...]:
    """The project's console script when the venv exists, else ``python -m raidtop``."""
    script = REPO / ".venv/bin/raidtop"
    if script.exists():
        return (str(script),)
    return (python, "-m", "raidtop")


def app_specs(
    python: str, glances: str | None, with_comparable: bool, raidtop_cmd: str | None = None, also: tuple[str, ...] = ()
) -> list[AppSpec]:
    """raidtop, its experimental variants, glances -t 1 (and like-for-like), and the DataTable reference."""
    argv = tuple(shlex.split(raidtop_cmd)) if raidtop_cmd else raidtop_argv(python)
    apps = [AppSpec("raidtop", argv, "Disks")]
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
    checks = [("output KB/s", raidtop.bytes_per_s / 1000.0, 8.0), ("peak RSS MB", raidtop.peak_rss_mb, 64.0)]
    if raidtop.first_frame_s is not None:
        checks.append(("first frame s", raidtop.first_frame_s, 0.6))
        if bare is not None and bare.first_frame_s:
            checks.append(("first frame / bare", raidtop.first_frame_s / bare.first_frame_s, 1.5))
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
    ]


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
    apps = app_specs(args.python, glances, not args.no_comparable, args.raidtop_cmd, tuple(args.also))
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
