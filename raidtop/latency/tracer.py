"""The one bpftrace process behind the member grid's latency columns: started, read and ended here.

:class:`LatencyTracer` owns the process and the daemon thread that reads it.
The thread resolves the device names to numbers, starts ``bpftrace`` (its
own session, so a terminal's signals reach raidtop, which ends it), reads one
JSON line at a time with a size cap, turns each cumulative print into the
interval's histograms and hands them to a callback. It is :attr:`attached`
once bpftrace says every probe is attached (the program's ``BEGIN`` line, not
bpftrace's ``attached_probes``, which comes before the attaching). A watcher
thread ends a bpftrace that goes quiet (never attaches, or stops completing
its prints: a blocked read would wait for ever) or floods its error output,
and says so as the reason.
:meth:`LatencyTracer.stop` ends the process group (TERM, then KILL after a
grace period) and is safe to call from any thread, any number of times; at
exit raidtop waits for that, so no bpftrace outlives it. No Textual: the
screen wraps the callbacks in messages.
"""

from __future__ import annotations

import atexit
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import weakref
from collections.abc import Callable
from pathlib import Path

from raidtop.latency.histogram import Log2Histogram, delta, parse_hist_maps
from raidtop.latency.program import ATTACHED, FINER, INTERVAL_DONE, argv, kernel_dev, program
from raidtop.model.units import duration, size
from raidtop.untrusted import plain

MAX_LINE = 1 << 20
"""Bytes read per line: a print of a few hundred devices' histograms is far below it."""
GRACE_S = 1.0
"""How long bpftrace gets to run its END after TERM before it is killed. Killing loses nothing: the
kernel detaches the probes and frees the maps when the process's descriptors close."""
ATTACH_S = 180.0
"""How long bpftrace may take to compile the program and attach every probe (seconds on a busy host,
tens under emulation on a slow VM) before it counts as stuck."""
MAX_ERRORS = 1 << 20
"""Bytes of bpftrace's error output kept on disk: its last words are a line; more is a bpftrace gone wrong."""
STALL_MIN_S = 10.0
STALL_INTERVALS = 5
"""Once attached, a bpftrace that ends no interval's print for this many intervals (at least
:data:`STALL_MIN_S`) is stuck: it is ended, and the reason said."""
TRACEFS = (Path("/sys/kernel/tracing"), Path("/sys/kernel/debug/tracing"))

Sampled = Callable[[dict[str, Log2Histogram]], None]
"""Called from the reader thread with each interval's histogram per device name (``{}`` once attached)."""
Ended = Callable[[str], None]
"""Called from the reader thread once, with why the tracer stopped ("" when asked to)."""

_LIVE: weakref.WeakSet[LatencyTracer] = weakref.WeakSet()


def why_unavailable() -> str | None:
    """Why latency distributions cannot be sampled here, or ``None`` when they can."""
    if os.geteuid() != 0:
        return "loading a BPF program needs root"
    if shutil.which("bpftrace") is None:
        return "bpftrace is not installed"
    if not any((base / "events" / "block").is_dir() for base in TRACEFS):
        return "tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)"
    return None


def device_number(name: str, sys_root: Path = Path("/sys")) -> tuple[int, int] | None:
    """``major, minor`` of block device ``name`` from sysfs, or ``None`` when it is not there."""
    if not name or "/" in name or name.startswith("."):
        return None
    try:
        with open(sys_root / "class" / "block" / name / "dev", encoding="ascii") as f:
            text = f.read(32)
        major, minor = (int(x) for x in text.strip().split(":"))
    except (OSError, ValueError):
        return None
    return (major, minor) if 0 <= major < 4096 and 0 <= minor < (1 << 20) else None


def traced_as(name: str, sys_root: Path = Path("/sys")) -> tuple[int, int, bool] | None:
    """``major, minor, request_based`` of what to trace for member ``name``, or ``None``.

    A request-based (blk-mq) disk is traced by its requests, which carry the whole
    disk's number: a partition of one (``sdb1``) is traced as its disk. A bio-based
    device (device-mapper, md; no ``mq`` in sysfs) is traced by its own bios.
    """
    own = device_number(name, sys_root)
    if own is None:
        return None
    entry = sys_root / "class" / "block" / name
    if (entry / "partition").exists():
        disk = Path(os.path.realpath(entry)).parent.name
        if (sys_root / "class" / "block" / disk / "mq").is_dir():
            whole = device_number(disk, sys_root)
            return None if whole is None else (*whole, True)
        return (*own, False)
    return (*own, (entry / "mq").is_dir())


