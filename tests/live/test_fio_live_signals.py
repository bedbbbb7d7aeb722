"""A hang-up, SIGTERM or kill -9 of `raidtop bench` stops the real fio it started, and cleans up after it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from raidtop.actions.action_log import ActionLog
from raidtop.actions.fio.store import RunStore

pytestmark = [pytest.mark.live, pytest.mark.usefixtures("live_env")]


def _children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            pass
    return found


def _start_bench(tmp_path: Path, *argv: str) -> tuple[subprocess.Popen, int]:
    env = dict(os.environ)
    proc = subprocess.Popen(
        [sys.executable, "-m", "raidtop", "bench", *argv],
        env=env,
        cwd=Path(__file__).resolve().parents[2],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        for _ in range(600):
            kids = _children(proc.pid) if proc.poll() is None else []
            fio = [k for k in kids if _command(k) == "fio"]
            if fio or proc.poll() is not None:
                break
            time.sleep(0.05)
        assert proc.poll() is None, proc.communicate()[1]
        assert fio, "raidtop bench started no fio in 30 s"
    except BaseException:
        # Not left running for its 120 s: the next test would find the device benchmarked.
        proc.kill()
        proc.wait(timeout=30)
        raise
    # Let fio print a status or two, so a stop has something to keep.
    time.sleep(2.5)
    return proc, fio[0]


def _command(pid: int) -> str:
    """A process's command name; "" for one that has already ended (a short-lived helper)."""
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def _gone(pid: int) -> bool:
    """fio and every one of its job threads have ended.

    A killed thread-group leader shows ``Z`` while its other threads are still
    on their way out, and a job thread finishes the ``io_submit`` it is in
    before it dies (32 writes landed after the leader read ``Z`` once), so a
    zombie counts as gone only when it is the last task of its group.
    """
    for _ in range(200):
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            return True
        if state == "Z" and tasks == [str(pid)]:
            return True  # dead; waiting for its (gone) parent's reaper
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("signum", [signal.SIGHUP, signal.SIGTERM])
def test_a_hang_up_or_sigterm_stops_fio_on_a_raw_device(loop_device: str, tmp_path: Path, signum: int):
    name = os.path.basename(loop_device)
    proc, fio = _start_bench(
        tmp_path, "rand-write", "--target", loop_device, "--allow-raw-device", name, "--runtime", "120"
    )
    try:
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 128 + signum, err
    assert _gone(fio)
    runs = RunStore(tmp_path / "xdg" / "data" / "raidtop" / "bench.sqlite").runs()
    assert len(runs) == 1 and runs[0].partial and runs[0].result.write.total_ios > 0
    assert ActionLog(tmp_path / "xdg" / "state" / "raidtop" / "actions.log").read("fio")[0].details["partial"]


def test_sigterm_on_a_directory_run_removes_the_test_file(tmp_path: Path):
    target = tmp_path / "target"
    target.mkdir()
    proc, fio = _start_bench(tmp_path, "rand-write", "--target", str(target), "--runtime", "120", "--size", "16M")
    try:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 143
    assert _gone(fio) and os.listdir(target) == []
    assert RunStore(tmp_path / "xdg" / "data" / "raidtop" / "bench.sqlite").runs()[0].partial


def test_kill_9_of_raidtop_takes_fio_with_it(loop_device: str, tmp_path: Path):
    name = os.path.basename(loop_device)
    proc, fio = _start_bench(
        tmp_path, "rand-write", "--target", loop_device, "--allow-raw-device", name, "--runtime", "120"
    )
    proc.kill()
    proc.communicate(timeout=60)
    assert _gone(fio), "fio outlived raidtop"
    # Nothing writes on: the device's write counter stands still. The I/O fio
    # had in flight when it died (up to its iodepth: 64 writes were seen) still
    # completes, and "inflight" counts only requests the driver has started (one
    # still queued completed after it read 0 once, on a loaded CI run), so the
    # counter is read once it has stood still for half a second; a fio still
    # writing moves it thousands of times a second and never lets it settle.
    stat_file = Path(f"/sys/block/{name}/stat")
    inflight = Path(f"/sys/block/{name}/inflight")
    deadline = time.monotonic() + 30
    settled, last = 0.0, stat_file.read_text().split()[4]
    while time.monotonic() < deadline:
        time.sleep(0.05)
        now = stat_file.read_text().split()[4]
        if now != last or inflight.read_text().split() != ["0", "0"]:
            settled, last = 0.0, now
        else:
            settled += 0.05
            if settled >= 0.5:
                break
    before = stat_file.read_text().split()[4]
    time.sleep(1.5)
    assert stat_file.read_text().split()[4] == before
