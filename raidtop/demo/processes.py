"""The demo's processes: a database and a backup loading the simulated array while it rebuilds.

Files as the kernel writes them (Linux 6.1 fs/proc/base.c, array.c and
block/blk-cgroup.c): /proc/PID/{io,stat,status,cgroup,comm}, /etc/passwd,
and cgroup v2 ``io.stat`` per unit with the root's holding whole devices
(so the root's remainder is md's own sync I/O, as on a real host). The
services' bytes are also added to the member disks' counters, so the Disks
panel and the attribution tell the same story.
"""

from __future__ import annotations

from dataclasses import dataclass

from raidtop.demo.simulator import SECTOR, SimulatedArray

LOOP_MAJOR = 7
MD_MAJOR = 9
MD_MINOR = 9
_KTHREAD_FLAGS = 0x00208040  # PF_KTHREAD | PF_NOFREEZE | PF_FORKNOEXEC
_USER_FLAGS = 0x00400100
PASSWD = (
    "root:x:0:0:root:/root:/bin/bash\nwww-data:x:33:33:www-data:/var/www:/usr/sbin/nologin\n"
    "postgres:x:113:120:PostgreSQL administrator:/var/lib/postgresql:/bin/bash\n"
    "backup:x:34:34:backup:/var/backups:/usr/sbin/nologin\n"
)


@dataclass
class DemoProcess:
    """One simulated process and its running totals."""

    pid: int
    comm: str
    user: int
    unit: str
    read_b_s: float = 0.0
    """Bytes per second it reads from the array (0: idle)."""
    write_b_s: float = 0.0
    calls_per_byte: float = 1 / 8192
    kernel: bool = False
    read_bytes: float = 0.0
    write_bytes: float = 0.0


def cast(md: str, level: str = "raid5") -> list[DemoProcess]:
    """Who runs on the demo host: a busy database, a nightly backup, quiet services, md's threads."""
    return [
        DemoProcess(1, "systemd", 0, "/init.scope"),
        DemoProcess(
            412,
            "systemd-journal",
            0,
            "/system.slice/systemd-journald.service",
            write_b_s=48_000,
            calls_per_byte=1 / 4096,
        ),
        DemoProcess(688, "sshd", 0, "/system.slice/ssh.service"),
        DemoProcess(905, "nginx", 33, "/system.slice/nginx.service", read_b_s=180_000),
        DemoProcess(1412, "postgres", 113, "/system.slice/postgresql.service", read_b_s=2_400_000, write_b_s=5_600_000),
        DemoProcess(
            1418, "postgres", 113, "/system.slice/postgresql.service", write_b_s=1_300_000, calls_per_byte=1 / 65536
        ),
        DemoProcess(2231, "restic", 34, "/system.slice/backup.service", read_b_s=7_800_000, calls_per_byte=1 / 131072),
        DemoProcess(3007, "bash", 0, "/user.slice/user-0.slice/session-3.scope"),
        DemoProcess(188, f"{md}_{level}", 0, "/", kernel=True),
        DemoProcess(190, "kworker/u4:2-events_unbound", 0, "/", kernel=True),
    ]


