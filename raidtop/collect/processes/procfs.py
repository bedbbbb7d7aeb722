"""Per-process I/O from /proc/PID/{io,stat,status,cgroup}, read through a Root.

Each tick reads one file per process, /proc/PID/io, with one read(2): the
files here are procfs single-record files, which the kernel hands over
whole (``single_record``). Who the process is
(command, kernel thread or not, cgroup) is read again only when its
counters moved (/proc/PID/stat then also catches a reused PID by its start
time); its user when the PID is first seen. A process that vanished mid-read or whose
io file is not ours to read (ptrace rules, hidepid) is simply not listed:
on a busy host that is normal, not a note.

The files are read through the :class:`~raidtop.collect.source.Root` like
every other reader's rather than through psutil: psutil's ``PROCFS_PATH``
is one module-wide setting (shared by every thread that calls psutil), and
it opens files itself, so a recording could not store what it read and a
replay could not give it back.
"""

from __future__ import annotations

from raidtop.collect.held_records import HeldRecords
from raidtop.collect.source import Root, SourceError
from raidtop.model.processes import ProcCounters

PF_KTHREAD = 0x00200000
"""include/linux/sched.h: the task is a kernel thread."""

_IO_KEYS = {"rchar": 0, "wchar": 1, "syscr": 2, "syscw": 3, "read_bytes": 4, "write_bytes": 5}
_COUNTER_MAX = 1 << 64
CGROUP_PREFERENCE = ("blkio", "", "name=systemd")
"""Which /proc/PID/cgroup line names the process's cgroup: the v1 blkio hierarchy is the
one v1 I/O accounting uses; then the unified (v2) line; then systemd's own v1 tree."""


def parse_io(text: str) -> tuple[int, int, int, int, int, int] | None:
    """/proc/PID/io's six counters (rchar … write_bytes); ``None`` when one is missing or damaged."""
    values = [-1] * 6
    for line in text.splitlines():
        key, _, value = line.partition(":")
        index = _IO_KEYS.get(key)
        if index is None:
            continue  # cancelled_write_bytes, and anything a later kernel adds
        try:
            number = int(value)
        except ValueError:
            return None
        if not 0 <= number < _COUNTER_MAX:
            return None
        values[index] = number
    if -1 in values:
        return None
    return tuple(values)  # type: ignore[return-value]


def parse_stat(text: str) -> tuple[str, int, bool, int] | None:
    """(command, start time in ticks, kernel thread, parent PID) from /proc/PID/stat; ``None`` if damaged.

    The command sits in parentheses and may itself hold spaces and ")".
    """
    head, paren, tail = text.rpartition(")")
    if not paren or "(" not in head:
        return None
    comm = head.partition("(")[2]
    fields = tail.split()
    try:
        ppid, flags, start = int(fields[1]), int(fields[6]), int(fields[19])
    except (IndexError, ValueError):
        return None
    return comm, start, bool(flags & PF_KTHREAD), ppid


def parse_status_uid(text: str) -> int | None:
    """The real UID from /proc/PID/status's ``Uid:`` line."""
    for line in text.splitlines():
        if line.startswith("Uid:"):
            parts = line.split()
            if len(parts) > 1 and parts[1].isdigit():
                return int(parts[1])
            return None
    return None


def parse_cgroup(text: str) -> str:
    """The cgroup path that names this process's unit, "/" when it has none."""
    paths: dict[str, str] = {}
    for line in text.splitlines():
        parts = line.split(":", 2)
        if len(parts) == 3:
            for controller in parts[1].split(","):
                paths.setdefault(controller, parts[2])
    for controller in CGROUP_PREFERENCE:
        path = paths.get(controller)
        if path and path != "/":
            return path
    return "/"


def parse_passwd(text: str) -> dict[int, str]:
    """UID -> user name from an /etc/passwd text (damaged lines skipped)."""
    users: dict[int, str] = {}
    for line in text.splitlines():
        parts = line.split(":")
        if len(parts) >= 3 and parts[2].isdigit():
            users.setdefault(int(parts[2]), parts[0])
    return users


class ProcessTable:
    """Reads every process's counters, remembering who each PID is between ticks."""

    def __init__(self) -> None:
        self._known: dict[int, ProcCounters] = {}
        self._texts: dict[int, str] = {}
        """Each PID's io text last time: an unchanged text needs no parsing."""
        self._users: dict[int, str] | None = None
        self.io_files = HeldRecords()
        """Every process's /proc/PID/io, kept open between samples on the live system."""

    def read(self, root: Root) -> tuple[tuple[ProcCounters, ...], list[str]]:
        """Every readable process's counters now, and notes (only for /proc itself)."""
        try:
            entries = root.listdir("/proc")
        except SourceError as exc:
            return (), [str(exc)]
        known, texts = self._known, self._texts
        seen: dict[int, ProcCounters] = {}
        seen_texts: dict[int, str] = {}
        for entry in entries:
            if not entry.isdigit():
                continue
            pid = int(entry)
            text = root.read_optional(f"/proc/{pid}/io", single_record=True, held=self.io_files)
            if not text:
                continue  # gone, not ours to read, or not a process
            old = known.get(pid)
            if old is not None and texts.get(pid) == text:
                # Idle (most processes, most ticks): the very same object, so rates skip it cheaply.
                seen[pid], seen_texts[pid] = old, text
                continue
            counters = parse_io(text)
            if counters is None:
                continue
            current = self._identify(root, pid, old, counters)
            if current is not None:
                seen[pid], seen_texts[pid] = current, text
        self._known, self._texts = seen, seen_texts
        self.io_files.end_round()  # the files of processes that ended are closed
        return tuple(seen.values()), []

    def _identify(self, root: Root, pid: int, old: ProcCounters | None, counters) -> ProcCounters | None:
        stat = root.read_optional(f"/proc/{pid}/stat", single_record=True)
        parsed = parse_stat(stat) if stat else None
        if parsed is None:
            return None
        comm, start, kernel, ppid = parsed
        if old is not None and old.start == start:
            user = old.user
        else:
            uid: int | None = 0  # a kernel thread is root's and has no status worth reading
            if not kernel:
                status = root.read_optional(f"/proc/{pid}/status", single_record=True)
                uid = parse_status_uid(status) if status else None
            user = self.user_name(root, uid)
        # Read again whenever the process did I/O: a shell moves itself into a
        # unit's cgroup and then execs the worker (systemd-run, our own tests).
        cgroup_text = root.read_optional(f"/proc/{pid}/cgroup", single_record=True)
        cgroup = parse_cgroup(cgroup_text) if cgroup_text else "/"
        return ProcCounters(pid, start, _printable(comm), kernel, user, cgroup, *counters, ppid=ppid)

    def user_name(self, root: Root, uid: int | None) -> str:
        """The user's name from the root's /etc/passwd, else the number ("?" when unknown)."""
        if uid is None:
            return "?"
        if self._users is None:
            text = root.read_optional("/etc/passwd")
            self._users = parse_passwd(text) if text else {}
        return self._users.get(uid, str(uid))

    def reset(self) -> None:
        """Forget every PID (a new root, or the demo starting over)."""
        self._known = {}
        self._texts = {}
        self._users = None
        self.io_files.close()


def _printable(text: str) -> str:
    # A command name is chosen by whoever started the process: no control characters.
    return "".join(ch if ch.isprintable() else "?" for ch in text)[:64]
