"""``raidtop fleet --ssh`` against a real sshd on a free localhost port with a throw-away key.

Nothing of the system's ssh set-up is used or changed: the server has its own
config, host key and authorized_keys in a temporary directory; the client
gets them through ``--ssh-config``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from raidtop.collect.sampler import Sampler
from raidtop.exporter.states import array_state
from raidtop.fleet.ssh import SshSource, check_host
from tests.exporter import procs

SSHD = "/usr/sbin/sshd"
PROCFS = procs.REPO / "tests" / "data" / "md" / "roots" / "prometheus-procfs"
needs_sshd = pytest.mark.skipif(
    not (os.path.exists(SSHD) and shutil.which("ssh") and os.geteuid() == 0),
    reason="needs openssh-server (.ci/run installs it) and root for sshd",
)


def sshd_command(config: Path) -> list[str]:
    """sshd in the foreground; where /run/sshd (its privilege-separation directory) is missing,
    inside a private mount namespace with its own /run, so the host's /run is never touched."""
    command = [SSHD, "-D", "-e", "-f", str(config)]
    if os.path.isdir("/run/sshd"):
        return command
    return [
        "unshare",
        "--mount",
        "--propagation",
        "private",
        "sh",
        "-c",
        'mount -t tmpfs tmpfs /run && mkdir -m 0755 /run/sshd && exec "$@"',
        "sshd",
        *command,
    ]


@pytest.fixture
def sshd(tmp_path):
    keys = tmp_path / "keys"
    keys.mkdir(mode=0o700)
    for name in ("host", "client"):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(keys / name)], check=True)
    (keys / "authorized_keys").write_text((keys / "client.pub").read_text())
    port = procs.free_port()
    (tmp_path / "sshd_config").write_text(
        "\n".join(
            [
                f"Port {port}",
                "ListenAddress 127.0.0.1",
                f"HostKey {keys / 'host'}",
                f"AuthorizedKeysFile {keys / 'authorized_keys'}",
                f"PidFile {tmp_path / 'sshd.pid'}",
                "PasswordAuthentication no",
                "KbdInteractiveAuthentication no",
                "PubkeyAuthentication yes",
                "PermitRootLogin prohibit-password",
                "UsePAM no",
                "StrictModes no",
                "",
            ]
        )
    )
    server = subprocess.Popen(sshd_command(tmp_path / "sshd_config"), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    host_key = (keys / "host.pub").read_text().split()
    (tmp_path / "known_hosts").write_text(f"[127.0.0.1]:{port} {host_key[0]} {host_key[1]}\n")
    closed = procs.free_port()
    config = tmp_path / "ssh_config"
    config.write_text(
        "\n".join(
            [
                "Host remote1 closed1",
                "  HostName 127.0.0.1",
                "  User root",
                f"  IdentityFile {keys / 'client'}",
                "  IdentitiesOnly yes",
                f"  UserKnownHostsFile {tmp_path / 'known_hosts'}",
                "  StrictHostKeyChecking yes",
                "Host remote1",
                f"  Port {port}",
                "Host closed1",
                f"  Port {closed}",
                "",
            ]
        )
    )
    for _ in range(100):
        if (
            subprocess.run(
                ["ssh", "-F", str(config), "-o", "BatchMode=yes", "remote1", "true"], capture_output=True
            ).returncode
            == 0
        ):
            break
        time.sleep(0.1)
    else:
        procs.stop(server)
        pytest.fail(f"sshd did not start: {server.stderr.read().decode()[-500:]}")
    yield config
    procs.stop(server)


def remote_snapshot(root: Path) -> str:
    return (
        f"cd {procs.REPO} && PYTHONPATH={procs.REPO} {sys.executable} -m raidtop --root {root} "
        "snapshot --json --interval 0.1"
    )


@needs_sshd
def test_fleet_over_ssh_shows_the_remote_arrays_and_says_why_a_host_fails(sshd, tmp_path) -> None:
    source = SshSource(["remote1", "closed1"], ssh_config=str(sshd), remote_command=remote_snapshot(PROCFS))
    reading = source.read()
    hosts = {h.name: h for h in reading.hosts}
    assert hosts["closed1"].problem.startswith("ssh failed:") and "refused" in hosts["closed1"].problem
    remote = hosts["remote1"]
    assert remote.problem is None
    sampler = Sampler(PROCFS)
    # The snapshot JSON carries the read-only flags, so over ssh a state is what the exporter says (md101: read-only).
    expected = {a.name: array_state(a) for a in sampler.sample().arrays}
    assert {a.name: a.state for a in remote.arrays} == expected and expected["md101"] == "read-only"
    assert [h.name for h in reading.hosts] == ["closed1", "remote1"]  # an unreadable host first
    assert remote.arrays[0].level == "container" or remote.arrays[0].state in ("degraded", "recovering")


@needs_sshd
def test_a_host_without_raidtop_says_so(sshd) -> None:
    host = SshSource(
        ["remote1"], ssh_config=str(sshd), remote_command="raidtop-not-installed-here snapshot --json"
    ).read_host("remote1")
    assert host.problem.startswith("raidtop is not installed there")


@needs_sshd
def test_a_host_answering_garbage_says_so(sshd) -> None:
    host = SshSource(["remote1"], ssh_config=str(sshd), remote_command="printf '\\033[2J{not json'").read_host(
        "remote1"
    )
    assert host.problem == "answered with something that is not raidtop's snapshot JSON"


def test_a_host_name_can_never_be_an_ssh_option(tmp_path) -> None:
    sentinel = tmp_path / "sentinel"
    evil = f"-oProxyCommand=touch {sentinel}"
    assert check_host(evil) is not None
    host = SshSource([evil]).read_host(evil)
    assert host.problem is not None and not sentinel.exists()
    assert SshSource(["h"]).command("h")[-3:] == ["--", "h", "raidtop snapshot --json"]
