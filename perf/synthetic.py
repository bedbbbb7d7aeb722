"""Synthetic /proc and /sys trees for benchmarks, and realistic ticks between samples.

A :class:`SyntheticSystem` keeps every counter in memory, writes a root
directory laid out like a live machine (``proc/…``, ``sys/…``) and, on each
:meth:`SyntheticSystem.tick`, advances the counters as one second of a busy
machine would and rewrites only the files a kernel would change. The sampler
therefore sees the same mix of changed and unchanged lines it sees in real
life, so caches that skip unchanged lines are neither flattered nor punished.

This module builds the machine and evolves it; the state it evolves is in
:mod:`synthetic_state` and the kernel's file formats in :mod:`synthetic_texts`.
Host /proc/meminfo and /proc/vmstat provide the key names (their values are
then made to move), so those files have a live kernel's length and keys.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

from synthetic_state import Disk, MdArrayState, MdMemberState, Shape, disk_names
from synthetic_texts import (
    MEMINFO_COUNTS,
    QUEUE_FILES,
    md_attributes,
    mdstat_text,
    meminfo_text,
    pid_stat,
    pressure_text,
    stat_text,
)

USER_HZ = 100
_LEVELS = ("raid6", "raid6", "raid5", "raid10")


class SyntheticSystem:
    """A synthetic machine written under ``root`` and advanced one second per tick."""

    def __init__(self, root: Path, shape: Shape, seed: int = 1) -> None:
        self.root = Path(root)
        self.shape = shape
        self.rng = random.Random(seed)
        self.uptime = 123456.78
        self.disks: list[Disk] = []
        self.cpu_ticks = [[self.rng.randrange(10**5, 10**6) for _ in range(10)] for _ in range(shape.cpus)]
        for ticks in self.cpu_ticks:
            ticks[8] = ticks[9] = 0  # guest, guest_nice: no VMs inside
        self.intr = [self.rng.randrange(0, 10**6) for _ in range(64 + 4 * shape.cpus)]
        self.ctxt = 10**9
        self.processes = 10**6
        self.meminfo = _host_pairs("/proc/meminfo", ":")
        self.vmstat = _host_pairs("/proc/vmstat", " ")
        self.arrays: list[MdArrayState] = []
        self.temps: list[int] = []
        self.proc_ticks: dict[int, list[int]] = {}
        self._comm: dict[int, str] = {}
        self._tick_number = 0

    # -------------------------------------------------------------- building

    def build(self) -> None:
        """Write the whole tree once (static sysfs identity and the first counters)."""
        self._make_disks()
        self._make_arrays()
        for disk in self.disks:
            disk.counters = self._initial_counters(disk)
        self._write_block_sysfs()
        self._write_md_sysfs()
        self._write_hwmon()
        self._write_processes()
        self._write_proc_static()
        self._write_dynamic(changed_disks=True)

    def _make_disks(self) -> None:
        names = disk_names(self.shape.disks)
        self.whole_disks = names
        self.partitions: dict[str, list[str]] = {}
        for i, name in enumerate(names):
            if name.startswith("nvme"):
                self.disks.append(Disk(259, i * 8, name))
            else:
                self.disks.append(Disk(8 if i < 16 else 65 + i // 16 % 64, (i * 16) % (1 << 20), name))
            if i < self.shape.partitioned_disks:
                sep = "p" if name[-1].isdigit() else ""
                parts = [f"{name}{sep}{n}" for n in (1, 2)]
                self.partitions[name] = parts
                whole = self.disks[-1]
                for n, part in enumerate(parts, 1):
                    self.disks.append(Disk(whole.major, whole.minor + n, part))
        for i in range(self.shape.loop_devices):
            self.disks.append(Disk(7, i, f"loop{i}"))
        for a in range(self.shape.md_arrays):
            self.disks.append(Disk(9, a, f"md{a}"))

    def _make_arrays(self) -> None:
        """64 arrays of 16 whole-disk members; a few resync, recover or check."""
        members_needed = self.shape.md_arrays * self.shape.md_members
        spare_pool = [n for n in self.whole_disks if n.startswith("sd")][members_needed:]
        pool = iter(n for n in self.whole_disks if n.startswith("sd"))
        for a in range(self.shape.md_arrays):
            level = _LEVELS[a % len(_LEVELS)]
            members = [MdMemberState(next(pool), slot, "in_sync") for slot in range(self.shape.md_members)]
            array = MdArrayState(a, level, members, component_kib=1_953_382_400)
            if a % 16 == 5:
                array.sync_action, array.sync_done_sectors = "resync", 812_345_600
            elif a % 16 == 9:
                # A failed member and a spare rebuilding into its slot.
                members[3].state, members[3].slot = "faulty", None
                spare = spare_pool.pop(0) if spare_pool else members[3].disk + "x"
                members.append(MdMemberState(spare, 3, "spare"))
                array.sync_action, array.sync_done_sectors = "recover", 123_456_000
            elif a % 16 == 13:
                array.sync_action, array.sync_done_sectors = "check", 2_000_000_000
            array.sync_speed_kib = 150_000 if array.syncing else 0
            self.arrays.append(array)

    def _initial_counters(self, disk: Disk) -> list[int]:
        if disk.name.startswith("loop"):
            return [0] * 17  # never used: identical every tick
        r = self.rng
        ios_r, ios_w = r.randrange(10**4, 10**8), r.randrange(10**4, 10**8)
        return [
            ios_r,
            ios_r // 10,
            ios_r * 16,
            ios_r // 2,
            ios_w,
            ios_w // 5,
            ios_w * 24,
            ios_w,
            0,
            (ios_r + ios_w) // 3,
            ios_r // 2 + ios_w,
            r.randrange(0, 10**4),
            r.randrange(0, 10**4),
            r.randrange(0, 10**7),
            r.randrange(0, 10**5),
            ios_w // 50,
            ios_w // 40,
        ]

    # -------------------------------------------------------------- ticking

    def tick(self, busy_fraction: float) -> None:
        """Advance one second: ``busy_fraction`` of the devices see I/O."""
        self._tick_number += 1
        self.uptime += 1.0
        active = [d for d in self.disks if not d.name.startswith("loop")]
        count = len(active) if busy_fraction >= 1 else max(1, int(len(active) * busy_fraction))
        start = (self._tick_number * count) % max(1, len(active))
        # A rotating window so different devices are busy each tick.
        for disk in (active + active)[start : start + count]:
            self._io(disk)
        for ticks in self.cpu_ticks:
            self._spend_cpu(ticks)
        for i in self.rng.sample(range(len(self.intr)), k=min(40, len(self.intr))):
            self.intr[i] += self.rng.randrange(1, 500)
        self.ctxt += self.rng.randrange(1000, 50_000)
        self.processes += self.rng.randrange(0, 20)
        for array in self.arrays:
            if array.syncing:
                array.sync_speed_kib = 140_000 + self.rng.randrange(0, 20_000)
                array.sync_done_sectors += array.sync_speed_kib * 2
        self.temps = [t + self.rng.choice((-1000, 0, 1000)) for t in self.temps]
        for ticks in self.proc_ticks.values():
            ticks[0] += self.rng.randrange(0, 3)
            ticks[1] += self.rng.randrange(0, 5)
        self._write_dynamic(changed_disks=True)

    def _io(self, disk: Disk) -> None:
        c, r = disk.counters, self.rng
        reads, writes = r.randrange(0, 400), r.randrange(1, 800)
        c[0] += reads
        c[1] += reads // 8
        c[2] += reads * r.choice((8, 16, 256))
        c[3] += reads * r.randrange(1, 4)
        c[4] += writes
        c[5] += writes // 4
        c[6] += writes * r.choice((8, 16, 1024))
        c[7] += writes * r.randrange(1, 6)
        c[8] = r.randrange(0, 8)
        c[9] += r.randrange(50, 1000)
        c[10] += reads * 2 + writes * 4
        if r.random() < 0.1:
            c[11] += 1
            c[12] += 64
            c[13] += 2
        c[15] += writes // 50
        c[16] += writes // 40

    def _spend_cpu(self, ticks: list[int]) -> None:
        r = self.rng
        budget = USER_HZ
        used = [r.randrange(0, 40), 0, r.randrange(0, 20), 0, r.randrange(0, 5), 0, r.randrange(0, 3), 0]
        used[3] = max(0, budget - sum(used))  # idle takes the rest of the second
        for i, value in enumerate(used):
            ticks[i] += value

    # -------------------------------------------------------------- writing

    def _write(self, rel: str, text: str) -> None:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)

    def _write_dynamic(self, changed_disks: bool) -> None:
        self._write("proc/uptime", f"{self.uptime:.2f} {self.uptime * 1.7:.2f}\n")
        if changed_disks:
            self._write("proc/diskstats", "".join(d.line() + "\n" for d in self.disks))
        self._write(
            "proc/stat",
            stat_text(
                self.cpu_ticks, self.intr, self.ctxt, self.processes, self.rng.randrange(1, 6), self.rng.randrange(0, 3)
            ),
        )
        moved = {
            key: value + self.rng.randrange(-64, 64) * 4 if value > 4096 and key not in MEMINFO_COUNTS else value
            for key, value in self.meminfo.items()
        }
        self._write("proc/meminfo", meminfo_text(moved))
        self._advance_vmstat()
        self._write("proc/vmstat", "".join(f"{key} {value}\n" for key, value in self.vmstat.items()))
        load = 1.0 + self.rng.random()
        self._write(
            "proc/loadavg", f"{load:.2f} {load * 0.9:.2f} {load * 0.8:.2f} 3/{self.shape.processes} {self.processes}\n"
        )
        for resource in ("cpu", "io", "memory"):
            self._write(
                f"proc/pressure/{resource}", pressure_text(self.rng.random() * 5, self.rng.random(), self._tick_number)
            )
        for i, temp in enumerate(self.temps):
            chip, index = self._temp_files[i]
            self._write(f"sys/class/hwmon/{chip}/temp{index}_input", f"{temp}\n")
        for pid, ticks in self.proc_ticks.items():
            self._write(f"proc/{pid}/stat", pid_stat(pid, self._comm[pid], ticks))
        if self.arrays:
            self._write("proc/mdstat", mdstat_text(self.arrays))
            for array in self.arrays:
                if array.syncing:
                    self._write_sync_files(array)

    def _advance_vmstat(self) -> None:
        for key in ("pgpgin", "pgpgout", "pgfault", "pgalloc_normal", "pgfree", "numa_hit", "numa_local"):
            if key in self.vmstat:
                self.vmstat[key] += self.rng.randrange(0, 5000)

    def _write_proc_static(self) -> None:
        self._write("proc/sys/dev/raid/speed_limit_min", "1000\n")
        self._write("proc/sys/dev/raid/speed_limit_max", "200000\n")

    # -------------------------------------------------------------- sysfs

    def _write_block_sysfs(self) -> None:
        for i, disk in enumerate(self.disks):
            if disk.name in {p for parts in self.partitions.values() for p in parts}:
                continue
            base = f"sys/block/{disk.name}"
            self._write(f"{base}/dev", f"{disk.major}:{disk.minor}\n")
            self._write(f"{base}/size", "3907029168\n")
            self._write(f"{base}/removable", "0\n")
            self._write(f"{base}/ro", "0\n")
            for attr, value in QUEUE_FILES.items():
                self._write(f"{base}/queue/{attr}", value)
            if disk.name.startswith(("sd", "nvme")):
                model = "Samsung SSD 990 PRO 2TB" if disk.name.startswith("nvme") else "ST4000NM0035-1V4"
                self._write(f"{base}/device/model", f"{model:<40}\n" if disk.name.startswith("sd") else model + "\n")
                self._write(f"{base}/device/vendor", "ATA     \n")
                if disk.name.startswith("nvme"):
                    self._write(f"{base}/device/serial", f"S6B0NL0W{i:07d}      \n")
            self._link(f"sys/class/block/{disk.name}", f"../../block/{disk.name}")
            for n, part in enumerate(self.partitions.get(disk.name, ()), 1):
                self._write(f"{base}/{part}/partition", f"{n}\n")
                self._write(f"{base}/{part}/size", "2097152\n")
                self._write(f"{base}/{part}/start", f"{2048 + (n - 1) * 2097152}\n")
                self._link(f"sys/class/block/{part}", f"../../block/{disk.name}/{part}")

    def _link(self, rel: str, target: str) -> None:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.is_symlink():
            os.symlink(target, path)

    def _write_hwmon(self) -> None:
        """coretemp (package + up to 16 cores), acpitz, and one composite per NVMe."""
        self._temp_files: list[tuple[str, int]] = []
        cores = min(16, max(1, self.shape.cpus // 2))
        chip = "sys/class/hwmon/hwmon0"
        self._write(f"{chip}/name", "coretemp\n")
        for index in range(1, cores + 2):
            label = "Package id 0" if index == 1 else f"Core {index - 2}"
            self._sensor(chip, index, label, 45000 + index * 1000, 84000, 100000)
        chip = "sys/class/hwmon/hwmon1"
        self._write(f"{chip}/name", "acpitz\n")
        self._sensor(chip, 1, None, 27800, None, 119000)
        for n, name in enumerate(d for d in self.whole_disks if d.startswith("nvme")):
            controller = name[: name.index("n", 4)]
            chip = f"sys/class/hwmon/hwmon{n + 2}"
            self._write(f"{chip}/name", "nvme\n")
            self._sensor(chip, 1, "Composite", 38850, 81850, 84850)
            device = f"sys/devices/pci0000:00/0000:00:0{n + 1}.0/nvme/{controller}"
            (self.root / device / name).mkdir(parents=True, exist_ok=True)
            self._link(f"{chip}/device", "../../../" + device.removeprefix("sys/"))

    def _sensor(self, chip: str, index: int, label: str | None, value: int, high: int | None, crit: int | None) -> None:
        self._write(f"{chip}/temp{index}_input", f"{value}\n")
        if label:
            self._write(f"{chip}/temp{index}_label", label + "\n")
        if high:
            self._write(f"{chip}/temp{index}_max", f"{high}\n")
        if crit:
            self._write(f"{chip}/temp{index}_crit", f"{crit}\n")
            self._write(f"{chip}/temp{index}_crit_alarm", "0\n")
        self.temps.append(value)
        self._temp_files.append((chip.rsplit("/", 1)[1], index))

    def _write_processes(self) -> None:
        """A few hundred /proc/<pid> directories, md's kernel threads among them."""
        names = [f"{a.name}_{a.level}" for a in self.arrays]
        names += [f"{a.name}_resync" for a in self.arrays if a.syncing]
        names += [f"kworker/{i % self.shape.cpus}:{i}" for i in range(max(0, self.shape.processes - len(names)))]
        for pid, comm in enumerate(names, start=100):
            self.proc_ticks[pid] = [self.rng.randrange(0, 10**5), self.rng.randrange(0, 10**5)]
            self._write(f"proc/{pid}/comm", comm + "\n")
            self._comm[pid] = comm

    # -------------------------------------------------------------- md

    def _write_md_sysfs(self) -> None:
        for array in self.arrays:
            base = f"sys/block/{array.name}/md"
            attrs = md_attributes(array)
            for attr, value in attrs.items():
                self._write(f"{base}/{attr}", value + "\n")
            self._write(f"sys/block/{array.name}/size", f"{array.array_kib * 2}\n")
            for member in array.members:
                dev = f"{base}/dev-{member.disk}"
                slot = (
                    "none" if member.slot is None or member.state == "spare" and not array.syncing else str(member.slot)
                )
                self._write(f"{dev}/state", member.state + "\n")
                self._write(f"{dev}/slot", slot + "\n")
                self._write(f"{dev}/errors", "0\n")
                self._write(f"{dev}/offset", "264192\n")
                self._write(f"{dev}/size", f"{array.component_kib}\n")
                self._write(f"{dev}/new_offset", "264192\n")
                self._write(f"{dev}/recovery_start", "none\n")
                self._write(f"{dev}/bad_blocks", "")
                self._write(f"{dev}/unacknowledged_bad_blocks", "")
                self._link(f"{dev}/block", f"../../../{member.disk}")
                if member.slot is not None and member.state != "faulty":
                    self._link(f"{base}/rd{member.slot}", f"dev-{member.disk}")
            self._write_sync_files(array)

    def _write_sync_files(self, array: MdArrayState) -> None:
        base = f"sys/block/{array.name}/md"
        total = array.component_kib * 2
        self._write(f"{base}/sync_action", array.sync_action + "\n")
        if array.syncing:
            self._write(f"{base}/sync_completed", f"{array.sync_done_sectors} / {total}\n")
            self._write(f"{base}/sync_speed", f"{array.sync_speed_kib}\n")
        else:
            self._write(f"{base}/sync_completed", "none\n")
            self._write(f"{base}/sync_speed", "none\n")


def _host_pairs(path: str, sep: str) -> dict[str, int]:
    """Key/value pairs of a host /proc file, to copy its keys and length."""
    pairs: dict[str, int] = {}
    try:
        text = Path(path).read_text()
    except OSError:
        return {"MemTotal": 16_000_000, "MemFree": 8_000_000} if sep == ":" else {"pgpgin": 1, "pgpgout": 1}
    for line in text.splitlines():
        key, _, rest = line.partition(sep)
        fields = rest.split()
        if key and fields and fields[0].isdigit():
            pairs[key.strip()] = int(fields[0])
    return pairs
