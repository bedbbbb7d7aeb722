"""The latency tracer against a bpftrace that misbehaves: silent, stuck mid-print, an endless line, deaf to signals.

Real bpftrace cannot be made to do any of this, so a real child process (Python, started
as the tracer starts bpftrace) stands in for it; everything else is the tracer's own code.
What real bpftrace does (an idle device: no histogram printed at all) runs real bpftrace.
Waits are generous bounds, never timing assertions.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
import tracemalloc

import pytest

from raidtop.latency import tracer as tracer_module
from raidtop.latency.program import ATTACHED, INTERVAL_DONE
from raidtop.latency.tracer import MAX_LINE, LatencyTracer, device_number, why_unavailable
from raidtop.latency import tracer as latency_tracer
from raidtop.live.latency_feed import LatencyFeed

from tests.conftest import gone
from tests.latency.test_tracer import Collected

PRELUDE = f"""
import signal, sys, time
ATTACHED = '{{"type": "printf", "data": "{ATTACHED}\\\\n"}}\\n'
DONE = '{{"type": "printf", "data": "{INTERVAL_DONE}\\\\n"}}\\n'
"""


def disk() -> tuple[str, int]:
    """A block device of this host and its key in bpftrace's JSON (the kernel's dev_t)."""
    name = sorted(os.listdir("/sys/class/block"))[0]
    number = device_number(name)
    assert number is not None
    return name, number[0] << 20 | number[1]


def stand_in(monkeypatch, body: str) -> None:
    """Start ``body`` (Python, after :data:`PRELUDE`) wherever the tracer would start bpftrace."""
    script = PRELUDE + textwrap.dedent(body)
    monkeypatch.setattr(tracer_module, "argv", lambda source: [sys.executable, "-c", script])


def hist_line(key: int, count: int, name: str = "@us") -> str:
    return f'{{"type": "hist", "data": {{"{name}": {{"{key}": [{{"min": 8, "max": 15, "count": {count}}}]}}}}}}\\n'


def run(name: str) -> tuple[LatencyTracer, Collected]:
    seen = Collected()
    tracer = LatencyTracer([name], 1, seen.sample, seen.end)
    tracer.start()
    return tracer, seen


def ended(tracer: LatencyTracer, seen: Collected) -> None:
    """The tracer ended by itself; if not, end it so a failing test leaves no process behind."""
    if not seen.ended.wait(30):
        tracer.stop()
        seen.ended.wait(30)
        pytest.fail("the tracer never ended")


def test_a_bpftrace_that_never_attaches_is_ended_and_said(monkeypatch):
    name, _key = disk()
    stand_in(monkeypatch, "time.sleep(600)  # compiles for ever: not a line")
    monkeypatch.setattr(tracer_module, "ATTACH_S", 1.0)
    tracer, seen = run(name)
    ended(tracer, seen)
    assert seen.reason == "bpftrace did not attach its probes within 1.0 s; raidtop ended it"
    assert seen.samples == [] and not tracer.attached
    pid = tracer.pid
    assert pid is not None and gone(pid) and tracer.join(10)


def test_the_app_says_a_silent_bpftrace_was_ended_as_a_warning_and_drops_the_columns(monkeypatch):
    # The app's feed owns the real tracer: its reason becomes the notice, and the distributions go.
    name, _key = disk()
    stand_in(monkeypatch, "time.sleep(600)")
    monkeypatch.setattr(tracer_module, "ATTACH_S", 1.0)
    monkeypatch.setattr(latency_tracer, "why_unavailable", lambda: None)
    sampled: list = []
    said: list[tuple[str, bool]] = []
    gave_up = threading.Event()

    def say(text: str, warning: bool) -> None:
        said.append((text, warning))
        if warning:
            gave_up.set()

    feed = LatencyFeed(None, 1.0, sampled.append, say)
    feed.want("members", frozenset({name}))
    tracer = feed.tracer
    assert tracer is not None
    try:
        assert gave_up.wait(30), said
    finally:
        feed.stop()
        assert tracer.join(30)
    assert said[-1] == (
        "Latency distributions stopped: bpftrace did not attach its probes within 1.0 s; raidtop ended it",
        True,
    )
    assert sampled == [None]


def test_a_bpftrace_stuck_in_the_middle_of_a_print_is_ended_and_said(monkeypatch):
    # One whole interval, then the finer histograms for ever and never @us nor the interval's end.
    name, key = disk()
    stand_in(
        monkeypatch,
        f"""
        sys.stdout.write(ATTACHED + '{hist_line(key, 5)}' + DONE)
        sys.stdout.flush()
        while True:
            sys.stdout.write('{hist_line(key, 9, "@us1")}')
            sys.stdout.flush()
            time.sleep(0.05)
        """,
    )
    monkeypatch.setattr(tracer_module, "STALL_MIN_S", 1.0)
    monkeypatch.setattr(tracer_module, "STALL_INTERVALS", 1)
    tracer, seen = run(name)
    ended(tracer, seen)
    assert seen.reason == (
        "bpftrace went silent: no interval printed for 1.0 s (one is due every 1 s); raidtop ended it"
    )
    assert len(seen.samples) == 2 and seen.samples[0] == {} and seen.samples[1][name].total == 5
    pid = tracer.pid
    assert pid is not None and gone(pid)


@pytest.mark.live
def test_real_bpftrace_on_an_idle_device_is_not_taken_for_stuck(loop_device, monkeypatch):
    # No request completes: bpftrace prints nothing for the empty maps, only the program's interval line.
    reason = why_unavailable()
    if reason:
        pytest.skip(reason)
    monkeypatch.setattr(tracer_module, "STALL_MIN_S", 1.0)
    monkeypatch.setattr(tracer_module, "STALL_INTERVALS", 3)
    tracer, seen = run(os.path.basename(loop_device))
    try:
        assert tracer.wait_attached(90), "bpftrace never attached"
        # Nearly three times the 3 s allowance without a histogram: still running.
        assert not seen.ended.wait(8), seen.reason
    finally:
        tracer.stop()
        ended(tracer, seen)
    assert seen.reason == "" and seen.samples == [{}]


def test_an_endless_line_is_read_in_bounded_memory_and_the_silence_ended(monkeypatch):
    name, _key = disk()
    written = 32 * MAX_LINE
    stand_in(
        monkeypatch,
        f"""
        sys.stdout.write(ATTACHED + DONE)
        block = 'x' * 65536
        for _ in range({written // 65536}):
            sys.stdout.write(block)  # no newline, ever
        sys.stdout.flush()
        time.sleep(600)
        """,
    )
    monkeypatch.setattr(tracer_module, "STALL_MIN_S", 1.0)
    monkeypatch.setattr(tracer_module, "STALL_INTERVALS", 1)
    tracemalloc.start()
    try:
        tracer, seen = run(name)
        ended(tracer, seen)
        _now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert seen.reason.startswith("bpftrace went silent: no interval printed for 1.0 s")
    # The reader holds capped pieces of the line (about 3 MiB with their join), never the 32 MiB it was sent.
    assert peak < 8 * MAX_LINE
    pid = tracer.pid
    assert pid is not None and gone(pid)


def test_a_bpftrace_flooding_its_error_output_is_ended_and_said(monkeypatch):
    # Printing its intervals on time, but its error output (kept in a file for its last words) without end.
    name, _key = disk()
    stand_in(
        monkeypatch,
        """
        sys.stdout.write(ATTACHED)
        sys.stdout.flush()
        line = 'WARNING: ' + 'x' * 1014 + '\\n'
        while True:
            sys.stderr.write(line * 256)
            sys.stderr.flush()
            sys.stdout.write(DONE)
            sys.stdout.flush()
            time.sleep(0.05)
        """,
    )
    tracer, seen = run(name)
    ended(tracer, seen)
    assert seen.reason == "bpftrace wrote more than 1 MiB of errors; raidtop ended it"
    assert seen.samples == [{}]
    pid = tracer.pid
    assert pid is not None and gone(pid)


def test_a_bpftrace_that_fails_after_many_warnings_is_reported_by_its_last_line(monkeypatch):
    # Its error file holds the warnings first; the reason is the line it ended with, not the first ones.
    name, _key = disk()
    stand_in(
        monkeypatch,
        """
        sys.stderr.write('WARNING: cannot attach one probe, skipped\\n' * 200)
        sys.stderr.write('ERROR: Could not resolve symbol\\n')
        sys.exit(1)
        """,
    )
    tracer, seen = run(name)
    ended(tracer, seen)
    assert seen.reason == "bpftrace stopped: ERROR: Could not resolve symbol"


DEAF = """
signal.signal(signal.SIGINT, signal.SIG_IGN)
signal.signal(signal.SIGTERM, signal.SIG_IGN)
sys.stdout.write(ATTACHED)
sys.stdout.flush()
time.sleep(600)
"""


def test_stopping_and_waiting_reaps_a_bpftrace_deaf_to_int_and_term(monkeypatch):
    name, _key = disk()
    stand_in(monkeypatch, DEAF)
    tracer, seen = run(name)
    try:
        assert tracer.wait_attached(30)
        pid = tracer.pid
    finally:
        tracer.stop(wait=True)
    # Returned only once it was killed and reaped: no zombie left (kill(pid, 0) answers for a zombie too).
    assert pid is not None and gone(pid)
    assert not tracer.alive and seen.ended.is_set() and seen.reason == ""


QUITTING = """
import sys
from raidtop.latency import tracer as tracer_module
from raidtop.latency.tracer import LatencyTracer

tracer_module.argv = lambda source: [sys.executable, "-c", {deaf!r}]
tracer = LatencyTracer([{name!r}], 1, lambda hists: None, lambda why: None)
tracer.start()
assert tracer.wait_attached(30), "the stand-in never attached"
print(tracer.pid, flush=True)
tracer.stop()  # what the app does as it unmounts; then the interpreter exits
"""


def test_quitting_raidtop_leaves_no_bpftrace_behind_even_one_deaf_to_int_and_term():
    # The threads that would kill it are daemons, frozen at exit: without the exit's wait it outlived raidtop.
    name, _key = disk()
    script = QUITTING.format(deaf=PRELUDE + DEAF, name=name)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    pid = int(done.stdout.split()[0])
    try:
        deadline = time.monotonic() + 30
        while not gone(pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert gone(pid), f"the stand-in bpftrace {pid} outlived raidtop"
    finally:
        if not gone(pid):
            os.killpg(pid, signal.SIGKILL)
