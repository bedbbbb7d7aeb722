"""Prometheus metric families built from one raidtop Snapshot.

Everything here is a pure translation of the model (:mod:`raidtop.model.md`)
into ``raidtop_*`` families, in base units (bytes, seconds), strings as
``_info`` labels, one-hot gauges for states and roles, and ``_total`` only on
counters. :class:`MdMetrics` keeps the few values that accumulate across
samples (event counts, the exporter's own counters) and is the
prometheus-client Collector: :meth:`MdMetrics.collect` returns the families the
last sample built and never reads the system.
"""

from __future__ import annotations

import os
import threading
from dataclasses import replace
from collections.abc import Iterable, Mapping

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, InfoMetricFamily, Metric

from raidtop import __version__
from raidtop.model.disk_columns import disks_by_name
from raidtop.collect.queue_settings import QueueSettings
from raidtop.presentation.md import slow_members
from raidtop.model.snapshot import Snapshot
from raidtop.exporter.dmraid_metrics import dmraid_families
from raidtop.exporter.inventory import inventory_families
from raidtop.exporter.audit_metrics import audit_families
from raidtop.exporter.md_truth_metrics import md_truth_families
from raidtop.exporter.smart_metrics import smart_families
from raidtop.exporter.io_metrics import io_families
from raidtop.exporter.states import MD_STATES, MEMBER_ROLES, array_state, member_role

_KIB = 1024
_CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


ERROR_CAUSES = ("sample", "format", "textfile")
"""Every value of the ``cause`` label of ``raidtop_exporter_errors_total`` (each present from the start, at 0)."""


