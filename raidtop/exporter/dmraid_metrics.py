"""LVM RAID (dm-raid) volumes: their own block, apart from the md families.

A dm-raid volume is read from ``dmsetup status`` (the kernel's status line),
not from md's sysfs, so it has no md state word, uuid, bitmap or sync speed:
exporting it as ``raidtop_md_*`` would put series with empty labels beside
md's and make ``raidtop_md_arrays`` count volumes that ``/proc/mdstat`` does
not list. Its events are md's names and share ``raidtop_md_events``.
"""

from __future__ import annotations

from prometheus_client.core import GaugeMetricFamily, Metric

from raidtop.model.snapshot import Snapshot

_KIB = 1024
LEG_HEALTH = ("alive_in_sync", "alive_not_in_sync", "dead")
"""dm-raid's A, a and D, exported as ``raidtop_dmraid_leg_health{health}``."""


def dmraid_families(snapshot: Snapshot) -> list[Metric]:
    """Every raidtop_dmraid_* family for the snapshot's dm-raid volumes."""
    v = ["volume"]
    volumes = GaugeMetricFamily("raidtop_dmraid_volumes", "dm-raid (LVM RAID) volumes present.", labels=[])
    level = GaugeMetricFamily(
        "raidtop_dmraid_info", "1, with the volume's level and layout.", labels=v + ["level", "layout"]
    )
    legs = GaugeMetricFamily("raidtop_dmraid_legs", "Legs (images) of the volume.", labels=v)
    degraded = GaugeMetricFamily(
        "raidtop_dmraid_degraded_legs", "Legs not alive and in sync (dm-raid's a or D).", labels=v
    )
    health = GaugeMetricFamily(
        "raidtop_dmraid_leg_health", "1 for the leg's health character, 0 for the others.", labels=v + ["leg", "health"]
    )
    size = GaugeMetricFamily("raidtop_dmraid_size_bytes", "The volume's size.", labels=v)
    mismatch = GaugeMetricFamily(
        "raidtop_dmraid_mismatch_sectors", "Sectors found inconsistent by the last check/repair.", labels=v
    )
    done = GaugeMetricFamily(
        "raidtop_dmraid_sync_completed_bytes", "Per-leg bytes done of the running sync.", labels=v + ["action"]
    )
    total = GaugeMetricFamily(
        "raidtop_dmraid_sync_total_bytes", "Per-leg bytes the running sync covers.", labels=v + ["action"]
    )
    eta = GaugeMetricFamily(
        "raidtop_dmraid_sync_eta_seconds", "raidtop's estimate of the running sync's time left.", labels=v
    )
    ours = [a for a in snapshot.arrays if a.source == "dm-raid"]
    volumes.add_metric([], len(ours))
    for array in ours:
        name = [array.name]
        level.add_metric(name + [array.level or "", array.layout or ""], 1.0)
        if array.raid_disks is not None:
            legs.add_metric(name, array.raid_disks)
        if array.degraded is not None:
            degraded.add_metric(name, array.degraded)
        for member in array.members:
            word = "dead" if member.is_faulty else ("alive_in_sync" if member.is_in_sync else "alive_not_in_sync")
            for candidate in LEG_HEALTH:
                health.add_metric(name + [member.name, candidate], 1.0 if candidate == word else 0.0)
        if array.size_kib is not None:
            size.add_metric(name, array.size_kib * _KIB)
        if array.mismatch_cnt is not None:
            mismatch.add_metric(name, array.mismatch_cnt)
        sync = array.sync
        if sync is not None and sync.running:
            if sync.done_kib is not None and sync.total_kib is not None:
                done.add_metric(name + [sync.action], sync.done_kib * _KIB)
                total.add_metric(name + [sync.action], sync.total_kib * _KIB)
            if sync.eta_s is not None:
                eta.add_metric(name, sync.eta_s)
    return [volumes, level, legs, degraded, health, size, mismatch, done, total, eta]
