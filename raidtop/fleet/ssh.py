"""Read the fleet over the user's own ssh: ``raidtop snapshot --json`` on each host.

ssh keeps its own configuration, keys, agents and jump hosts; raidtop only
adds ``BatchMode=yes`` (never a password prompt under the screen) and a
connect timeout. A host name is passed after ``--`` and refused when it
starts with ``-``, so it can never be read as an ssh option.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Sequence
from typing import Any

from raidtop.model.frozen import frozen_dataclass
from raidtop.collect.bounded_run import Ran, run_bounded, stop
from raidtop.exporter.states import array_state, member_role
from raidtop.fleet.model import NAME_LIMIT, FleetArray, FleetHost, FleetMember, FleetReading, UnusableValue, worst_first
from raidtop.presentation.md import slow_members
from raidtop.model.md import MdArray, MdMember, MdSync
from raidtop.threads import DaemonExecutor
from raidtop.untrusted import COUNT_LIMIT, count, finite, plain

REMOTE_COMMAND = "raidtop snapshot --json"
"""What runs on each host (its own ``raidtop``, on its PATH)."""
OUTPUT_LIMIT = 16 * 1024 * 1024
"""A snapshot of thousands of disks is a few MB; past this the remote is stopped and refused."""
PARALLEL = 16
"""ssh sessions at once."""
_KIB_LIMIT = COUNT_LIMIT >> 10
"""KiB whose byte count stays below :data:`~raidtop.untrusted.COUNT_LIMIT`."""
MAX_DISKS = 65536
"""md's 1.x superblock holds at most 1920 devices; a larger count is no count."""
_HOST = re.compile(r"[A-Za-z0-9_.@%:\[\]][A-Za-z0-9_.@%:\[\]-]{0,253}", re.ASCII)


def check_host(name: str) -> str | None:
    """A sentence when ``name`` cannot be an ssh destination, else ``None``."""
    if not _HOST.fullmatch(name):
        return f"{plain(name)[:64]!r} is no host name (letters, digits, . _ - @ : only; no leading -)"
    return None


class SshSource:
    """Fetch :class:`FleetReading` by running ``remote_command`` on every host, in parallel."""

    def __init__(
        self,
        hosts: Sequence[str],
        *,
        ssh_config: str | None = None,
        remote_command: str = REMOTE_COMMAND,
        timeout_s: float = 30.0,
        ssh: str = "ssh",
    ) -> None:
        self.hosts = tuple(hosts)
        self.ssh_config = ssh_config
        self.remote_command = remote_command
        self.timeout_s = timeout_s
        self.ssh = ssh
        self._lock = threading.Lock()
        self._running: set = set()
        """ssh processes running now (Popen), killed by :meth:`close`."""
        self._slots = threading.BoundedSemaphore(PARALLEL)

    def command(self, host: str) -> list[str]:
        """The exact argv run for ``host``."""
        argv = [self.ssh]
        if self.ssh_config:
            argv += ["-F", self.ssh_config]
        argv += ["-o", "BatchMode=yes", "-o", "ConnectTimeout=10", "--", host, self.remote_command]
        return argv

    def read(self) -> FleetReading:
        """One refresh of every host."""
        # Daemon threads, never joined at exit: close() kills the ssh they wait on anyway.
        pool = DaemonExecutor("raidtop-ssh")
        futures = [pool.submit(self._read_limited, host) for host in self.hosts]
        return FleetReading(hosts=worst_first([f.result() for f in futures]), time=time.time())

    def _read_limited(self, host: str) -> FleetHost:
        with self._slots:
            return self.read_host(host)

    def read_host(self, host: str) -> FleetHost:
        """One host's arrays, or a sentence saying why not."""
        problem = check_host(host)
        if problem:
            return FleetHost(host, problem=problem)
        try:
            done = self._run(self.command(host))
        except OSError as exc:
            return FleetHost(host, problem=f"cannot run ssh: {plain(exc.strerror or str(exc))}")
        if done.cut == "limit":
            return FleetHost(host, problem=f"answered more than {OUTPUT_LIMIT >> 20} MiB; stopped it and refused")
        if done.cut == "timeout":
            return FleetHost(host, problem=f"no complete answer over ssh within {self.timeout_s:g} s; stopped it")
        said = _last_line(done.stderr)
        if done.returncode == 255:
            return FleetHost(host, problem=f"ssh failed: {said or 'exit 255'}")
        if done.returncode == 127:
            return FleetHost(host, problem=f"raidtop is not installed there ({said or 'command not found'})")
        if done.returncode != 0:
            return FleetHost(host, problem=f"remote raidtop failed (exit {done.returncode}): {said or 'no message'}")
        try:
            return FleetHost(host, tuple(arrays_from_snapshot(json.loads(done.stdout))))
        except RecursionError:
            return FleetHost(host, problem="answered JSON nested too deep to be raidtop's snapshot; refused")
        except UnusableValue as exc:
            return FleetHost(host, problem=f"sent a value raidtop cannot use: {exc}")
        except (ValueError, TypeError, KeyError, AttributeError):
            return FleetHost(host, problem="answered with something that is not raidtop's snapshot JSON")

    def _run(self, argv: list[str]) -> Ran:
        """Run ``argv`` reading at most :data:`OUTPUT_LIMIT` bytes for at most ``timeout_s``; killed past either."""
        proc_seen: list = []

        def started(proc) -> None:
            proc_seen.append(proc)
            with self._lock:
                self._running.add(proc)

        try:
            return run_bounded(argv, timeout_s=self.timeout_s, limit=OUTPUT_LIMIT, keep_stderr=True, started=started)
        finally:
            with self._lock:
                self._running.difference_update(proc_seen)

    def close(self) -> None:
        """Kill every ssh still running (raidtop is leaving)."""
        with self._lock:
            running = list(self._running)
        for proc in running:
            stop(proc)