class MdMetrics:
    """The exporter's Collector: families from the latest sample plus counters across samples."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._families: list[Metric] = []
        self._event_counts: dict[tuple[str, str], int] = {}
        self._event_times: dict[tuple[str, str], float] = {}
        self._samples = 0
        self._unreadable = 0
        self._errors = 0
        self._causes: dict[str, int] = {}
        self.nodename = os.uname().nodename
        """The ``nodename`` of ``raidtop_exporter_node_info`` (the fleet view's name for this host)."""

    # prometheus-client calls describe() at registration; an empty answer
    # keeps it from calling collect() before the first sample exists.
    def describe(self) -> Iterable[Metric]:
        """Nothing up front: the families depend on what the system has."""
        return []

    def collect(self) -> Iterable[Metric]:
        """The families built by the last :meth:`update` (a scrape never reads the system)."""
        with self._lock:
            return list(self._families)

    def record_error(self, cause: str = "sample") -> None:
        """Count a failure by ``cause`` (``sample`` also counts as a failed sample); the previous families stay."""
        with self._lock:
            if cause == "sample":
                self._errors += 1
            self._causes[cause] = self._causes.get(cause, 0) + 1
            self._families = self._families[:-2] + self._error_families()

    def update(
        self,
        snapshot: Snapshot,
        duration_s: float,
        now: float,
        queues: Mapping[str, QueueSettings] | None = None,
        findings: tuple = (),
    ) -> None:
        """Build every family from ``snapshot``; ``now`` is the wall-clock time of the sample.

        ``findings``: the audit's, for ``snapshot`` (:mod:`raidtop.exporter.audit_metrics`).
        """
        for event in snapshot.events:
            key = (event.array, event.event)
            self._event_counts[key] = self._event_counts.get(key, 0) + 1
            self._event_times[key] = event.time
        self._samples += 1
        self._unreadable += len(snapshot.raw.notes) if snapshot.raw is not None else 0
        # dm-raid volumes have their own block (dmraid_metrics); md's families count md arrays only.
        md_only = replace(snapshot, arrays=tuple(a for a in snapshot.arrays if a.source != "dm-raid"))
        families = (
            md_families(md_only) + smart_families(snapshot) + md_truth_families(md_only) + dmraid_families(snapshot)
        )
        families += io_families(snapshot)
        # Joins (member -> whole disk, node name), member flags, chunk size, driver presence.
        families += inventory_families(md_only, self.nodename)
        families += [_events_total(self._event_counts), _last_event(self._event_times)]
        families.append(queue_info(queues or {}))
        families += audit_families((a.name for a in snapshot.arrays if not a.is_container), findings)
        families += self._exporter_families(duration_s, now)
        families += self._error_families()
        with self._lock:
            self._families = families

    def _exporter_families(self, duration_s: float, now: float) -> list[Metric]:
        build = InfoMetricFamily("raidtop_exporter_build", "raidtop's version.", value={"version": __version__})
        duration = GaugeMetricFamily(
            "raidtop_exporter_sample_duration_seconds",
            "Seconds the last sample took to read and compute.",
            value=duration_s,
        )
        stamp = GaugeMetricFamily(
            "raidtop_exporter_last_sample_timestamp_seconds", "Unix time of the last completed sample.", value=now
        )
        samples = CounterMetricFamily(
            "raidtop_exporter_samples", "Samples taken since the exporter started.", value=self._samples
        )
        unreadable = CounterMetricFamily(
            "raidtop_exporter_unreadable_inputs",
            "Inputs (files under /proc and /sys) that could not be read or parsed, summed over samples.",
            value=self._unreadable,
        )
        return [build, duration, stamp, samples, unreadable]

    def _error_families(self) -> list[Metric]:
        """The last two families, always: :meth:`record_error` replaces them in place."""
        errors = CounterMetricFamily(
            "raidtop_exporter_sample_errors", "Samples that failed as a whole.", value=self._errors
        )
        causes = CounterMetricFamily(
            "raidtop_exporter_errors",
            "Failures by cause: sample (reading the system), format (preparing the scrape), textfile (writing it).",
            labels=["cause"],
        )
        for cause in ERROR_CAUSES:
            causes.add_metric([cause], self._causes.get(cause, 0))
        return [errors, causes]


def md_families(snapshot: Snapshot) -> list[Metric]:
    """Every per-array and per-member family for one snapshot (no cross-sample state)."""
    fam = _Families()
    disks = disks_by_name(snapshot.disks)
    system = snapshot.raid_speed_limit
    fam.arrays.add_metric([], len(snapshot.arrays))
    for array in snapshot.arrays:
        name = array.name
        labels = [name]
        fam.info.add_metric(
            labels,
            {
                "level": array.level or "",
                "metadata": array.metadata or "",
                "uuid": array.uuid or "",
                "layout": array.layout or "",
                "bitmap": array.bitmap or "",
            },
        )
        state = array_state(array)
        for candidate in MD_STATES:
            fam.state.add_metric([name, candidate], 1.0 if candidate == state else 0.0)
        _maybe(fam.raid_disks, labels, array.raid_disks)
        _maybe(fam.degraded, labels, array.degraded)
        fam.spares.add_metric(labels, array.spare_count)
        _maybe(fam.size, labels, None if array.size_kib is None else array.size_kib * _KIB)
        _maybe(fam.mismatch, labels, array.mismatch_cnt)
        low = array.sync_speed_min if array.sync_speed_min is not None else (system.min if system else None)
        high = array.sync_speed_max if array.sync_speed_max is not None else (system.max if system else None)
        _maybe(fam.limit_min, labels, None if low is None else low * _KIB)
        _maybe(fam.limit_max, labels, None if high is None else high * _KIB)
        sync = array.sync
        if sync is not None and sync.running:
            action = [name, sync.action]
            _maybe(fam.done, action, None if sync.done_kib is None else sync.done_kib * _KIB)
            _maybe(fam.total, action, None if sync.total_kib is None else sync.total_kib * _KIB)
            _maybe(fam.speed, labels, None if sync.speed_kib_s is None else sync.speed_kib_s * _KIB)
            _maybe(fam.eta, labels, sync.eta_s)
            _maybe(fam.finish, labels, sync.eta_s_kernel)
        slow = slow_members(array, disks)
        seen: set[str] = set()
        for member in array.members:
            if member.name in seen:
                continue  # a name listed twice (a real mdstat does this) would be a duplicate series: scrape fails
            seen.add(member.name)
            who = [name, member.name]
            role = member_role(member)
            for candidate in MEMBER_ROLES:
                fam.role.add_metric(who + [candidate], 1.0 if candidate == role else 0.0)
            _maybe(fam.errors, who, member.errors)
            fam.slow.add_metric(who, 1.0 if member.name in slow else 0.0)
    if system is not None:
        _maybe(fam.system_min, [], None if system.min is None else system.min * _KIB)
        _maybe(fam.system_max, [], None if system.max is None else system.max * _KIB)
    return fam.all() + [thread_cpu(snapshot)]


def thread_cpu(snapshot: Snapshot) -> Metric:
    """CPU seconds of each md kernel thread since it started, summed per (array, thread)."""
    family = CounterMetricFamily(
        "raidtop_md_thread_cpu_seconds",
        "CPU time used by an md kernel thread (mdX_raid5, mdX_resync...).",
        labels=["array", "thread"],
    )
    raw = snapshot.raw
    if raw is None:
        return family
    seconds: dict[tuple[str, str], float] = {}
    for pid, ticks in raw.md_thread_ticks.items():
        key = raw.md_thread_names.get(pid)
        if key is not None:
            seconds[key] = seconds.get(key, 0.0) + ticks / _CLOCK_TICKS
    for (array, thread), value in sorted(seconds.items()):
        family.add_metric([array, thread], value)
    return family


def queue_info(queues: Mapping[str, QueueSettings]) -> Metric:
    """The queue tuning in force on each array and member device, as labels."""
    family = InfoMetricFamily("raidtop_block_queue", "Block queue settings in force on a device.", labels=["device"])
    for device, q in sorted(queues.items()):
        family.add_metric(
            [device],
            {
                "scheduler": q.scheduler or "",
                "read_ahead_kb": "" if q.read_ahead_kb is None else str(q.read_ahead_kb),
                "nr_requests": "" if q.nr_requests is None else str(q.nr_requests),
            },
        )
    return family


def _events_total(counts: Mapping[tuple[str, str], int]) -> Metric:
    family = CounterMetricFamily(
        "raidtop_md_events", "md events (mdadm --monitor's names) seen by this exporter.", labels=["array", "event"]
    )
    for (array, event), count in sorted(counts.items()):
        family.add_metric([array, event], count)
    return family


def _last_event(times: Mapping[tuple[str, str], float]) -> Metric:
    family = GaugeMetricFamily(
        "raidtop_md_last_event_timestamp_seconds",
        "Unix time of the last md event of each type.",
        labels=["array", "event"],
    )
    for (array, event), when in sorted(times.items()):
        family.add_metric([array, event], when)
    return family


def _maybe(family: GaugeMetricFamily, labels: list[str], value: float | None) -> None:
    # A value the source does not show is absent, never 0: PromQL then says "no data".
    if value is not None:
        family.add_metric(labels, value)


class _Families:
    """The per-snapshot families, named once."""

    def __init__(self) -> None:
        a, m = ["array"], ["array", "member"]
        self.arrays = GaugeMetricFamily("raidtop_md_arrays", "md arrays present.", labels=[])
        self.info = InfoMetricFamily("raidtop_md", "An md array's level, metadata, uuid, layout and bitmap.", labels=a)
        self.state = GaugeMetricFamily(
            "raidtop_md_state", "1 for the array's state, 0 for the others.", labels=a + ["state"]
        )
        self.raid_disks = GaugeMetricFamily("raidtop_md_raid_disks", "Slots in the array.", labels=a)
        self.degraded = GaugeMetricFamily("raidtop_md_degraded_disks", "Slots without a working device.", labels=a)
        self.spares = GaugeMetricFamily("raidtop_md_spare_disks", "Idle spares (no slot, not faulty).", labels=a)
        self.size = GaugeMetricFamily("raidtop_md_size_bytes", "Usable array size.", labels=a)
        self.mismatch = GaugeMetricFamily(
            "raidtop_md_mismatch_sectors",
            "Sectors the last check or repair found inconsistent (mismatch_cnt).",
            labels=a,
        )
        self.limit_min = GaugeMetricFamily(
            "raidtop_md_sync_speed_limit_min_bytes_per_second",
            "Sync speed floor in force per device (the array's, else the system's).",
            labels=a,
        )
        self.limit_max = GaugeMetricFamily(
            "raidtop_md_sync_speed_limit_max_bytes_per_second",
            "Sync speed ceiling in force per device (the array's, else the system's).",
            labels=a,
        )
        self.done = GaugeMetricFamily(
            "raidtop_md_sync_completed_bytes",
            "Per-device bytes the running sync has done (kernel sectors x 512).",
            labels=a + ["action"],
        )
        self.total = GaugeMetricFamily(
            "raidtop_md_sync_total_bytes",
            "Per-device bytes the running sync must do (same denominator as completed).",
            labels=a + ["action"],
        )
        self.speed = GaugeMetricFamily(
            "raidtop_md_sync_speed_bytes_per_second", "The kernel's sync_speed, per device.", labels=a
        )
        self.eta = GaugeMetricFamily("raidtop_md_sync_eta_seconds", "raidtop's smoothed time to finish.", labels=a)
        self.finish = GaugeMetricFamily(
            "raidtop_md_sync_kernel_finish_seconds", "The kernel's finish= estimate from /proc/mdstat.", labels=a
        )
        self.role = GaugeMetricFamily(
            "raidtop_md_member_role", "1 for the member's role, 0 for the others.", labels=m + ["role"]
        )
        self.errors = GaugeMetricFamily(
            "raidtop_md_member_corrected_read_errors",
            "Read errors md corrected on this member (dev-*/errors).",
            labels=m,
        )
        self.slow = GaugeMetricFamily(
            "raidtop_md_member_slow", "1 when the member's await is far above its siblings' (raidtop's rule).", labels=m
        )
        self.system_min = GaugeMetricFamily(
            "raidtop_md_system_sync_speed_limit_min_bytes_per_second", "/proc/sys/dev/raid/speed_limit_min.", labels=[]
        )
        self.system_max = GaugeMetricFamily(
            "raidtop_md_system_sync_speed_limit_max_bytes_per_second", "/proc/sys/dev/raid/speed_limit_max.", labels=[]
        )

    def all(self) -> list[Metric]:
        return list(vars(self).values())
