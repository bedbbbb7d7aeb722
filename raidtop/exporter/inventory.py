"""What joins raidtop's series to other exporters', and what an array is made of.

``raidtop_md_member_disk_info`` names the whole disk under each member with
the label node_exporter (``node_disk_*{device}``) and smartctl_exporter
(``smartctl_device_*{device}``) use, so PromQL can put a member's array
next to its disk's I/O and SMART series. The member flags and chunk size
complete what ``mdadm --detail`` says; ``raidtop_md_driver_loaded`` tells
"no md driver" from "no arrays" (``raidtop_md_arrays`` is 0 for both);
``raidtop_exporter_node_info`` names the host, for the fleet view.
"""

from __future__ import annotations

from prometheus_client.core import GaugeMetricFamily, InfoMetricFamily, Metric

from raidtop.model.disk_columns import disk_named, disks_by_name
from raidtop.model.snapshot import Snapshot
from raidtop.model.md import NO_MD_DRIVER

MEMBER_FLAGS = ("write_mostly", "want_replacement", "replacement", "blocked", "write_error")
"""Words of ``dev-*/state`` exported as ``raidtop_md_member_flag{flag}``, 1 when the kernel lists it."""


def inventory_families(snapshot: Snapshot, nodename: str) -> list[Metric]:
    """Driver presence, the node's name, member -> disk, member flags and chunk sizes for one snapshot."""
    driver = GaugeMetricFamily(
        "raidtop_md_driver_loaded",
        "1 when the kernel has the md driver (/proc/mdstat or md_mod present), else 0.",
        value=0.0 if snapshot.md_absence == NO_MD_DRIVER else 1.0,
    )
    node = InfoMetricFamily(
        "raidtop_exporter_node", "The name of the host the exporter reads (uname -n).", value={"nodename": nodename}
    )
    member_disk = InfoMetricFamily(
        "raidtop_md_member_disk",
        "The whole disk under each md member (device as node_exporter and smartctl_exporter name it), with its "
        "/dev/disk/by-id name where known.",
        labels=["array", "member", "device", "by_id"],
    )
    flags = GaugeMetricFamily(
        "raidtop_md_member_flag",
        "1 when dev-*/state lists the flag for the member (write_mostly, want_replacement, "
        "replacement, blocked, write_error), else 0.",
        labels=["array", "member", "flag"],
    )
    chunk = GaugeMetricFamily(
        "raidtop_md_chunk_size_bytes", "The array's chunk size (striped levels only).", labels=["array"]
    )
    disks = disks_by_name(snapshot.disks)
    for array in snapshot.arrays:
        if array.chunk_kib:
            chunk.add_metric([array.name], float(array.chunk_kib * 1024))
        seen: set[str] = set()
        for member in array.members:
            if member.name in seen:
                continue  # listed twice by a real mdstat: one series, or the scrape fails
            seen.add(member.name)
            for disk in whole_disks_of(snapshot, member.name):
                by_id = disks[disk].by_id if disk in disks else None
                member_disk.add_metric([array.name, member.name, disk, by_id or ""], {})
            if member.role_known:
                for flag in MEMBER_FLAGS:
                    flags.add_metric([array.name, member.name, flag], 1.0 if flag in member.roles else 0.0)
    return [driver, node, member_disk, flags, chunk]


def whole_disks_of(snapshot: Snapshot, device: str) -> tuple[str, ...]:
    """The whole disks under ``device``: the sysfs walk's answer, else its parent, else itself if a disk."""
    found = snapshot.smart_disk_of.get(device)
    if found:
        return found
    info = disk_named(snapshot.disks, device)
    if info is None:
        return ()
    if info.parent:
        return (info.parent,)
    return (device,) if info.kind == "disk" else ()
