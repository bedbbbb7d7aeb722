"""Run fio as a subprocess and turn its per-second JSON into progress points.

With ``--output-format=json --status-interval=1`` fio prints a complete JSON
document every second (cumulative since the start) and a final one at the
end. :class:`FioRunner` splits the stream into objects as bytes arrive
(:class:`~raidtop.actions.fio.results.JsonObjectSplitter`), differences
consecutive documents into per-second IOPS, bandwidth and mean latency, and
hands each :class:`ProgressPoint` to a callback. It blocks, so callers run it
in a thread; :meth:`FioRunner.cancel` is safe from any thread and sends fio
SIGINT, on which fio stops and prints its results so far: the outcome keeps
them and is marked partial.

fio must not outlive raidtop: a dropped SSH session or a ``kill -9`` would
leave it writing a raw device for its whole runtime. The child asks the
kernel for SIGKILL when its parent thread ends (``PR_SET_PDEATHSIG``); fio
runs its jobs as threads (``--thread``), so that one signal stops them all.
The thread that starts fio is the one that waits for it, so it lives exactly
as long as fio does.
"""

from __future__ import annotations

import codecs
import ctypes
import json
import os
import signal
import subprocess
import tempfile
import threading
import time
from typing import Any
from collections.abc import Callable, Sequence

from raidtop.model.frozen import frozen_dataclass
from raidtop.actions.fio.results import FioResult, JsonObjectSplitter, parse_fio_dict

KILL_AFTER_S = 20.0
"""Seconds fio gets to stop after SIGINT before it is killed."""
_PR_SET_PDEATHSIG = 1


def _load_prctl() -> Callable[..., int] | None:
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None  # not Linux: no parent-death signal to ask for


_prctl = _load_prctl()


def _die_with_parent(parent: int) -> Callable[[], None]:
    """A ``preexec_fn``: SIGKILL this child when the thread that forked it ends."""

    def preexec() -> None:
        if _prctl is not None:
            _prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        # The parent may have died before prctl: then nobody is left to stop fio.
        if os.getppid() != parent:
            os._exit(1)

    return preexec


@frozen_dataclass
class ProgressPoint:
    """One interval of a running job: rates over the last status period."""

    t_s: float
    """Seconds of fio runtime at the end of the interval."""
    read_iops: float
    write_iops: float
    read_bw_bytes_s: float
    write_bw_bytes_s: float
    read_lat_us: float | None
    """Mean completion latency of reads finished in the interval."""
    write_lat_us: float | None

    @property
    def iops(self) -> float:
        """Reads plus writes per second."""
        return self.read_iops + self.write_iops

    @property
    def mib_s(self) -> float:
        """Read plus write MiB/s (2^20 bytes)."""
        return (self.read_bw_bytes_s + self.write_bw_bytes_s) / 2**20

    @property
    def lat_us(self) -> float | None:
        """Mean latency over both directions, weighted by their IOPS."""
        parts = [
            (lat, n)
            for lat, n in ((self.read_lat_us, self.read_iops), (self.write_lat_us, self.write_iops))
            if lat is not None
        ]
        weight = sum(n for _, n in parts)
        if not parts or weight <= 0:
            return None
        return sum(lat * n for lat, n in parts) / weight

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (stored with the run)."""
        return {
            "t": self.t_s,
            "r_iops": self.read_iops,
            "w_iops": self.write_iops,
            "r_bw": self.read_bw_bytes_s,
            "w_bw": self.write_bw_bytes_s,
            "r_lat": self.read_lat_us,
            "w_lat": self.write_lat_us,
        }

    @classmethod
    def from_dict(cls, doc: dict[str, Any]) -> ProgressPoint:
        """Inverse of :meth:`to_dict`."""
        return cls(doc["t"], doc["r_iops"], doc["w_iops"], doc["r_bw"], doc["w_bw"], doc.get("r_lat"), doc.get("w_lat"))


@frozen_dataclass
class _Totals:
    ios: float
    io_bytes: float
    lat_sum_us: float
    lat_n: float


def _totals(doc: dict[str, Any]) -> tuple[float, dict[str, _Totals]]:
    """Cumulative I/O per direction over all jobs, and fio's runtime in seconds."""
    runtime_ms = 0
    out: dict[str, _Totals] = {}
    for direction in ("read", "write"):
        ios = io_bytes = lat_sum = lat_n = 0.0
        for job in doc.get("jobs", ()):
            section = job.get(direction) or {}
            runtime_ms = max(runtime_ms, int(section.get("runtime", 0) or 0))
            ios += float(section.get("total_ios", 0) or 0)
            io_bytes += float(section.get("io_bytes", 0) or 0) * (1 if "io_kbytes" in section else 1024)
            clat, scale = (section.get("clat_ns"), 1e-3) if "clat_ns" in section else (section.get("clat"), 1.0)
            if isinstance(clat, dict):
                n = float(clat.get("N", section.get("total_ios", 0)) or 0)
                lat_sum += float(clat.get("mean", 0) or 0) * scale * n
                lat_n += n
        out[direction] = _Totals(ios, io_bytes, lat_sum, lat_n)
    return runtime_ms / 1000, out


