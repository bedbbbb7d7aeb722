"""raidtop's bpftrace program on this host's kernel: every direct write to a loop device lands in its histogram.

Needs root, bpftrace and tracefs mounted at /sys/kernel/tracing (this build host
had to `mount -t tracefs nodev /sys/kernel/tracing` once); skips with the reason
otherwise. dm targets are not available on this host (no device-mapper), so the
dm-delay comparison belongs to the VM tier.
"""

from __future__ import annotations

import os
import select
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from raidtop.latency.histogram import parse_hist_message, percentile_bucket
from raidtop.latency.program import ATTACHED, argv, kernel_dev, program

# It once counted 1948 of 2000 writes on a loaded host: it waited for bpftrace's
# "attached_probes" line, which bpftrace writes before attaching anything. The
# program's BEGIN line (ATTACHED) comes after the last attach, so it waits for that.
pytestmark = pytest.mark.live
WRITES = 2000


def _needs() -> str | None:
    if os.geteuid() != 0:
        return "needs root"
    if shutil.which("bpftrace") is None:
        return "bpftrace is not installed"
    if not os.path.isdir("/sys/kernel/tracing/events/block"):
        return "tracefs is not mounted at /sys/kernel/tracing (mount -t tracefs nodev /sys/kernel/tracing)"
    return None


def _line(proc: subprocess.Popen, timeout: float) -> str:
    """One line of output, or "" when none comes within ``timeout`` seconds."""
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    return proc.stdout.readline() if ready else ""


def test_every_write_to_a_loop_device_is_in_its_histogram(tmp_path):
    reason = _needs()
    if reason:
        pytest.skip(reason)
    image = tmp_path / "disk.img"
    image.write_bytes(b"")
    os.truncate(image, 64 << 20)
    loop = subprocess.run(
        ["losetup", "--find", "--show", str(image)], capture_output=True, text=True, check=True
    ).stdout.strip()
    name = os.path.basename(loop)
    try:
        major, minor = (int(x) for x in Path(f"/sys/block/{name}/dev").read_text().split(":"))
        tracer = subprocess.Popen(
            argv(program([(name, major, minor)], interval_s=1)),
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        try:
            for _ in range(3):  # attached_probes (said before attaching), then BEGIN's line
                if ATTACHED in _line(tracer, 60):
                    break
            else:
                pytest.fail("bpftrace never said its probes were attached")
            subprocess.run(
                ["dd", "if=/dev/zero", f"of={loop}", "bs=4k", f"count={WRITES}", "oflag=direct"],
                capture_output=True,
                check=True,
                timeout=120,
            )
            key, hist = str(kernel_dev(major, minor)), None
            # The pipe holds every line printed while dd ran (several a second on a slow host): read
            # them all, up to a bound in time, not in lines (30 lines once ended on a message of 1999).
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                hist = parse_hist_message(_line(tracer, 5)).get(key, hist)
                if hist is not None and hist.total >= WRITES:
                    break
            total = hist.total if hist is not None else 0
        finally:
            tracer.terminate()
            tracer.wait(timeout=30)
        assert total == WRITES
        assert percentile_bucket(hist, 99) is not None
    finally:
        subprocess.run(["losetup", "-d", loop], check=False)
