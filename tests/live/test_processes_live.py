"""Who is writing, on the live kernel: dd in its own cgroup writes a loop device (issue 26).

Root only. The test attaches a loop device on a sparse file, makes a cgroup
(v2 with the io controller when the host has it, else v1 blkio with a
throttle rule far above any real speed, because since Linux 6.10 v1 counts
only on devices with a rule), runs dd in it, and asks raidtop's Sampler
who is writing: dd on top, under that cgroup, on that loop device. psutil,
an independent reader of /proc/PID/io, checks the counters raidtop read.
Everything is undone in a ``finally``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
import uuid
from pathlib import Path

import psutil
import pytest

from raidtop.collect.sampler import Sampler

pytestmark = pytest.mark.live


def _cgroup_parent() -> tuple[str, Path] | None:
    for mount in (Path("/sys/fs/cgroup"), Path("/sys/fs/cgroup/unified")):
        controllers = mount / "cgroup.controllers"
        if controllers.exists() and "io" in controllers.read_text().split():
            return "v2", mount
    if Path("/sys/fs/cgroup/blkio/blkio.throttle.io_service_bytes").exists():
        return "v1", Path("/sys/fs/cgroup/blkio")
    return None


@pytest.fixture
def loop_in_cgroup(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("needs root (loop devices, cgroups)")
    found = _cgroup_parent()
    if found is None:
        pytest.skip("no cgroup I/O accounting on this host")
    version, parent = found
    image = tmp_path / "disk.img"
    with open(image, "wb") as handle:
        handle.truncate(1 << 30)
    device = subprocess.run(
        ["losetup", "--find", "--show", str(image)], capture_output=True, text=True, check=True
    ).stdout.strip()
    name = Path(device).name
    major_minor = Path(f"/sys/block/{name}/dev").read_text().strip()
    group = parent / f"raidtop-test-{uuid.uuid4().hex[:8]}"
    group.mkdir()
    rule = group / "blkio.throttle.write_bps_device"
    try:
        if version == "v2":
            control = parent / "cgroup.subtree_control"
            if "io" not in control.read_text().split():
                control.write_text("+io")
        else:
            rule.write_text(f"{major_minor} 100000000000\n")
        yield name, group
    finally:
        if version == "v1":
            rule.write_text(f"{major_minor} 0\n")
        for _ in range(50):  # bounded: the writer was killed, its cgroup empties at once
            try:
                group.rmdir()
                break
            except OSError:
                time.sleep(0.1)
        subprocess.run(["losetup", "-d", device], capture_output=True)


def test_dd_in_its_own_cgroup_is_ranked_by_its_rate_with_its_device(loop_in_cgroup):
    name, group = loop_in_cgroup
    # 4 KiB direct writes keep dd busy for seconds (64 KiB ones filled the 1 GiB
    # device in 0.7 s, before the second sample).
    writer = subprocess.Popen(
        [
            "sh",
            "-c",
            f'echo $$ > "{group}/cgroup.procs" && exec dd if=/dev/zero of=/dev/{name} bs=4k '
            f"count=262144 oflag=direct status=none",
        ],
        start_new_session=True,
    )
    try:
        sampler = Sampler("/")
        sampler.processes.want_processes = True
        sampler.sample()
        seen = []
        units_seen = []
        for _ in range(3):
            time.sleep(0.7)
            snap = sampler.sample()
            units_seen.append({u.unit: u for u in (snap.io.by_device or {}).get(name, ())})
            rows = snap.io.processes
            mine = next((i for i, row in enumerate(rows) if row.pid == writer.pid), None)
            if mine is None or not rows[mine].write_b_s:
                continue
            dd = rows[mine]
            seen.append(dd)
            # Another writer on a shared machine may outrank dd; whoever does wrote more.
            assert all(row.total_b_s >= dd.total_b_s for row in rows[:mine]), rows[: mine + 1]
            raw = next(p for p in snap.raw.processes if p.pid == writer.pid)
            # psutil reads /proc/PID/io itself, after raidtop did: never less.
            assert psutil.Process(writer.pid).io_counters().write_bytes >= raw.write_bytes > 0
        assert seen, "dd never appeared writing"
        assert all(dd.comm == "dd" and dd.unit == group.name for dd in seen), seen
        unit = "/" + group.name
        assert any(unit in units and units[unit].write_b_s > 0 for units in units_seen), units_seen
        assert snap.io.level == "per device"
    finally:
        os.killpg(writer.pid, signal.SIGKILL)
        writer.wait()