@frozen_dataclass
class _Waits:
    """A host's per-disk awaits from its JSON: what :func:`slow_members` needs of a member's I/O."""

    r_await_ms: float | None
    w_await_ms: float | None


def arrays_from_snapshot(doc: dict[str, Any]) -> list[FleetArray]:
    """The fleet's arrays from one ``raidtop snapshot --json`` document (raises on a wrong shape)."""
    waits = {
        _name(d["name"]): _Waits(
            r_await_ms=_num(d.get("r_await_ms"), "r_await_ms"), w_await_ms=_num(d.get("w_await_ms"), "w_await_ms")
        )
        for d in doc.get("disks") or []
        if isinstance(d, dict) and isinstance(d.get("name"), str)
    }
    out = []
    for a in doc["arrays"]:
        members = tuple(
            MdMember(
                _name(m["name"]),
                slot=_int(m.get("slot"), "slot", MAX_DISKS),
                roles=tuple(map(_name, m.get("roles") or ())),
                errors=_int(m.get("errors"), "errors"),
            )
            for m in a.get("members") or []
        )
        sync_doc = a.get("sync")
        sync = None
        if isinstance(sync_doc, dict):
            sync = MdSync(
                _name(sync_doc["action"]),
                done_kib=_int(sync_doc.get("done_kib"), "done_kib", _KIB_LIMIT),
                total_kib=_int(sync_doc.get("total_kib"), "total_kib", _KIB_LIMIT),
                speed_kib_s=_int(sync_doc.get("speed_kib_s"), "speed_kib_s", _KIB_LIMIT),
                eta_s=_num(sync_doc.get("eta_s"), "eta_s"),
            )
        array = MdArray(
            _name(a["name"]),
            _str(a.get("level")),
            _str(a.get("state")),
            _name(a.get("health") or "ok"),
            raid_disks=_int(a.get("raid_disks"), "raid_disks", MAX_DISKS),
            degraded=_int(a.get("degraded"), "degraded", MAX_DISKS),
            members=members,
            sync=sync,
            mismatch_cnt=_int(a.get("mismatch_cnt"), "mismatch_cnt"),
            read_only=a.get("read_only") is True,
            auto_read_only=a.get("auto_read_only") is True,
        )
        slow = slow_members(array, waits)
        running = sync if sync is not None and sync.running else None
        out.append(
            FleetArray(
                name=array.name,
                state=array_state(array),
                level=array.level,
                raid_disks=array.raid_disks,
                degraded=array.degraded,
                action=running.action if running else None,
                done_bytes=_bytes(running.done_kib) if running else None,
                total_bytes=_bytes(running.total_kib) if running else None,
                speed_bytes_s=_bytes(running.speed_kib_s) if running else None,
                eta_s=running.eta_s if running else None,
                mismatch_sectors=array.mismatch_cnt,
                members=tuple(FleetMember(m.name, member_role(m), m.name in slow, m.errors) for m in members),
            )
        )
    return out


def _last_line(data: bytes) -> str:
    lines = [line for line in data.decode("utf-8", "replace").splitlines() if line.strip()]
    return plain(lines[-1].strip())[:200] if lines else ""


def _int(value: Any, what: str, high: int = COUNT_LIMIT) -> int | None:
    """A count: ``None`` when absent or no number, :class:`UnusableValue` when negative or too large."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return None
    found = count(value, high)
    if found is None:
        raise UnusableValue(f"{what} = {_shown(value)}")
    return found


def _num(value: Any, what: str) -> float | None:
    """A finite, non-negative measure, as :func:`_int`."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return None
    found = finite(value, 0, COUNT_LIMIT)
    if found is None:
        raise UnusableValue(f"{what} = {_shown(value)}")
    return found


def _shown(value: int | float) -> str:
    # str() of 10**400 is refused by Python itself (int max str digits): say how big instead.
    if isinstance(value, int) and abs(value) > COUNT_LIMIT:
        return f"a {value.bit_length()}-bit number"
    return repr(value)


def _name(value: Any) -> str:
    return plain(str(value)[:NAME_LIMIT])


def _str(value: Any) -> str | None:
    return _name(value) if isinstance(value, str) else None


def _bytes(kib: int | None) -> float | None:
    return None if kib is None else kib * 1024.0
