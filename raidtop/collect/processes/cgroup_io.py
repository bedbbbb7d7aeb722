"""Per-device I/O per cgroup from the kernel's own accounting.

cgroup v2 keeps ``io.stat`` in every cgroup with the io controller on, one
line per device (``8:16 rbytes=… wbytes=… rios=… wios=… dbytes=… dios=…``),
and a parent's numbers include its children's. The root cgroup's io.stat
holds the whole devices' totals, so the root's remainder (total minus the
children) is I/O no cgroup below it submitted: kernel threads such as md's
resync, and tasks left in the root.

cgroup v1 has ``blkio.throttle.io_service_bytes`` and ``…io_serviced`` (lines
``8:16 Read 1024``), per cgroup and not recursive. Since Linux 6.10 the v1
throttle layer starts counting on a device only once some throttle rule was
set on it, so an unconfigured v1 host reads all zeros: raidtop then says so
and falls back to per-process totals. It never sets a rule itself.
"""

from __future__ import annotations

from raidtop.collect.source import Root, SourceError
from raidtop.model.processes import CgroupDeviceCounters, CgroupReading

V2_MOUNTS = ("/sys/fs/cgroup", "/sys/fs/cgroup/unified")
V1_MOUNT = "/sys/fs/cgroup/blkio"
MAX_CGROUPS = 4096
"""A bound on the walk: a host with more cgroups gets the first ones and a note."""
MAX_DEPTH = 12
_COUNTER_MAX = 1 << 64

# Control files are named "<controller>.<file>" (or are one of v1's few
# bare names); any other entry of a cgroup directory is a child cgroup.
_CONTROL_PREFIXES = frozenset(
    {
        "cgroup",
        "io",
        "memory",
        "cpu",
        "cpuset",
        "cpuacct",
        "pids",
        "hugetlb",
        "rdma",
        "misc",
        "blkio",
        "devices",
        "freezer",
        "net_cls",
        "net_prio",
        "perf_event",
    }
)
_V1_BARE_FILES = frozenset({"tasks", "notify_on_release", "release_agent"})


def parse_io_stat(cgroup: str, text: str) -> list[CgroupDeviceCounters]:
    """The devices of one v2 ``io.stat``; damaged lines are skipped."""
    rows = []
    for line in text.splitlines():
        device, _, rest = line.partition(" ")
        major_minor = _major_minor(device)
        if major_minor is None:
            continue
        fields = dict(part.partition("=")[::2] for part in rest.split())
        numbers = [_counter(fields.get(key)) for key in ("rbytes", "wbytes", "rios", "wios")]
        if None in numbers:
            continue
        rows.append(CgroupDeviceCounters(cgroup, *major_minor, *numbers))  # type: ignore[arg-type]
    return rows


def parse_blkio(cgroup: str, service_bytes: str, serviced: str) -> list[CgroupDeviceCounters]:
    """One v1 cgroup's devices from ``blkio.throttle.io_service_bytes`` and ``…io_serviced``."""
    found: dict[tuple[int, int], list[int]] = {}
    for text, offset in ((service_bytes, 0), (serviced, 2)):
        for line in text.splitlines():
            parts = line.split()
            if len(parts) != 3 or parts[1] not in ("Read", "Write"):
                continue
            major_minor, value = _major_minor(parts[0]), _counter(parts[2])
            if major_minor is None or value is None:
                continue
            found.setdefault(major_minor, [0, 0, 0, 0])[offset + (parts[1] == "Write")] = value
    return [CgroupDeviceCounters(cgroup, major, minor, *values) for (major, minor), values in sorted(found.items())]


class CgroupIoReader:
    """Finds the host's cgroup I/O accounting once, then reads it each time it is asked."""

    def __init__(self) -> None:
        self._found: tuple[str, str] | None = None  # (version, mount)
        self.absent_reason: str | None = None
        """Why there is no per-device accounting ("" until looked), a sentence for the panel."""

    def read(self, root: Root) -> tuple[CgroupReading | None, list[str]]:
        """Every cgroup's counters, or ``None`` (see :attr:`absent_reason`)."""
        if self._found is None:
            self._found = _find(root)
            if self._found is None:
                self.absent_reason = "no cgroup I/O accounting (no cgroup v2 io controller, no v1 blkio)"
        if self._found is None:
            return None, []
        version, mount = self._found
        counters: list[CgroupDeviceCounters] = []
        children: dict[str, tuple[str, ...]] = {}
        notes: list[str] = []
        todo = [("/", 0)]
        while todo:
            cgroup, depth = todo.pop()
            path = mount if cgroup == "/" else mount + cgroup
            try:
                entries = root.listdir(path)
            except SourceError:
                continue  # removed while we walked: normal
            if version == "v2":
                text = root.read_optional(path + "/io.stat")
                if text:
                    counters.extend(parse_io_stat(cgroup, text))
            else:
                service = root.read_optional(path + "/blkio.throttle.io_service_bytes")
                if service:
                    counters.extend(
                        parse_blkio(cgroup, service, root.read_optional(path + "/blkio.throttle.io_serviced") or "")
                    )
            subs = tuple(
                (cgroup.rstrip("/") + "/" + e)
                for e in entries
                if e.partition(".")[0] not in _CONTROL_PREFIXES and e not in _V1_BARE_FILES
            )
            children[cgroup] = subs
            if depth < MAX_DEPTH:
                if len(children) + len(todo) + len(subs) > MAX_CGROUPS:
                    notes.append(f"{mount}: more than {MAX_CGROUPS} cgroups; the rest not read")
                    subs = subs[: max(0, MAX_CGROUPS - len(children) - len(todo))]
                todo.extend((sub, depth + 1) for sub in subs)
        source = "cgroup v2 io.stat" if version == "v2" else "cgroup v1 blkio.throttle"
        if version == "v1" and not any(c.rbytes or c.wbytes for c in counters):
            # All zeros: v1 counts only on devices with a throttle rule (kernel 6.10+).
            self.absent_reason = "cgroup v1 blkio counts nothing here (no throttle rule on any device)"
            return None, notes
        self.absent_reason = None
        return CgroupReading(source, tuple(counters), children, recursive=version == "v2"), notes

    def reset(self) -> None:
        """Look for the accounting again (a new root)."""
        self._found = None
        self.absent_reason = None


def _find(root: Root) -> tuple[str, str] | None:
    for mount in V2_MOUNTS:
        controllers = root.read_optional(mount + "/cgroup.controllers")
        if controllers is not None and "io" in controllers.split():
            return "v2", mount
    if root.exists(V1_MOUNT + "/blkio.throttle.io_service_bytes"):
        return "v1", V1_MOUNT
    return None


def _major_minor(text: str) -> tuple[int, int] | None:
    major, colon, minor = text.partition(":")
    if not colon or not major.isdigit() or not minor.isdigit() or len(text) > 16:
        return None
    return int(major), int(minor)


def _counter(text: str | None) -> int | None:
    if text is None or not text.isdigit() or len(text) > 20:
        return None
    value = int(text)
    return value if value < _COUNTER_MAX else None
