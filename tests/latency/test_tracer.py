"""The latency tracer: real bpftrace on a loop device of this host, and the process it owns ended for sure.

The live test needs root, bpftrace and tracefs (skips with the reason
otherwise). The others run a real child process in bpftrace's place, for
what bpftrace cannot be made to do: print an endless line, ignore TERM.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from raidtop.latency import tracer as tracer_module
from raidtop.latency.histogram import Log2Histogram
from raidtop.latency.program import ATTACHED, INTERVAL_DONE, program
from raidtop.latency.tracer import MAX_LINE, LatencyTracer, device_number, traced_as, why_unavailable

from tests.conftest import gone

WRITES = 600


class Collected:
    """What a tracer handed to its callbacks, from its thread."""

    def __init__(self) -> None:
        self.samples: list[dict[str, Log2Histogram]] = []
        self.ended = threading.Event()
        self.reason: str | None = None
        self.changed = threading.Condition()

    def sample(self, hists: dict[str, Log2Histogram]) -> None:
        with self.changed:
            self.samples.append(hists)
            self.changed.notify_all()

    def end(self, reason: str) -> None:
        self.reason = reason
        self.ended.set()

    def wait_for(self, predicate, timeout: float) -> bool:
        with self.changed:
            return self.changed.wait_for(predicate, timeout)


@pytest.mark.live
def test_real_bpftrace_histograms_a_loop_devices_writes_and_is_gone_after_stop(loop_device):
    reason = why_unavailable()
    if reason:
        pytest.skip(reason)
    name = os.path.basename(loop_device)
    seen = Collected()
    tracer = LatencyTracer([name], 1, seen.sample, seen.end)
    tracer.start()
    try:
        # Attaching takes seconds on a busy host; only once every probe is attached is a write counted.
        assert tracer.wait_attached(90), "bpftrace never attached"
        assert seen.wait_for(lambda: seen.samples, 10)
        assert seen.samples[0] == {}
        subprocess.run(
            ["dd", "if=/dev/zero", f"of={loop_device}", "bs=4k", f"count={WRITES}", "oflag=direct"],
            capture_output=True,
            check=True,
            timeout=120,
        )
        counted = lambda: sum(s[name].total for s in seen.samples if name in s)  # noqa: E731
        seen.wait_for(lambda: counted() >= WRITES, 20)
        total = counted()
        pid = tracer.pid
    finally:
        tracer.stop()
        assert seen.ended.wait(30)
    assert seen.reason == ""  # stopped on request, not failed
    assert pid is not None and gone(pid)
    assert not tracer.alive
    # Each sample is one interval's (cumulative prints differenced), so they add up to the writes,
    # all issued after the probes were attached.
    assert total == WRITES
    busiest = max((s[name] for s in seen.samples if name in s), key=lambda h: h.total)
    assert busiest.max_bound is not None and busiest.max_bound > 0


def test_no_block_device_among_the_names_starts_nothing():
    seen = Collected()
    tracer = LatencyTracer(["no-such-disk", "../sda"], 1, seen.sample, seen.end)
    tracer.start()
    assert seen.ended.wait(10)
    assert seen.reason == "none of the members is a block device here"
    assert tracer.pid is None and seen.samples == []


def test_device_number_reads_sysfs_and_refuses_paths():
    name = sorted(os.listdir("/sys/class/block"))[0]
    expected = tuple(int(x) for x in Path(f"/sys/class/block/{name}/dev").read_text().split(":"))
    assert device_number(name) == expected
    assert device_number("../block") is None and device_number("") is None


STAND_IN = """
import signal, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a tracer that will not stop when asked
sys.stdout.write('{"type": "attached_probes", "data": {"probes": 4}}\\n')  # said before attaching: not it
sys.stdout.write('{"type": "printf", "data": "raidtop: probes attached\\\\n"}\\n')
sys.stdout.write('x' * (3 * %d) + '\\n')  # longer than any read: skipped, never held whole
sys.stdout.write('{"type": "hist", "data": {"@us": {"%d": [{"min": 8, "max": 15, "count": 7}]}}}\\n')
sys.stdout.flush()
time.sleep(600)
"""


def test_an_overlong_line_is_skipped_and_a_process_ignoring_term_is_killed(monkeypatch):
    name = sorted(os.listdir("/sys/class/block"))[0]
    number = device_number(name)
    assert number is not None
    key = number[0] << 20 | number[1]
    monkeypatch.setattr(tracer_module, "argv", lambda source: [sys.executable, "-c", STAND_IN % (MAX_LINE, key)])
    monkeypatch.setattr(tracer_module, "GRACE_S", 0.5)
    seen = Collected()
    tracer = LatencyTracer([name], 1, seen.sample, seen.end)
    tracer.start()
    assert seen.wait_for(lambda: seen.samples, 30)
    assert tracer.attached
    assert seen.wait_for(lambda: len(seen.samples) == 2, 30)
    assert seen.samples[0] == {} and seen.samples[1][name].total == 7
    pid = tracer.pid
    tracer.stop()
    assert seen.ended.wait(30)
    assert seen.reason == "" and pid is not None and gone(pid)
    assert tracer.join(10)


NOT_YET_ATTACHED = """
import sys, time
sys.stdout.write('{"type": "attached_probes", "data": {"probes": 4}}\\n')
sys.stdout.write('{"type": "hist", "data": {"@us": {"%d": [{"min": 8, "max": 15, "count": 3}]}}}\\n')
sys.stdout.flush()
time.sleep(600)
"""


def test_bpftraces_attached_probes_line_is_not_taken_for_attached(monkeypatch):
    # bpftrace writes it before attaching anything: only the program's BEGIN line says every probe is on.
    name = sorted(os.listdir("/sys/class/block"))[0]
    number = device_number(name)
    assert number is not None
    script = NOT_YET_ATTACHED % (number[0] << 20 | number[1])
    monkeypatch.setattr(tracer_module, "argv", lambda source: [sys.executable, "-c", script])
    seen = Collected()
    tracer = LatencyTracer([name], 1, seen.sample, seen.end)
    tracer.start()
    try:
        assert seen.wait_for(lambda: seen.samples, 30)
        assert seen.samples == [{name: seen.samples[0][name]}]  # the histogram, and no "attached" before it
        assert not tracer.attached and not tracer.wait_attached(0)
    finally:
        tracer.stop()
        assert seen.ended.wait(30)


def test_the_program_says_attached_from_its_begin_probe():
    source = program([("loop0", 7, 0)], 1)
    assert source.startswith(f'BEGIN {{ printf("{ATTACHED}\\n"); }}')


def test_a_tracer_that_fails_says_its_last_words_as_plain_text(monkeypatch):
    # bpftrace refused by the kernel (lockdown, no BPF) cannot be staged here: a process saying so stands in.
    failing = "import sys; sys.stderr.write('loading\\nERROR: [b]no BPF\\x1b[2J\\n'); sys.exit(1)"
    monkeypatch.setattr(tracer_module, "argv", lambda source: [sys.executable, "-c", failing])
    seen = Collected()
    name = sorted(os.listdir("/sys/class/block"))[0]
    tracer = LatencyTracer([name], 1, seen.sample, seen.end)
    tracer.start()
    assert seen.ended.wait(30)
    assert seen.reason == "bpftrace stopped: ERROR: [b]no BPF\ufffd[2J"
    assert seen.samples == []


def block_tree(tmp_path: Path) -> Path:
    """A sysfs with a blk-mq disk and its partition, a dm device (bio-based) and a partition of it."""
    sys_root = tmp_path / "sys"
    devices = sys_root / "devices" / "virtual" / "block"
    for disk, dev, mq in (("sdb", "8:16", True), ("dm-0", "253:0", False)):
        (devices / disk).mkdir(parents=True)
        (devices / disk / "dev").write_text(dev + "\n")
        if mq:
            (devices / disk / "mq").mkdir()
    for disk, part, dev in (("sdb", "sdb1", "8:17"), ("dm-0", "dm-0p1", "259:3")):
        (devices / disk / part).mkdir()
        (devices / disk / part / "dev").write_text(dev + "\n")
        (devices / disk / part / "partition").write_text("1\n")
    links = sys_root / "class" / "block"
    links.mkdir(parents=True)
    for disk, part in (("sdb", "sdb1"), ("dm-0", "dm-0p1")):
        (links / disk).symlink_to(devices / disk)
        (links / part).symlink_to(devices / disk / part)
    return sys_root


def test_members_are_traced_by_requests_of_their_disk_or_by_their_own_bios(tmp_path):
    sys_root = block_tree(tmp_path)
    assert traced_as("sdb", sys_root) == (8, 16, True)
    # A request carries the whole disk's number: a partition is traced as its disk.
    assert traced_as("sdb1", sys_root) == (8, 16, True)
    # Device-mapper issues no requests: its own bios, submitted to ended (dm-delay's wait included).
    assert traced_as("dm-0", sys_root) == (253, 0, False)
    assert traced_as("dm-0p1", sys_root) == (259, 3, False)
    assert traced_as("nope", sys_root) is None


def test_the_program_traces_bio_based_devices_by_their_bios_and_the_rest_by_requests():
    source = program([("loop0", 7, 0)], 1, [("dm-0", 253, 0)])
    rq, bio = f"args->dev == {7 << 20}", f"args->dev == {253 << 20}"
    assert f"tracepoint:block:block_rq_issue /{rq}/" in source
    assert f"tracepoint:block:block_bio_queue /{bio}/" in source
    assert "block_bio_complete /@bio[args->dev, args->sector]/" in source
    assert "END { clear(@start); clear(@bio); clear(@us); clear(@us1); clear(@us2); clear(@us3); }" in source
    # The finer histograms print before @us, whose line closes the interval; then the line that says it ended.
    assert (
        f'interval:s:1 {{ print(@us1); print(@us2); print(@us3); print(@us); printf("{INTERVAL_DONE}\\n"); }}' in source
    )
    only_bio = program([], 1, [("dm-0", 253, 0)])
    assert "block_rq_issue" not in only_bio and "clear(@start)" not in only_bio
