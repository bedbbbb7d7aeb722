"""Write a SimulatedArray out as the kernel would: md sysfs, /proc/mdstat, diskstats.

The formats follow drivers/md/md.c (md_seq_show, status_resync and the
sysfs attribute show functions) of Linux 6.1.
"""

from __future__ import annotations

from raidtop.demo.simulator import SimulatedArray

_LEVEL_NUMBER = {"raid0": 0, "raid1": 1, "raid4": 4, "raid5": 5, "raid6": 6, "raid10": 10}
LOOP_MAJOR = 7
MD_MAJOR = 9
BAD_BLOCK_MEMBER = "loop21"
"""The demo member whose md bad-block log holds an entry (the audit's bad-blocks finding)."""
BAD_BLOCKS = "1953120 8\n"
"""One 8-sector range, as md's ``dev-*/bad_blocks`` prints it (``sector length``)."""


def array_size_kib(sim: SimulatedArray) -> int:
    """Usable size: one component for raid1, (n − parity) components otherwise."""
    parity = {"raid1": sim.disks - 1, "raid4": 1, "raid5": 1, "raid6": 2}.get(sim.level, 0)
    return (sim.disks - parity) * sim.component_kib


def sysfs_files(sim: SimulatedArray) -> tuple[dict[str, str], dict[str, str]]:
    """(files, symlinks) under /sys/block/<name>/ for the array's current state."""
    base = f"/sys/block/{sim.name}/md"
    running = sim.sync_action is not None
    total_sectors = sim.component_kib * 2
    files = {
        f"/sys/block/{sim.name}/size": f"{array_size_kib(sim) * 2}\n",
        f"{base}/level": f"{sim.level}\n",
        f"{base}/array_state": ("broken" if sim.broken else "active" if running and not sim.reaping else "clean")
        + "\n",
        f"{base}/raid_disks": f"{sim.disks}\n",
        f"{base}/degraded": f"{sim.degraded}\n",
        f"{base}/chunk_size": f"{sim.chunk_kib * 1024}\n",
        f"{base}/layout": ("2" if sim.level in ("raid5", "raid6") else "0") + "\n",
        f"{base}/metadata_version": "1.2\n",
        f"{base}/component_size": f"{sim.component_kib}\n",
        f"{base}/mismatch_cnt": "0\n",
        f"{base}/sync_action": f"{'idle' if sim.reaping else sim.sync_action or 'idle'}\n",
        f"{base}/last_sync_action": f"{sim.last_sync_action}\n",
        f"{base}/sync_completed": (f"{int(sim.sync_done_kib * 2)} / {total_sectors}" if running else "none") + "\n",
        f"{base}/sync_speed": (f"{sim.sync_speed_kib_s}" if sim.sync_speed_kib_s else "none") + "\n",
        f"{base}/sync_speed_min": "1000 (system)\n",
        f"{base}/sync_speed_max": f"{sim.speed_limit_kib_s} (local)\n",
        f"{base}/consistency_policy": "resync\n",
        f"{base}/bitmap/location": "none\n",
    }
    links: dict[str, str] = {}
    for m in sim.members:
        words = ",".join(m.roles)
        files[f"{base}/dev-{m.name}/state"] = words + "\n"
        files[f"{base}/dev-{m.name}/slot"] = ("none" if m.slot is None else str(m.slot)) + "\n"
        files[f"{base}/dev-{m.name}/errors"] = "0\n"
        # What the audit reads beside the array: md's data offset and bad-block log, and the
        # disk's command timeout and queue (SATA disks with their volatile cache on).
        files[f"{base}/dev-{m.name}/offset"] = "262144\n"
        files[f"{base}/dev-{m.name}/bad_blocks"] = BAD_BLOCKS if m.name == BAD_BLOCK_MEMBER else ""
        files[f"/sys/block/{m.name}/device/timeout"] = "30\n"
        files[f"/sys/block/{m.name}/queue/write_cache"] = "write back\n"
        files[f"/sys/block/{m.name}/queue/physical_block_size"] = "512\n"
        files[f"/sys/block/{m.name}/queue/rotational"] = "1\n"
        if m.slot is not None:
            links[f"{base}/rd{m.slot}"] = f"dev-{m.name}"
        links[f"{base}/dev-{m.name}/block"] = f"../../../../../virtual/block/{m.name}"
    return files, links


def mdstat_block(sim: SimulatedArray) -> str:
    """The array's lines of /proc/mdstat, as md_seq_show prints them."""
    members = []
    for m in reversed(sim.members):  # md prints the most recently added first
        flag = "(F)" if "faulty" in m.roles else "(S)" if m.slot is None else ""
        members.append(f"{m.name}[{m.number}]{flag}")
    lines = [f"{sim.name} : active {sim.level} {' '.join(members)}"]
    detail = f"      {array_size_kib(sim)} blocks super 1.2"
    if sim.level in ("raid4", "raid5", "raid6"):
        detail += f" level {_LEVEL_NUMBER[sim.level]}, {sim.chunk_kib}k chunk, algorithm 2"
    in_sync = {m.slot for m in sim.members if m.slot is not None and m.roles == ["in_sync"]}
    pattern = "".join("U" if slot in in_sync else "_" for slot in range(sim.disks))
    detail += f" [{sim.disks}/{len(in_sync)}] [{pattern}]"
    lines.append(detail)
    if sim.sync_action is not None:
        per_milli = int(sim.sync_done_kib * 1000 / sim.component_kib)
        x = per_milli // 50
        bar = "[" + "=" * x + ">" + "." * (20 - x) + "]"
        remaining_min = (sim.component_kib - sim.sync_done_kib) / max(1, sim.speed_limit_kib_s) / 60
        word = "recovery" if sim.sync_action == "recover" else sim.sync_action
        lines.append(
            f"      {bar}  {word} = {per_milli // 10:2d}.{per_milli % 10}% "
            f"({int(sim.sync_done_kib)}/{sim.component_kib}) finish={remaining_min:.1f}min "
            f"speed={sim.sync_speed_kib_s or 0}K/sec"
        )
    return "\n".join(lines) + "\n      \n"


def diskstats_lines(sim: SimulatedArray) -> str:
    """/proc/diskstats lines for the array and its member loop devices."""
    out = [f"{MD_MAJOR:4d} {9:7d} {sim.name} 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n"]
    for m in sorted(sim.members + sim.retired, key=lambda m: int(m.name.removeprefix("loop"))):
        minor = int(m.name.removeprefix("loop"))
        out.append(
            f"{LOOP_MAJOR:4d} {minor:7d} {m.name} {m.read_ios} 0 {m.read_sectors} {m.read_ios * m.read_ms} "
            f"{m.write_ios} 0 {m.write_sectors} {m.write_ios * m.write_ms} 0 {m.busy_ms} {m.busy_ms} 0 0 0 0 0 0\n"
        )
    return "".join(out)
