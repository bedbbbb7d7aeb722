"""The kernel's files as text: what the synthetic machine's state looks like in /proc and /sys.

Formats follow the kernel's own printf formats (block/genhd.c diskstats_show,
fs/proc/stat.c, fs/proc/array.c, kernel/sched/psi.c, drivers/md/md.c md_seq_show
and the md sysfs attributes). Pure functions of the state: the randomness that
makes the numbers move lives in :class:`synthetic.SyntheticSystem`.
"""

from __future__ import annotations

from synthetic_state import MdArrayState

MEMINFO_COUNTS = {"HugePages_Total", "HugePages_Free", "HugePages_Rsvd", "HugePages_Surp"}
"""/proc/meminfo keys that are counts, printed without ``kB``."""

QUEUE_FILES = {
    "rotational": "1\n",
    "logical_block_size": "512\n",
    "physical_block_size": "4096\n",
    "hw_sector_size": "512\n",
    "max_sectors_kb": "1280\n",
    "nr_requests": "256\n",
    "read_ahead_kb": "128\n",
    "scheduler": "[mq-deadline] kyber bfq none\n",
}
"""A rotating disk's /sys/block/<disk>/queue/ attributes."""


def stat_text(
    cpu_ticks: list[list[int]], intr: list[int], ctxt: int, processes: int, running: int, blocked: int
) -> str:
    """/proc/stat: the summed and per-CPU lines, interrupts and the scheduler counters."""
    total = [sum(col) for col in zip(*cpu_ticks)]
    lines = ["cpu  " + " ".join(map(str, total))]
    lines += [f"cpu{i} " + " ".join(map(str, ticks)) for i, ticks in enumerate(cpu_ticks)]
    lines.append(f"intr {sum(intr)} " + " ".join(map(str, intr)))
    lines.append(f"ctxt {ctxt}")
    lines.append("btime 1700000000")
    lines.append(f"processes {processes}")
    lines.append(f"procs_running {running}")
    lines.append(f"procs_blocked {blocked}")
    lines.append("softirq " + " ".join(str(ctxt // (k + 2)) for k in range(11)))
    return "\n".join(lines) + "\n"


def meminfo_text(pairs: dict[str, int]) -> str:
    """/proc/meminfo with the kernel's column alignment."""
    lines = []
    for key, value in pairs.items():
        lines.append(
            f"{key + ':':<16}{max(0, value):>8} kB" if key not in MEMINFO_COUNTS else f"{key + ':':<16}{value:>8}"
        )
    return "\n".join(lines) + "\n"


def pressure_text(some: float, full: float, tick: int) -> str:
    """One /proc/pressure/<resource> file (PSI) for ``some`` and ``full`` averages."""
    return (
        f"some avg10={some:.2f} avg60={some / 2:.2f} avg300={some / 3:.2f} total={tick * 1234}\n"
        f"full avg10={full:.2f} avg60={full / 2:.2f} avg300={full / 3:.2f} total={tick * 321}\n"
    )


def pid_stat(pid: int, comm: str, ticks: list[int]) -> str:
    """/proc/<pid>/stat of a sleeping kernel thread with ``ticks`` = [utime, stime]."""
    # fs/proc/array.c do_task_stat: 52 fields; utime and stime are 14 and 15.
    rest = " ".join(["0"] * 37)
    return f"{pid} ({comm}) S 2 0 0 0 -1 2129984 0 0 0 0 {ticks[0]} {ticks[1]} 0 0 20 0 1 0 100 0 0 {rest}\n"


def md_attributes(array: MdArrayState) -> dict[str, str]:
    """The md sysfs attributes of ``array`` (drivers/md/md.c, raid5.c), values without the newline."""
    chunk = 524288
    attrs = {
        "level": array.level,
        "array_state": "active" if array.syncing else "clean",
        "raid_disks": str(array.raid_disks),
        "chunk_size": str(chunk),
        "layout": "258" if array.level == "raid10" else "2",
        "degraded": str(array.degraded),
        "last_sync_action": "check" if not array.syncing else "resync",
        "sync_speed_min": "1000 (system)",
        "sync_speed_max": "200000 (system)",
        "sync_min": "0",
        "sync_max": "max",
        "mismatch_cnt": "0",
        "consistency_policy": "bitmap",
        "component_size": str(array.component_kib),
        "metadata_version": "1.2",
        "reshape_position": "none",
        "reshape_direction": "forwards",
        "resync_start": "none",
        "uuid": f"3f2a9c1e-0b7d-4e5f-9a{array.index:02d}-1c2d3e4f5a6b",
        "array_size": "default",
        "max_read_errors": "20",
        "safe_mode_delay": "0.204",
        "suspend_lo": "0",
        "suspend_hi": "0",
        "new_dev": "",
        "bitmap/location": "+8",
        "bitmap/chunksize": "67108864",
        "bitmap/backlog": "0",
        "bitmap/metadata": "internal",
        "bitmap/can_clear": "false",
        "bitmap/max_backlog_used": "0",
        "bitmap/time_base": "5",
        "bitmap/space": "8",
    }
    if array.level in ("raid5", "raid6"):
        attrs["stripe_cache_size"] = "256"
        attrs["stripe_cache_active"] = "0"
        attrs["group_thread_cnt"] = "0"
        attrs["preread_bypass_threshold"] = "1"
    return attrs


def mdstat_text(arrays: list[MdArrayState]) -> str:
    """md_seq_show's format: the header, one block per array, the footer."""
    out = ["Personalities : [raid6] [raid5] [raid4] [raid10] [linear] [raid0] [raid1] \n"]
    for array in reversed(arrays):  # the kernel lists the newest array first
        out.append(_mdstat_array(array))
    out.append("unused devices: <none>\n")
    return "".join(out)


def _mdstat_array(array: MdArrayState) -> str:
    members = []
    for number, member in reversed(list(enumerate(array.members))):
        flag = "(F)" if member.state == "faulty" else "(S)" if member.state == "spare" and not array.syncing else ""
        members.append(f"{member.disk}[{number}]{flag}")
    lines = [f"{array.name} : active {array.level} " + " ".join(members)]
    status = "".join(
        "U" if any(m.slot == s and m.state == "in_sync" for m in array.members) else "_"
        for s in range(array.raid_disks)
    )
    geometry = f"[{array.raid_disks}/{array.raid_disks - array.degraded}] [{status}]"
    if array.level == "raid10":
        detail = f"512K chunks 2 near-copies {geometry}"
    else:
        detail = f"level {array.level[-1]}, 512k chunk, algorithm 2 {geometry}"
    lines.append(f"      {array.array_kib} blocks super 1.2 {detail}")
    if array.syncing:
        lines.append(_progress_line(array))
    lines.append("      bitmap: 2/15 pages [8KB], 65536KB chunk")
    return "\n".join(lines) + "\n\n"


def _progress_line(array: MdArrayState) -> str:
    total = array.component_kib
    done = array.sync_done_sectors // 2
    permille = done * 1000 // total
    filled = permille // 50
    bar = "[" + "=" * filled + ">" + "." * (19 - filled) + "]"
    word = {"recover": "recovery", "resync": "resync", "check": "check"}[array.sync_action]
    minutes = (total - done) / max(1, array.sync_speed_kib) / 60
    return (
        f"      {bar}  {word} = {permille // 10:2d}.{permille % 10}% ({done}/{total}) "
        f"finish={minutes:.1f}min speed={array.sync_speed_kib}K/sec"
    )
