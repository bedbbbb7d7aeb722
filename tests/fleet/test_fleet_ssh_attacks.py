"""Issue 24's attacks on ``raidtop fleet --ssh`` through a real sshd: deep JSON, 10**400, endless output."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

from raidtop.fleet.ssh import OUTPUT_LIMIT, SshSource
from tests.exporter import procs
from tests.fleet.test_fleet_ssh import needs_sshd, sshd  # noqa: F401 - the fixture

RSS_CEILING_KIB = 200 * 1024
"""Python, raidtop's modules and one 16 MiB answer fit well below; 4.5 GB is what the attack reached."""


def remote_file(tmp_path: Path, name: str, data: str) -> str:
    """A remote command printing ``data`` (sshd runs on this machine)."""
    path = tmp_path / name
    path.write_text(data)
    return f"cat {path}"


@needs_sshd
def test_json_200000_deep_over_ssh_marks_one_host(sshd, tmp_path) -> None:  # noqa: F811
    command = remote_file(tmp_path, "deep.json", "[" * 200000)
    host = SshSource(["remote1"], ssh_config=str(sshd), remote_command=command).read_host("remote1")
    assert host.problem == "answered JSON nested too deep to be raidtop's snapshot; refused"


@needs_sshd
def test_done_kib_10_to_the_400_over_ssh_is_a_note_not_a_crash(sshd, tmp_path) -> None:  # noqa: F811
    doc = {
        "arrays": [
            {
                "name": "md0",
                "level": "raid1",
                "state": "active",
                "health": "degraded",
                "raid_disks": 2,
                "degraded": 1,
                "members": [{"name": "sdb1", "slot": 0, "roles": ["in_sync"]}],
                "sync": {"action": "recover", "done_kib": 10**400, "total_kib": 1000},
            }
        ]
    }
    command = remote_file(tmp_path, "huge.json", json.dumps(doc))
    source = SshSource(["remote1", "closed1"], ssh_config=str(sshd), remote_command=command)
    hosts = {h.name: h for h in source.read().hosts}
    assert hosts["remote1"].problem == "sent a value raidtop cannot use: done_kib = a 1329-bit number"
    assert hosts["closed1"].problem.startswith("ssh failed")  # the other host is still there, in its own words


@needs_sshd
def test_endless_output_over_ssh_is_cut_at_the_cap_and_the_child_killed(sshd) -> None:  # noqa: F811
    marker = f"raidtop-zeros-{uuid.uuid4().hex[:8]}"
    zeros = f"python3 -c 'import os; z = bytes(65536); [os.write(1, z) for _ in iter(int, 1)]' {marker}"
    probe = (
        "import sys, time\n"
        "from raidtop.fleet.ssh import SshSource\n"
        f"source = SshSource(['remote1'], ssh_config={str(sshd)!r}, remote_command={zeros!r}, timeout_s=120)\n"
        "start = time.monotonic()\n"
        "host = source.read_host('remote1')\n"
        "print(host.problem)\n"
        # VmHWM, not ru_maxrss: a child started by vfork+exec inherits its parent's peak in ru_maxrss,
        # so after a long pytest run it reported pytest's size, not the probe's.
        "print(next(int(line.split()[1]) for line in open('/proc/self/status') if line.startswith('VmHWM:')))\n"
        "print(f'{time.monotonic() - start:.2f}')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=procs.REPO,
        capture_output=True,
        text=True,
        timeout=180,
        env=dict(os.environ, PYTHONPATH=str(procs.REPO)),
    )
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    problem, rss_kib, seconds = done.stdout.splitlines()
    assert problem == f"answered more than {OUTPUT_LIMIT >> 20} MiB; stopped it and refused"
    load = Path("/proc/loadavg").read_text().split()[:3]
    print(f"peak RSS {int(rss_kib) / 1024:.0f} MiB, cut after {seconds} s, load {load}")
    assert int(rss_kib) < RSS_CEILING_KIB
    # Both ends are gone: the local ssh was killed, and the remote writer lost its channel.
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and _running(marker):
        time.sleep(0.2)
    assert not _running(marker), _running(marker)


def _running(marker: str) -> list[str]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if marker in cmdline and "raidtop.fleet.ssh" not in cmdline:
            found.append(f"{pid}: {cmdline[:120]}")
    return found


async def test_leaving_the_fleet_view_kills_the_ssh_it_waits_on(tmp_path) -> None:
    """q while a host's ssh hangs: the view leaves, and the ssh it started is killed, not left behind."""
    import asyncio

    from raidtop.app.fleet_app import FleetApp

    pid_file = tmp_path / "pid"
    ssh = tmp_path / "hanging-ssh"
    ssh.write_text(f"#!/bin/sh\necho $$ > {pid_file}\nexec sleep 300\n")
    ssh.chmod(0o755)
    app = FleetApp(SshSource(["db1"], ssh=str(ssh)), "ssh: 1 host", interval_s=60)
    async with app.run_test() as pilot:
        for _ in range(200):
            if pid_file.exists() and pid_file.read_text().strip():
                break
            await asyncio.sleep(0.05)
        pid = int(pid_file.read_text())
        assert Path(f"/proc/{pid}").exists()
        await pilot.press("q")
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and _alive(pid):
        time.sleep(0.05)
    assert not _alive(pid)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        # Reaped between the open and the read: /proc answers ESRCH.
        return False


def test_an_ssh_that_never_answers_is_stopped_at_the_deadline(tmp_path) -> None:
    pid_file = tmp_path / "pid"
    ssh = tmp_path / "silent-ssh"
    ssh.write_text(f"#!/bin/sh\necho $$ > {pid_file}\nexec sleep 300\n")
    ssh.chmod(0o755)
    host = SshSource(["db1"], ssh=str(ssh), timeout_s=1.0).read_host("db1")
    assert host.problem == "no complete answer over ssh within 1 s; stopped it"
    assert not _alive(int(pid_file.read_text()))
