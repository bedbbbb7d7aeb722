"""Read the fleet over the user's own ssh: ``raidtop snapshot --json`` on each host.

ssh keeps its own configuration, keys, agents and jump hosts; raidtop only
adds ``BatchMode=yes`` (never a password prompt under the screen) and a
connect timeout. A host name is passed after ``--`` and refused when it
starts with ``-``, so it can never be read as an ssh option.
"""

from __future__ import annotations

import json
import re
import subprocess
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace
from typing import Any

from raidtop.exporter.states import array_state, member_role
from raidtop.fleet.model import FleetArray, FleetHost, FleetMember, FleetReading, worst_first
from raidtop.mdview import slow_members
from raidtop.model_md import MdArray, MdMember, MdSync
from raidtop.untrusted import plain

REMOTE_COMMAND = "raidtop snapshot --json"
"""What runs on each host (its own ``raidtop``, on its PATH)."""
OUTPUT_LIMIT = 16 * 1024 * 1024
"""A snapshot of thousands of disks is a few MB; more is refused."""
_HOST = re.compile(r"[A-Za-z0-9_.@%:\[\]][A-Za-z0-9_.@%:\[\]-]{0,253}", re.ASCII)


def check_host(name: str) -> str | None:
    """A sentence when ``name`` cannot be an ssh destination, else ``None``."""
    if not _HOST.fullmatch(name):
        return f"{plain(name)[:64]!r} is no host name (letters, digits, . _ - @ : only; no leading -)"
    return None


class SshSource:
    """Fetch :class:`FleetReading` by running ``remote_command`` on every host, in parallel."""

    def __init__(self, hosts: Sequence[str], *, ssh_config: str | None = None, remote_command: str = REMOTE_COMMAND,
                 timeout_s: float = 30.0, ssh: str = "ssh") -> None:
        self.hosts = tuple(hosts)
        self.ssh_config = ssh_config
        self.remote_command = remote_command
        self.timeout_s = timeout_s
        self.ssh = ssh

    def command(self, host: str) -> list[str]:
        """The exact argv run for ``host``."""
        argv = [self.ssh]
        if self.ssh_config:
            argv += ["-F", self.ssh_config]
        argv += ["-o", "BatchMode=yes", "-o", "ConnectTimeout=10", "--", host, self.remote_command]
        return argv

    def read(self) -> FleetReading:
        """One refresh of every host."""
        with ThreadPoolExecutor(max_workers=min(16, max(1, len(self.hosts)))) as pool:
            hosts = list(pool.map(self.read_host, self.hosts))
        return FleetReading(hosts=worst_first(hosts), time=time.time())

    def read_host(self, host: str) -> FleetHost:
        """One host's arrays, or a sentence saying why not."""
        problem = check_host(host)
        if problem:
            return FleetHost(host, problem=problem)
        try:
            done = subprocess.run(self.command(host), stdin=subprocess.DEVNULL, capture_output=True,
                                  timeout=self.timeout_s, check=False)
        except subprocess.TimeoutExpired:
            return FleetHost(host, problem=f"no answer over ssh within {self.timeout_s:g} s")
        except OSError as exc:
            return FleetHost(host, problem=f"cannot run ssh: {exc.strerror or exc}")
        said = _last_line(done.stderr)
        if done.returncode == 255:
            return FleetHost(host, problem=f"ssh failed: {said or 'exit 255'}")
        if done.returncode == 127:
            return FleetHost(host, problem=f"raidtop is not installed there ({said or 'command not found'})")
        if done.returncode != 0:
            return FleetHost(host, problem=f"remote raidtop failed (exit {done.returncode}): {said or 'no message'}")
        if len(done.stdout) > OUTPUT_LIMIT:
            return FleetHost(host, problem=f"answered more than {OUTPUT_LIMIT >> 20} MiB; refused")
        try:
            return FleetHost(host, tuple(arrays_from_snapshot(json.loads(done.stdout))))
        except (ValueError, TypeError, KeyError, AttributeError):
            return FleetHost(host, problem="answered with something that is not raidtop's snapshot JSON")


def arrays_from_snapshot(doc: dict[str, Any]) -> list[FleetArray]:
    """The fleet's arrays from one ``raidtop snapshot --json`` document (raises on a wrong shape)."""
    waits = {d["name"]: SimpleNamespace(r_await_ms=_num(d.get("r_await_ms")), w_await_ms=_num(d.get("w_await_ms")))
             for d in doc.get("disks") or [] if isinstance(d, dict) and isinstance(d.get("name"), str)}
    out = []
    for a in doc["arrays"]:
        members = tuple(MdMember(str(m["name"]), slot=_int(m.get("slot")), roles=tuple(map(str, m.get("roles") or ())),
                                 errors=_int(m.get("errors"))) for m in a.get("members") or [])
        sync_doc = a.get("sync")
        sync = None
        if isinstance(sync_doc, dict):
            sync = MdSync(str(sync_doc["action"]), done_kib=_int(sync_doc.get("done_kib")),
                          total_kib=_int(sync_doc.get("total_kib")), speed_kib_s=_int(sync_doc.get("speed_kib_s")),
                          eta_s=_num(sync_doc.get("eta_s")))
        array = MdArray(str(a["name"]), _str(a.get("level")), _str(a.get("state")), str(a.get("health") or "ok"),
                        raid_disks=_int(a.get("raid_disks")), degraded=_int(a.get("degraded")), members=members,
                        sync=sync, mismatch_cnt=_int(a.get("mismatch_cnt")),
                        read_only=a.get("read_only") is True, auto_read_only=a.get("auto_read_only") is True)
        slow = slow_members(array, waits)
        running = sync is not None and sync.running
        out.append(FleetArray(
            name=array.name, state=array_state(array), level=array.level, raid_disks=array.raid_disks,
            degraded=array.degraded, action=sync.action if running else None,
            done_bytes=_bytes(sync.done_kib) if running else None, total_bytes=_bytes(sync.total_kib) if running else None,
            speed_bytes_s=_bytes(sync.speed_kib_s) if running else None, eta_s=sync.eta_s if running else None,
            mismatch_sectors=array.mismatch_cnt,
            members=tuple(FleetMember(m.name, member_role(m), m.name in slow, m.errors) for m in members)))
    return out


def _last_line(data: bytes) -> str:
    lines = [line for line in data.decode("utf-8", "replace").splitlines() if line.strip()]
    return plain(lines[-1].strip())[:200] if lines else ""


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _bytes(kib: int | None) -> float | None:
    return None if kib is None else kib * 1024.0
