"""raidtop agrees with iostat and mpstat live, on the same loop device at the same time.

fio writes (and reads a little) straight to a loop device backed by a sparse file
while ``iostat -x -y 1 1``, ``mpstat -P ALL 1 1`` and ``raidtop snapshot --json
--interval 1`` run side by side. Their one-second windows start within a few
milliseconds of each other (raidtop is let go once its imports are done, all
three run at real-time priority), so they see the same I/O; fio runs at a fixed
rate so that what little offset is left does not change what there is to see.

Needs root (losetup) plus fio and sysstat. Without them the test skips, except
under CI (``CI=true``), where a missing tool is a broken set-up and fails.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.live

PROJECT = Path(__file__).resolve().parents[2]
TOOLS = {"fio": "fio", "iostat": "sysstat", "mpstat": "sysstat", "losetup": "util-linux"}
SIZE = 256 * 1024 * 1024
# Fixed rates keep the load the same whichever part of fio's run a window
# covers; both are far below what a loop device on any disk sustains.
READ_IOPS, WRITE_IOPS = 150, 450

# Agreement: within 10 % of the larger value, or within this absolute floor,
# whichever is looser. The floors only matter near zero, where 10 % of a small
# number is below what two one-second windows a few milliseconds apart can
# resolve: a request more or less at each end of a window is 2 r/s or w/s
# (8 kB/s at 4 kB each); the kernel advances a disk's busy time in whole
# jiffies (10 ms, one point of %util, at HZ=100) and CPU times in 10 ms ticks,
# so each window end can add or miss about a point of %util or %iowait.
RELATIVE = 0.10
FLOORS = {"r/s": 2.0, "w/s": 2.0, "wkB/s": 8.0, "%util": 2.0, "%iowait": 1.5}


def require_tools() -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to attach a loop device (losetup)")
    missing = sorted(name for name in TOOLS if shutil.which(name) is None)
    if missing:
        packages = sorted({TOOLS[name] for name in missing})
        reason = f"missing {', '.join(missing)} (install the Debian packages {', '.join(packages)})"
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true: {reason}")
        pytest.skip(reason)


@pytest.fixture
def loop_device(tmp_path: Path):
    """A loop device over a sparse 256 MiB file, detached afterwards whatever happens."""
    require_tools()
    backing = tmp_path / "backing.img"
    with backing.open("wb") as handle:
        handle.truncate(SIZE)
    device = subprocess.run(
        ["losetup", "--find", "--show", str(backing)], capture_output=True, text=True, check=True, timeout=30
    ).stdout.strip()
    try:
        yield device
    finally:
        subprocess.run(["losetup", "-d", device], capture_output=True, timeout=30)


@functools.cache
def realtime() -> list[str]:
    """The prefix that runs a command under SCHED_FIFO, or nothing where that is refused.

    On a loaded machine (a VM sharing its CPUs with other jobs) a normal-priority
    process can wait tens of milliseconds for a CPU, which shifts the three
    windows against each other and makes fio's fixed rate bursty. All of them
    sleep most of the time, so real-time priority costs the rest of the machine
    nothing. Where even root may not use it (a container without CAP_SYS_NICE)
    they run at normal priority.
    """
    prefix = ["chrt", "--fifo", "10"]
    if shutil.which("chrt") and subprocess.run([*prefix, "true"], capture_output=True).returncode == 0:
        return prefix
    return []


def start_fio(device: str) -> subprocess.Popen:
    return subprocess.Popen(
        [
            *realtime(),
            "fio",
            "--name=raidtop-live",
            f"--filename={device}",
            "--rw=randrw",
            "--rwmixread=25",
            f"--rate_iops={READ_IOPS},{WRITE_IOPS}",
            "--bs=4k",
            "--direct=1",
            "--ioengine=psync",
            "--time_based",
            "--runtime=8",
            "--numjobs=1",
            "--output=/dev/null",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


# raidtop runs exactly as ``python -m raidtop snapshot --json --interval 1`` (runpy
# is what -m uses), but only after its modules are imported and a "go" line
# arrives on stdin: Python's ~0.3 s start-up would otherwise shift its window
# against iostat's and mpstat's, and this load is not steady enough for that.
RAIDTOP_AFTER_GO = """
import runpy, sys
import raidtop.__main__, raidtop.collect.sampler, raidtop.output.snapshot_json
raidtop.__main__.build_parser()  # imports the subcommands' modules too
print("ready", file=sys.stderr, flush=True)
sys.stdin.readline()
sys.argv = ["raidtop", "snapshot", "--json", "--interval", "1"]
runpy.run_module("raidtop", run_name="__main__", alter_sys=True)
"""


def measure_together(device_name: str) -> tuple[dict, dict, dict]:
    """Start iostat, mpstat and raidtop at once; return their parsed JSON."""
    raidtop = subprocess.Popen(
        [*realtime(), sys.executable, "-c", RAIDTOP_AFTER_GO],
        cwd=PROJECT,
        text=True,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    ready = raidtop.stderr.readline()  # imported, now waiting on stdin
    assert ready == "ready\n", ready + raidtop.stderr.read()
    sysstat_env = {**os.environ, "LC_ALL": "C"}
    sysstat = [
        subprocess.Popen(
            [*realtime(), *argv], env=sysstat_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for argv in (
            ["iostat", "-x", "-y", "-o", "JSON", device_name, "1", "1"],
            ["mpstat", "-o", "JSON", "-P", "ALL", "1", "1"],
        )
    ]
    raidtop.stdin.write("go\n")
    raidtop.stdin.flush()
    outputs = []
    for process in (*sysstat, raidtop):
        stdout, stderr = process.communicate(timeout=20)
        assert process.returncode == 0, f"{process.args[len(realtime())]} failed: {stderr}"
        outputs.append(json.loads(stdout))
    return outputs[0], outputs[1], outputs[2]


def agree(what: str, expected: float, got: float | None) -> str | None:
    """``None`` if the two agree, else a line saying how they differ."""
    if got is None:
        return f"{what}: sysstat {expected}, raidtop none"
    limit = max(RELATIVE * max(abs(expected), abs(got)), FLOORS[what])
    if abs(expected - got) <= limit:
        return None
    return f"{what}: sysstat {expected}, raidtop {got} (allowed difference {limit:.2f})"


def test_raidtop_agrees_with_iostat_and_mpstat(loop_device: str) -> None:
    name = Path(loop_device).name
    fio = start_fio(loop_device)
    try:
        time.sleep(1.0)  # past fio's start-up, into its fixed rate
        assert fio.poll() is None, f"fio stopped early: {fio.stderr.read().decode() if fio.stderr else ''}"
        iostat, mpstat, raidtop = measure_together(name)
        assert fio.poll() is None, "fio finished before the measurement did"
    finally:
        fio.kill()
        fio.wait(timeout=30)

    (disk,) = [d for d in iostat["sysstat"]["hosts"][0]["statistics"][0]["disk"] if d["disk_device"] == name]
    (ours,) = [d for d in raidtop["disks"] if d["name"] == name]
    cpu_all = next(c for c in mpstat["sysstat"]["hosts"][0]["statistics"][0]["cpu-load"] if c["cpu"] == "all")
    our_all = next(c for c in raidtop["cpus"] if c["cpu"] == "all")
    comparisons = {
        "r/s": (disk["r/s"], ours["r_s"]),
        "w/s": (disk["w/s"], ours["w_s"]),
        "wkB/s": (disk["wkB/s"], ours["wkib_s"]),
        "%util": (disk["util"], ours["util_pct"]),
        "%iowait": (cpu_all["iowait"], our_all["iowait"]),
    }
    # Printed with -s so a run's agreement can be read off the log.
    print(f"\n{name}: " + ", ".join(f"{k} sysstat={a} raidtop={b}" for k, (a, b) in comparisons.items()))
    # The load is really there: otherwise every comparison would pass on zeros.
    assert disk["w/s"] > WRITE_IOPS / 2 and disk["r/s"] > READ_IOPS / 2
    problems = [p for what, (a, b) in comparisons.items() if (p := agree(what, a, b))]
    assert not problems, "\n".join(problems)