def progress_point(
    previous: dict[str, Any] | None, current: dict[str, Any], min_interval_s: float = 0.2
) -> ProgressPoint | None:
    """The rates between two cumulative status documents (``previous`` None: since the start).

    ``None`` when too little time passed to give a meaningful rate.
    """
    t1, now = _totals(current)
    t0, before = (
        _totals(previous) if previous is not None else (0.0, {d: _Totals(0, 0, 0, 0) for d in ("read", "write")})
    )
    dt = t1 - t0
    if dt < min_interval_s:
        return None
    values: dict[str, tuple[float, float, float | None]] = {}
    for direction in ("read", "write"):
        a, b = before[direction], now[direction]
        dn = b.lat_n - a.lat_n
        lat = (b.lat_sum_us - a.lat_sum_us) / dn if dn > 0 else None
        values[direction] = (max(0.0, (b.ios - a.ios) / dt), max(0.0, (b.io_bytes - a.io_bytes) / dt), lat)
    (r_iops, r_bw, r_lat), (w_iops, w_bw, w_lat) = values["read"], values["write"]
    return ProgressPoint(t1, r_iops, w_iops, r_bw, w_bw, r_lat, w_lat)


@frozen_dataclass
class RunOutcome:
    """How a fio run ended and what it produced."""

    returncode: int | None
    """fio's exit status (negative: killed by that signal); ``None`` if it never started."""
    json_text: str | None
    """The last complete JSON document fio printed: its final result, or the last status."""
    result: FioResult | None
    points: tuple[ProgressPoint, ...]
    partial: bool
    """True when the job did not run its full course (cancelled, failed, killed)."""
    cancelled: bool
    message: str | None
    """Why the run is partial or failed, in one sentence; ``None`` when all went well."""
    started: float
    ended: float
    stderr: str = ""

    @property
    def ok(self) -> bool:
        """A complete result."""
        return self.result is not None and not self.partial

    @property
    def has_result(self) -> bool:
        """Some result to keep (possibly partial)."""
        return self.result is not None


