"""Run the exporter: a sampling thread, the HTTP endpoint, the textfile writer.

Sampling runs on its own timer in a daemon thread; each sample rebuilds the
families (:class:`~raidtop.exporter.metrics.MdMetrics`), formats the ones that
changed and publishes the bytes (:mod:`raidtop.exporter.exposition`), so a
scrape costs a lock and a socket write, however slow sysfs is and however many
arrays there are. The HTTP server is prometheus-client's own
(``start_http_server``), with its TLS options; nothing here writes anywhere
but the textfile the user named.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from prometheus_client import CollectorRegistry
from prometheus_client.process_collector import ProcessCollector

from raidtop.model.disk_columns import disks_by_name
from raidtop.collect.queue_settings import QueueSettings, read_queue_settings
from raidtop.collect.recording.roots import Recording
from raidtop.audit.periodic import PeriodicAudit
from raidtop.collect.smart.poller import START_DELAY_S
from raidtop.exporter.exposition import CachedExposition, FamilyFormatter
from raidtop.config import md_expected_members
from raidtop.exporter.metrics import MdMetrics
from raidtop.model.snapshot import Snapshot
from raidtop.presentation.judgement import judged_replayer, judged_sampler, smart_poller
from raidtop.safeio import atomic_write
from raidtop.untrusted import plain

TEXTFILE_NAME = "raidtop.prom"
"""The file written into ``--textfile DIR``; node_exporter reads ``*.prom`` only."""
QUEUE_EVERY_S = 30.0
"""Queue settings change only when someone tunes: read them this often, not every sample."""


class LiveSource:
    """Snapshots of a root (``/`` or ``--root DIR``), one per call."""

    def __init__(self, root: str | os.PathLike[str], smart_interval: float = 0.0) -> None:
        # SMART in its own thread: a slow smartctl never delays a sample or a scrape.
        expected, notes = md_expected_members()
        for note in notes:
            print(f"raidtop exporter: {note}", file=sys.stderr)
        self.sampler = judged_sampler(
            root, smart=smart_poller(root, smart_interval, start_delay=START_DELAY_S), md_expected_members=expected
        )
        # Who loads each array: the cgroup tree only (no /proc walk), for raidtop_md_cgroup_*.
        self.sampler.processes.want_units = True
        self.root = self.sampler.root
        self._queues: dict[str, QueueSettings] = {}
        self._queues_read_at = float("-inf")
        self._queue_devices: tuple[str, ...] = ()

    def __call__(self) -> Snapshot:
        """Sample now."""
        return self.sampler.sample()

    def queues(self, snapshot: Snapshot) -> dict[str, QueueSettings]:
        """Queue settings of every array and member device, re-read every :data:`QUEUE_EVERY_S`."""
        devices = _queue_devices(snapshot)
        now = time.monotonic()
        if devices != self._queue_devices or now - self._queues_read_at >= QUEUE_EVERY_S:
            self._queues = {d: read_queue_settings(self.root, d) for d in devices}
            self._queue_devices, self._queues_read_at = devices, now
        return self._queues


class ReplaySource:
    """Snapshots of a recording, advancing with the wall clock × ``speed``; the last frame then holds."""

    def __init__(self, recording: Recording, speed: float = 1.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.replayer = judged_replayer(recording)
        self.root = self.replayer.root
        self._speed = speed
        self._clock = clock
        self._started = clock()
        self._last: Snapshot | None = None
        self._times = [frame.time for frame in recording.frames]

    def __call__(self) -> Snapshot:
        """The snapshot of the frame due now; frames in between are stepped through, so no event is lost."""
        if not self._times:
            raise IndexError("the recording has no frames")
        due = self._times[0] + (self._clock() - self._started) * self._speed
        target = max(0, bisect_right(self._times, due) - 1)
        if self._last is not None and target <= self.replayer.index:
            return replace(self._last, events=())  # nothing new yet: the same state, no event twice
        events: list = []
        snapshot = self._last
        while self.replayer.index < target:
            snapshot = self.replayer.snapshot_at(self.replayer.index + 1)
            events.extend(snapshot.events)
        assert snapshot is not None  # the replayer starts before frame 0, so the first call steps at least once
        self._last = replace(snapshot, events=tuple(events))
        return self._last

    def queues(self, snapshot: Snapshot) -> dict[str, QueueSettings]:
        """Recordings keep no queue settings."""
        return {}


def _queue_devices(snapshot: Snapshot) -> tuple[str, ...]:
    disks = disks_by_name(snapshot.disks)
    names = set()
    for array in snapshot.arrays:
        names.add(array.name)
        for member in array.members:
            # A partition's queue is its disk's: /sys/block/sdb1 does not exist.
            disk = disks.get(member.name)
            names.add((disk.parent if disk is not None else None) or member.name)
    return tuple(sorted(names))


class Exporter:
    """Owns the metrics and the sampling thread."""

    def __init__(
        self, source, interval_s: float, textfile_dir: Path | None = None, clock: Callable[[], float] = time.time
    ) -> None:
        self.source = source
        self.interval_s = interval_s
        self.textfile_dir = textfile_dir
        self.metrics = MdMetrics()
        self.registry = CollectorRegistry(auto_describe=False)
        self.registry.register(self.metrics)
        self.exposition = CachedExposition()
        self._formatter = FamilyFormatter()
        self._process_formatter = FamilyFormatter()
        self._process: ProcessCollector | None = None
        self._md_text = b""
        self._clock = clock
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.first_sample = threading.Event()
        self.failing: dict[str, str] = {}
        """cause -> the sentence of a failure that has not gone away yet."""
        self._logged: dict[str, str] = {}
        root = getattr(source, "root", None)
        # The audit reads its facts under the source's root (a recording's or the demo's too).
        self._audit = PeriodicAudit(root) if root is not None else (lambda snapshot: ())

    def sample_once(self) -> None:
        """Take one sample and publish it (and write the textfile when asked); never raises.

        A failure is counted by cause, logged once until that cause goes
        away, and tried again at the next interval: the endpoint keeps the
        last good families and the textfile reappears once it can be written.
        """
        start = time.perf_counter()
        try:
            snapshot = self.source()
            queues = self.source.queues(snapshot)
            findings = self._audit(snapshot)
        except Exception as exc:  # noqa: BLE001 - a daemon reports and keeps its last good sample
            self._failed("sample", f"sample failed: {type(exc).__name__}: {exc}")
            return
        self._recovered("sample", "sampling works again")
        try:
            self.metrics.update(snapshot, time.perf_counter() - start, self._clock(), queues, findings)
            self._publish()
        except Exception as exc:  # noqa: BLE001 - the last published bytes stay served
            self._failed("format", f"cannot prepare the scrape: {type(exc).__name__}: {exc}")
            return
        self._recovered("format", "the scrape is prepared again")
        self.first_sample.set()
        if self.textfile_dir is not None:
            try:
                self.write_textfile(self.textfile_dir)
            except OSError as exc:
                where = self.textfile_dir / TEXTFILE_NAME
                self._failed("textfile", f"cannot write {where}: {exc.strerror or exc}")
            else:
                self._recovered("textfile", f"{self.textfile_dir / TEXTFILE_NAME} written again")

    def _failed(self, cause: str, sentence: str) -> None:
        self.failing[cause] = sentence
        self.metrics.record_error(cause)
        try:
            self._publish()
        except Exception:  # noqa: BLE001 - the count shows at the next good sample
            pass
        if self._logged.get(cause) != sentence:
            self._logged[cause] = sentence
            self._log(
                f"{sentence} (counted in raidtop_exporter_errors_total{{cause=\"{cause}\"}}; "
                f"retried every {self.interval_s:g} s, said once)"
            )

    def _recovered(self, cause: str, sentence: str) -> None:
        self.failing.pop(cause, None)
        if self._logged.pop(cause, None) is not None:
            self._log(sentence)

    @staticmethod
    def _log(sentence: str) -> None:
        print(f"raidtop exporter: {plain(sentence, multiline=True)}", file=sys.stderr, flush=True)

    def _publish(self) -> None:
        """Format what changed and hand the bytes to the HTTP threads (the only formatting there is)."""
        self._md_text = self._formatter.format(self.metrics.collect())
        if self._process is None:
            self.exposition.publish(self._md_text)
            return
        # Process metrics are read here too, once per sample: a scrape touches no file at all.
        self.exposition.publish(self._md_text + self._process_formatter.format(self._process.collect()))

    def write_textfile(self, directory: Path) -> Path:
        """Replace ``directory/raidtop.prom`` atomically with the md families (no process metrics)."""
        return atomic_write(directory / TEXTFILE_NAME, self._md_text, 0o644)

    def start(self) -> None:
        """Start sampling every ``interval_s`` in a daemon thread."""
        self._thread = threading.Thread(target=self._loop, name="raidtop-exporter-sampler", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Ask the sampling thread to end after its current sample."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)

    def _loop(self) -> None:
        next_at = time.monotonic()
        while not self._stop.is_set():
            try:
                self.sample_once()
            except Exception as exc:  # noqa: BLE001 - the thread must outlive any one sample
                self._failed("sample", f"sample failed: {type(exc).__name__}: {exc}")
            # A fixed cadence; a sample slower than the interval starts the next at once, never two at a time.
            next_at = max(next_at + self.interval_s, time.monotonic())
            self._stop.wait(next_at - time.monotonic())

    def add_process_metrics(self) -> None:
        """Add the exporter's own CPU and memory (``process_*``) to the HTTP output, from the next sample on."""
        self._process = ProcessCollector(registry=self.registry)
        self._publish()