class DemoLoad:
    """Advances the cast's counters with the clock and writes their files."""

    def __init__(self, sim: SimulatedArray) -> None:
        self.sim = sim
        self.processes = cast(sim.name, sim.level)
        self._resync = DemoProcess(191, f"{sim.name}_resync", 0, "/", kernel=True)
        # unit -> (major, minor) -> [rbytes, wbytes, rios, wios]
        self._units: dict[str, dict[tuple[int, int], list[float]]] = {}

    def advance(self, seconds: float) -> None:
        """Count ``seconds`` of the services' I/O on the array's working members."""
        if seconds <= 0:
            return
        members = [m for m in self.sim.members if m.slot is not None and "faulty" not in m.roles]
        request_ms = dict.fromkeys((m.name for m in members), 0)
        for p in self.processes:
            if not (p.read_b_s or p.write_b_s):
                continue
            r, w = p.read_b_s * seconds, p.write_b_s * seconds
            p.read_bytes += r
            p.write_bytes += w
            self._count(p.unit, (MD_MAJOR, MD_MINOR), r, w)
            if not members:
                continue
            # raid5: reads spread over the members; each write also rewrites parity.
            per_r, per_w = r / len(members), w * 2 / len(members)
            for m in members:
                m.read_sectors += int(per_r / SECTOR)
                m.write_sectors += int(per_w / SECTOR)
                reads, writes = int(per_r / 65536) + (1 if per_r else 0), int(per_w / 65536) + (1 if per_w else 0)
                m.read_ios += reads
                m.write_ios += writes
                request_ms[m.name] += reads * m.read_ms + writes * m.write_ms
                self._count(p.unit, (LOOP_MAJOR, int(m.name.removeprefix("loop"))), per_r, per_w)
        # The time those requests kept each disk busy (diskstats' io_ticks, hence %util and aqu-sz),
        # one at a time: 127 IO/s at 0 % busy misled. DemoController.tick caps a tick's busy time,
        # from these requests and the sync's together, at the time that passed.
        for m in members:
            m.busy_ms += request_ms[m.name]

    def _count(self, unit: str, device: tuple[int, int], r: float, w: float) -> None:
        counters = self._units.setdefault(unit, {}).setdefault(device, [0.0, 0.0, 0.0, 0.0])
        counters[0] += r
        counters[1] += w
        counters[2] += int(r / 65536) + (1 if r else 0)
        counters[3] += int(w / 65536) + (1 if w else 0)

    def files(self) -> tuple[dict[str, str], dict[str, list[str]]]:
        """(files, directory listings) for /proc, /etc/passwd and /sys/fs/cgroup."""
        files = {"/etc/passwd": PASSWD, "/sys/fs/cgroup/cgroup.controllers": "cpuset cpu io memory pids\n"}
        dirs: dict[str, set[str]] = {"/sys/fs/cgroup": {"cgroup.controllers", "io.stat"}}
        shown = list(self.processes) + ([self._resync] if self.sim.sync_action else [])
        for p in shown:
            calls_r, calls_w = int(p.read_bytes * p.calls_per_byte), int(p.write_bytes * p.calls_per_byte)
            base = f"/proc/{p.pid}"
            files[f"{base}/io"] = (
                f"rchar: {int(p.read_bytes) + 4096 * p.pid}\nwchar: {int(p.write_bytes) + 512 * p.pid}\n"
                f"syscr: {calls_r + p.pid}\nsyscw: {calls_w}\nread_bytes: {int(p.read_bytes)}\n"
                f"write_bytes: {int(p.write_bytes)}\ncancelled_write_bytes: 0\n"
            )
            state, flags = ("S", _KTHREAD_FLAGS) if p.kernel else ("S" if not p.write_b_s else "D", _USER_FLAGS)
            files[f"{base}/stat"] = (
                f"{p.pid} ({p.comm}) {state} {2 if p.kernel else 1} 0 0 0 -1 {flags} 0 0 0 0 12 9 0 0 20 0 1 0 "
                f"{p.pid * 3} 0 0 18446744073709551615 0 0 0 0 0 0 0 2147483647 0 0 0 0 17 1 0 0 0 0 0\n"
            )
            files[f"{base}/comm"] = p.comm[:15] + "\n"
            files[f"{base}/status"] = f"Name:\t{p.comm[:15]}\nUid:\t{p.user}\t{p.user}\t{p.user}\t{p.user}\n"
            files[f"{base}/cgroup"] = f"0::{p.unit}\n"
        dirs["/proc"] = {str(p.pid) for p in shown}
        root_totals: dict[tuple[int, int], list[float]] = {}
        for unit, devices in sorted(self._units.items()):
            path = "/sys/fs/cgroup" + unit
            files[path + "/io.stat"] = _io_stat(devices)
            parent, _, leaf = unit.rpartition("/")
            while leaf:
                dirs.setdefault("/sys/fs/cgroup" + parent, set()).add(leaf)
                dirs.setdefault("/sys/fs/cgroup" + parent + "/" + leaf, set()).add("io.stat")
                parent, _, leaf = parent.rpartition("/")
            for device, values in devices.items():
                total = root_totals.setdefault(device, [0.0, 0.0, 0.0, 0.0])
                for i in range(4):
                    total[i] += values[i]
        for slice_dir in ("/system.slice", "/user.slice"):  # recursive, as v2 keeps them
            files[f"/sys/fs/cgroup{slice_dir}/io.stat"] = _io_stat(self._sum_under(slice_dir))
        # The root holds whole devices: the services' and md's own sync I/O (members' counters).
        for m in self.sim.members + self.sim.retired:
            device = (LOOP_MAJOR, int(m.name.removeprefix("loop")))
            root_totals[device] = [m.read_sectors * SECTOR, m.write_sectors * SECTOR, m.read_ios, m.write_ios]
        files["/sys/fs/cgroup/io.stat"] = _io_stat(root_totals)
        return files, {k: sorted(v) for k, v in dirs.items()}

    def _sum_under(self, prefix: str) -> dict[tuple[int, int], list[float]]:
        out: dict[tuple[int, int], list[float]] = {}
        for unit, devices in self._units.items():
            if unit.startswith(prefix + "/"):
                for device, values in devices.items():
                    total = out.setdefault(device, [0, 0, 0, 0])
                    for i in range(4):
                        total[i] += int(values[i])  # as the children's files print them
        return out


def _io_stat(devices: dict[tuple[int, int], list[float]]) -> str:
    return "".join(
        f"{major}:{minor} rbytes={int(r)} wbytes={int(w)} rios={int(ri)} wios={int(wi)} dbytes=0 dios=0\n"
        for (major, minor), (r, w, ri, wi) in sorted(devices.items())
    )