class FioRunner:
    """One fio process. Call :meth:`run` in a worker thread; :meth:`cancel` from anywhere."""

    def __init__(
        self,
        argv: Sequence[str],
        on_point: Callable[[ProgressPoint], None] | None = None,
        kill_after_s: float = KILL_AFTER_S,
        pass_fds: Sequence[int] = (),
    ) -> None:
        self.argv = tuple(argv)
        self.pass_fds = tuple(pass_fds)
        self.on_point = on_point
        self.kill_after_s = kill_after_s
        self._proc: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()
        self._cancelled = False
        self._kill_timer: threading.Timer | None = None

    @property
    def cancelled(self) -> bool:
        """True once :meth:`cancel` was called."""
        return self._cancelled

    def cancel(self) -> None:
        """Ask fio to stop (SIGINT); it is killed if it has not stopped after ``kill_after_s``."""
        with self._lock:
            if self._cancelled:
                return
            self._cancelled = True
            proc = self._proc
            if proc is None or proc.poll() is not None:
                return
            try:
                proc.send_signal(signal.SIGINT)
            except ProcessLookupError:
                return
            self._kill_timer = threading.Timer(self.kill_after_s, self._kill)
            self._kill_timer.daemon = True
            self._kill_timer.start()

    def _kill(self) -> None:
        with self._lock:
            proc = self._proc
        if proc is not None and proc.poll() is None:
            proc.kill()

    def run(self) -> RunOutcome:
        """Start fio, stream its progress to ``on_point`` and return the outcome."""
        started = time.time()
        with tempfile.TemporaryFile() as stderr_file:
            with self._lock:
                if self._cancelled:
                    return RunOutcome(
                        None, None, None, (), True, True, "cancelled before fio started", started, time.time()
                    )
                try:
                    # A session of its own: a Ctrl-C on the terminal reaches raidtop,
                    # which forwards exactly one SIGINT (a second one makes fio quit without results).
                    self._proc = subprocess.Popen(
                        self.argv,
                        stdin=subprocess.DEVNULL,
                        stdout=subprocess.PIPE,
                        stderr=stderr_file,
                        start_new_session=True,
                        pass_fds=self.pass_fds,
                        preexec_fn=_die_with_parent(os.getpid()),
                    )
                except OSError as exc:
                    return RunOutcome(
                        None,
                        None,
                        None,
                        (),
                        True,
                        False,
                        f"fio could not start: {exc.strerror or exc}",
                        started,
                        time.time(),
                    )
            proc = self._proc
            points, last_text = self._stream(proc)
            returncode = proc.wait()
            if self._kill_timer is not None:
                self._kill_timer.cancel()
            stderr_file.seek(0)
            stderr = stderr_file.read().decode("utf-8", "replace")
        return self._outcome(returncode, last_text, points, stderr, started)

    def _stream(self, proc: subprocess.Popen[bytes]) -> tuple[list[ProgressPoint], str | None]:
        assert proc.stdout is not None
        splitter = JsonObjectSplitter()
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        previous: dict[str, Any] | None = None
        last_text: str | None = None
        points: list[ProgressPoint] = []
        fd = proc.stdout.fileno()
        while True:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            for text in splitter.feed(decoder.decode(chunk)):
                try:
                    doc = json.loads(text)
                except ValueError:
                    continue
                if not isinstance(doc, dict) or not isinstance(doc.get("jobs"), list):
                    continue
                last_text = text
                try:
                    point = progress_point(previous, doc)
                except (TypeError, ValueError, AttributeError):
                    point = None
                # A status too soon after the last one is folded into the next interval.
                if point is not None:
                    previous = doc
                    points.append(point)
                    if self.on_point is not None:
                        try:
                            self.on_point(point)
                        except Exception:  # noqa: BLE001 - a display that broke (a hung-up terminal) must not stop the reading
                            self.on_point = None
        proc.stdout.close()
        return points, last_text

    def _outcome(
        self, returncode: int, last_text: str | None, points: list[ProgressPoint], stderr: str, started: float
    ) -> RunOutcome:
        ended = time.time()
        result = None
        parse_message = None
        if last_text is not None:
            parsed = parse_fio_dict(json.loads(last_text))
            result, parse_message = parsed.result, parsed.message
        last_err = next((line for line in reversed(stderr.strip().splitlines()) if line.strip()), "")
        if self._cancelled:
            message = "cancelled: fio stopped early, the result covers the time it ran"
            partial = True
        elif returncode != 0:
            how = f"killed by signal {-returncode}" if returncode < 0 else f"exit status {returncode}"
            message = f"fio failed ({how})" + (f": {last_err}" if last_err else "")
            partial = True
        elif result is not None and result.errors:
            message = "; ".join(result.errors)
            partial = True
        else:
            message = None
            partial = False
        if result is None:
            message = message or parse_message or ("fio printed no result" + (f": {last_err}" if last_err else ""))
        return RunOutcome(
            returncode, last_text, result, tuple(points), partial, self._cancelled, message, started, ended, stderr
        )
