"""Measuring one terminal app: launched in a private tmux server, its CPU, memory, output and first frame.

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

Used by tui_cost.py (raidtop beside glances and a bare Textual app) and
scale.py (the same at 500 devices).
"""

from __future__ import annotations

import os
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
WIDTH, HEIGHT = 120, 40


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