class LatencyTracer:
    """One bpftrace histogramming block request latency for a fixed set of devices.

    Args:
        names: the block devices to trace (kernel names, e.g. ``sdb``, ``loop3``).
        interval_s: seconds between prints (1 to 60).
        on_sample: called with each interval's histograms by device name.
        on_end: called once when the tracer has stopped, with the reason ("" when stopped on request).
    """

    def __init__(self, names: list[str], interval_s: int, on_sample: Sampled, on_end: Ended) -> None:
        self.names = sorted(set(names))
        self.interval_s = max(1, min(60, interval_s))
        self._on_sample = on_sample
        self._on_end = on_end
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._stopping = False
        self._thread: threading.Thread | None = None
        self._attached = threading.Event()
        self._beat = threading.Event()
        """Set by the reader when bpftrace attached or ended an interval's print, and when the reading ends."""
        self._reading = False
        self._stuck = ""

    @property
    def attached(self) -> bool:
        """Every probe is attached: a request issued from now on is counted."""
        return self._attached.is_set()

    def wait_attached(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds until :attr:`attached`; False when it did not happen (yet)."""
        return self._attached.wait(timeout)

    @property
    def alive(self) -> bool:
        """The reader thread runs (the process may be starting, running or being ended)."""
        return self._thread is not None and self._thread.is_alive()

    @property
    def pid(self) -> int | None:
        """The bpftrace process id, once started."""
        proc = self._proc
        return None if proc is None else proc.pid

    def start(self) -> None:
        """Start the reader thread, which starts bpftrace; returns at once."""
        if self._thread is not None:
            return
        _LIVE.add(self)
        self._thread = threading.Thread(target=self._run, name="raidtop-latency", daemon=True)
        self._thread.start()

    def stop(self, *, wait: bool = False) -> None:
        """End bpftrace: TERM now, KILL after :data:`GRACE_S`. Idempotent, any thread.

        ``wait``: return only once the reader has reaped it (at most a grace period and a second);
        raidtop's exit waits so, as the threads that would otherwise kill it stop with the interpreter.
        """
        with self._lock:
            self._stopping = True
            proc = self._proc
        if proc is None:
            return
        if not wait:
            _ask_to_end(proc)
            return
        if proc.poll() is None:
            _signal_group(proc, signal.SIGTERM)
        if not self.join(GRACE_S):
            _kill_if_running(proc)
            self.join(1.0)

    def join(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for the reader thread; True when it has finished."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
        return not self.alive

    def _run(self) -> None:
        reason = ""
        try:
            reason = self._trace()
        except (OSError, ValueError, subprocess.SubprocessError) as exc:
            reason = f"latency tracer failed: {type(exc).__name__}"
        finally:
            _LIVE.discard(self)
            self._on_end("" if self._stopping else reason)

    def _trace(self) -> str:
        found = {name: traced for name in self.names if (traced := traced_as(name)) is not None}
        by_key = {str(kernel_dev(major, minor)): name for name, (major, minor, _rq) in found.items()}
        if not by_key:
            return "none of the members is a block device here"
        source = program(
            [(name, major, minor) for name, (major, minor, rq) in found.items() if rq],
            self.interval_s,
            [(name, major, minor) for name, (major, minor, rq) in found.items() if not rq],
        )
        with tempfile.TemporaryFile() as errors:
            with self._lock:
                if self._stopping:
                    return ""
                self._proc = subprocess.Popen(
                    argv(source),
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.PIPE,
                    stderr=errors,
                    start_new_session=True,
                )
            proc = self._proc
            self._reading = True
            watcher = threading.Thread(
                target=self._watch, args=(proc, errors.fileno()), name="raidtop-latency-watch", daemon=True
            )
            watcher.start()
            try:
                self._read(proc, by_key)
            finally:
                self._reading = False
                self._beat.set()
                _end(proc)
                watcher.join(5.0)  # it looks at the error file, which closes below
            if self._stopping:
                return ""
            if self._stuck:
                return self._stuck
            # Its last words are at the end: warnings about each probe can come before them.
            errors.seek(max(0, errors.seek(0, os.SEEK_END) - 2048))
            said = errors.read(2048).decode("utf-8", "replace").strip().splitlines()
            last = plain(said[-1][:200]) if said else f"exit status {proc.returncode}"
            return f"bpftrace stopped: {last}"

    def _read(self, proc: subprocess.Popen[bytes], by_key: dict[str, str]) -> None:
        assert proc.stdout is not None
        before: dict[str, Log2Histogram] = {}
        scales = dict(FINER)
        finer: dict[str, dict[str, Log2Histogram]] = {}
        while True:
            line = proc.stdout.readline(MAX_LINE)
            if not line:
                return
            if not line.endswith(b"\n"):
                # Longer than any print of ours: skip the rest of it, a bounded read at a time.
                while line and not line.endswith(b"\n"):
                    line = proc.stdout.readline(MAX_LINE)
                continue
            if line.startswith(b'{"type": "printf"') and ATTACHED.encode() in line:
                # Every probe attached: the columns appear now (dashes until the first request completes).
                self._attached.set()
                self._beat.set()
                if not self._stopping:
                    self._on_sample({})
                continue
            if line.startswith(b'{"type": "printf"') and INTERVAL_DONE.encode() in line:
                self._beat.set()  # an interval printed, histograms or not (an idle device has none)
                continue
            maps = parse_hist_maps(line.decode("utf-8", "replace"))
            if not maps:
                continue
            if "@us" not in maps:
                finer.update((name, keyed) for name, keyed in maps.items() if name in scales)
                continue
            # @us closes the interval: its histograms, each with the finer ones printed just before it.
            hists = {
                key: Log2Histogram(h.buckets, tuple((scales[m], finer[m][key]) for m in finer if key in finer[m]))
                for key, h in maps["@us"].items()
            }
            finer = {}
            now = {by_key[k]: h for k, h in hists.items() if k in by_key}
            interval = {name: delta(h, before.get(name)) for name, h in now.items()}
            before = now
            if not self._stopping:
                self._on_sample(interval)

    def _watch(self, proc: subprocess.Popen[bytes], errors: int) -> None:
        """End ``proc`` when it attaches or ends no interval in time (the reader's blocked read cannot
        notice) or fills its error file (``errors``, a descriptor) past :data:`MAX_ERRORS`."""
        since = time.monotonic()
        while self._reading:
            attached = self._attached.is_set()
            allowed = max(STALL_MIN_S, STALL_INTERVALS * self.interval_s) if attached else ATTACH_S
            if self._beat.wait(1.0):
                self._beat.clear()
                since = time.monotonic()
            waited = duration(allowed, spoken=True)
            if os.fstat(errors).st_size > MAX_ERRORS:
                stuck = f"bpftrace wrote more than {size(MAX_ERRORS, spoken=True)} of errors; raidtop ended it"
            elif time.monotonic() - since <= allowed:
                continue
            elif attached:
                stuck = (
                    f"bpftrace went silent: no interval printed for {waited} (one is due every {self.interval_s} s); "
                    "raidtop ended it"
                )
            else:
                stuck = f"bpftrace did not attach its probes within {waited}; raidtop ended it"
            if self._reading and not self._stopping:
                self._stuck = stuck
                _ask_to_end(proc)
            return


def _signal_group(proc: subprocess.Popen[bytes], signum: int) -> None:
    try:
        os.killpg(proc.pid, signum)
    except (ProcessLookupError, PermissionError):
        pass  # already gone


def _ask_to_end(proc: subprocess.Popen[bytes]) -> None:
    """TERM now, KILL after :data:`GRACE_S`: a bpftrace that ignores TERM would keep the reader blocked."""
    if proc.poll() is None:
        _signal_group(proc, signal.SIGTERM)
        timer = threading.Timer(GRACE_S, _kill_if_running, (proc,))
        timer.daemon = True
        timer.start()


def _kill_if_running(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        _signal_group(proc, signal.SIGKILL)


def _end(proc: subprocess.Popen[bytes]) -> None:
    """TERM, a grace period for bpftrace to detach its probes, then KILL; always reaped."""
    if proc.poll() is None:
        _signal_group(proc, signal.SIGTERM)
        try:
            proc.wait(GRACE_S)
        except subprocess.TimeoutExpired:
            _signal_group(proc, signal.SIGKILL)
            proc.wait()
    if proc.stdout is not None:
        proc.stdout.close()


@atexit.register
def _stop_all() -> None:
    """Whatever path raidtop leaves by, no bpftrace it started keeps running, even one ignoring TERM."""
    for tracer in list(_LIVE):
        tracer.stop(wait=True)
