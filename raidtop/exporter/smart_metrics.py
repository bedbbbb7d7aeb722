"""Prometheus families for SMART health (``raidtop_smart_*``) and rebuild risk.

A value the drive did not report is absent, never 0 (PromQL then says "no
data" instead of "healthy"). Base units: seconds, ratios 0..1, Celsius as
Prometheus names it. The verdict is a number so an alert can compare it:
0 ok, 1 watch, 2 failing; absent while unknown (not read, standby, no SMART).
"""

from __future__ import annotations

from prometheus_client.core import GaugeMetricFamily, InfoMetricFamily, Metric

from raidtop.model.snapshot import Snapshot
from raidtop.model.smart import VERDICT_RANK, SmartHealth

_D = ["disk"]
# (name, help, how to get the value from a SmartHealth): one gauge each.
_GAUGES = (
    (
        "raidtop_smart_passed",
        "1 when the drive's own overall SMART assessment passed, 0 when it failed.",
        lambda h: None if h.passed is None else float(h.passed),
    ),
    (
        "raidtop_smart_pending_sectors",
        "ATA attribute 197, sectors waiting to be remapped (unreadable now).",
        lambda h: h.pending_sectors,
    ),
    (
        "raidtop_smart_reallocated_sectors",
        "ATA attribute 5, sectors remapped to spares.",
        lambda h: h.reallocated_sectors,
    ),
    (
        "raidtop_smart_offline_uncorrectable_sectors",
        "ATA attribute 198, sectors an offline scan could not read.",
        lambda h: h.offline_uncorrectable,
    ),
    (
        "raidtop_smart_reported_uncorrectable_errors",
        "ATA attribute 187, errors ECC could not correct.",
        lambda h: h.reported_uncorrect,
    ),
    ("raidtop_smart_command_timeouts", "ATA attribute 188, aborted commands.", lambda h: h.command_timeouts),
    (
        "raidtop_smart_interface_crc_errors",
        "ATA attribute 199, link CRC errors (usually the cable).",
        lambda h: h.udma_crc_errors,
    ),
    ("raidtop_smart_media_errors", "NVMe media and data integrity errors.", lambda h: h.media_errors),
    ("raidtop_smart_critical_warning", "NVMe critical_warning bit mask (0 = none).", lambda h: h.critical_warning),
    (
        "raidtop_smart_endurance_used_ratio",
        "NVMe percentage_used / 100 (1 = rated endurance reached).",
        lambda h: None if h.percentage_used is None else h.percentage_used / 100,
    ),
    (
        "raidtop_smart_available_spare_ratio",
        "NVMe available spare / 100.",
        lambda h: None if h.available_spare is None else h.available_spare / 100,
    ),
    (
        "raidtop_smart_available_spare_threshold_ratio",
        "NVMe available spare threshold / 100.",
        lambda h: None if h.available_spare_threshold is None else h.available_spare_threshold / 100,
    ),
    ("raidtop_smart_grown_defects", "SCSI grown defect list length.", lambda h: h.grown_defects),
    (
        "raidtop_smart_uncorrected_errors",
        "SCSI total uncorrected read, write and verify errors.",
        lambda h: h.scsi_uncorrected_errors,
    ),
    ("raidtop_smart_temperature_celsius", "Drive temperature.", lambda h: h.temperature_c),
    (
        "raidtop_smart_power_on_seconds",
        "Power-on time (the drive counts hours).",
        lambda h: None if h.power_on_hours is None else h.power_on_hours * 3600,
    ),
)


def smart_families(snapshot: Snapshot) -> list[Metric]:
    """Every ``raidtop_smart_*`` family and the rebuild-risk families for one snapshot."""
    verdict = GaugeMetricFamily(
        "raidtop_smart_verdict", "raidtop's SMART verdict: 0 ok, 1 watch, 2 failing.", labels=_D
    )
    info = InfoMetricFamily(
        "raidtop_smart", "A disk's SMART read state, protocol, model, serial and firmware.", labels=_D
    )
    read_at = GaugeMetricFamily(
        "raidtop_smart_last_read_timestamp_seconds", "Unix time smartctl was last asked about the disk.", labels=_D
    )
    gauges = [(GaugeMetricFamily(name, text, labels=_D), value) for name, text, value in _GAUGES]
    for disk, health in sorted(snapshot.smart.items()):
        labels = [disk]
        info.add_metric(labels, _info(health))
        read_at.add_metric(labels, health.read_at)
        rank = VERDICT_RANK.get(health.verdict, -1)
        if health.state == "read" and rank >= 0:
            verdict.add_metric(labels, float(rank))
        for family, value in gauges:
            found = value(health)
            if found is not None:
                family.add_metric(labels, float(found))
    return [verdict, info, read_at, *(family for family, _ in gauges), *_risk_families(snapshot)]


def _info(h: SmartHealth) -> dict[str, str]:
    return {
        "state": h.state,
        "protocol": h.protocol or "",
        "model": h.model or "",
        "serial": h.serial or "",
        "firmware": h.firmware or "",
    }


def _risk_families(snapshot: Snapshot) -> list[Metric]:
    at_risk = GaugeMetricFamily(
        "raidtop_md_rebuild_risk_survivors",
        "Survivors that are not ok on an array without redundancy or rebuilding.",
        labels=["array"],
    )
    chance = GaugeMetricFamily(
        "raidtop_md_rebuild_unrecoverable_read_probability",
        "Estimated chance of an unrecoverable read error over what the rebuild still reads.",
        labels=["array", "member", "disk"],
    )
    for risk in snapshot.rebuild_risks:
        at_risk.add_metric([risk.array], float(len(risk.survivors)))
        seen: set[str] = set()
        for survivor in risk.survivors:
            if survivor.ure_probability is not None and survivor.member not in seen:
                seen.add(survivor.member)
                chance.add_metric([risk.array, survivor.member, survivor.disk], survivor.ure_probability)
    return [at_risk, chance]
