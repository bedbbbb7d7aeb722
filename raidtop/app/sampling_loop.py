"""The app's one sampler worker, and what wakes it: device events and the keys that change the interval."""

from __future__ import annotations

import asyncio
import time

from textual import work

from raidtop.presentation.judgement import judged_sampler
from raidtop.collect.udev_watch import BlockDeviceWatcher
from raidtop.app.messages import DeviceEvent, SnapshotReady
from raidtop.model.snapshot import Snapshot


class SamplingLoop:
    """Mixed into RaidtopApp: sample, post the snapshot, sleep the rest of the interval.

    Expects from the app: ``sampler``, ``interval``, ``paused``, ``_wake`` (an
    asyncio.Event), ``_threads`` (the executor), ``demo``, ``session_recorder``.
    """

    show_processes = False
    """The Processes panel is shown: read every process's I/O each sample."""
    units_wanted_by: frozenset[str] = frozenset()
    """What shows per-device attribution now ("detail", "members"): read the cgroup tree while any does."""
    device_events_seen = 0
    device_events_note = "device events not watched"

    @work(exclusive=True, group="sampler", exit_on_error=False)
    async def run_sampler(self) -> None:
        """Sample, post, sleep the rest of the interval; never two at once.

        The blocking reads run in a daemon thread; awaiting them inside this
        one long-lived worker is what keeps collections from overlapping.
        """
        while True:
            started = time.monotonic()
            if not self.paused:
                try:
                    snapshot = await asyncio.get_running_loop().run_in_executor(self._threads, self._sample_once)
                except Exception as exc:  # noqa: BLE001 - a bug in a reader must not stop the dashboard
                    self.notify(f"sampling failed: {exc!r}", severity="error", timeout=10)
                else:
                    self.post_message(SnapshotReady(snapshot))
            self._wake.clear()
            remaining = self.interval - (time.monotonic() - started)
            if remaining > 0:
                try:
                    await asyncio.wait_for(self._wake.wait(), timeout=remaining)
                except TimeoutError:
                    pass

    def _sample_once(self) -> Snapshot:
        """One sample (in the worker thread), stored too while recording."""
        if self.demo is not None:
            if self._demo_reset_asked:
                # Here, in the sampler's own thread, so no sample sees half a reset; a
                # fresh Sampler, because the counters start over (not "went backwards").
                self._demo_reset_asked = False
                self.demo.reset()
                self.sampler = judged_sampler(self.demo.root)
            self.demo.tick()
        # Work follows the screen: /proc and the cgroup tree only while something shows them.
        watch = self.sampler.processes
        watch.want_processes = self.show_processes
        watch.want_units = bool(self.units_wanted_by)
        snapshot = self.sampler.sample()
        self.session_recorder.add_frame(snapshot)
        return snapshot

    def sample_now(self) -> None:
        """Cut the current wait short (a device event, an interval change)."""
        self._wake.set()

    def _start_in_background(self) -> None:
        """What the first frame need not wait for (a thread): the uevent watcher.

        Importing the tuning package and pyudev on the event loop held the
        first frame back by up to 0.3 s on a loaded machine (perf/RESULTS.md).
        """
        self._watcher = BlockDeviceWatcher(self.sampler.root, self._device_event_from_thread)
        reason = self._watcher.start()
        self.device_events_note = reason or f"watching {self._watcher.source} block device events"
        # No tuning baseline here: the session records each knob's value the
        # first time it reads it, which is before raidtop writes it (fio
        # sweeps and the Tuning screen both write through the session).
        # Reading every knob at start cost 0.19 CPU s at 500 devices (issue 14).

    def _device_event_from_thread(self, action: str, device: str) -> None:
        # pyudev calls from its own thread; post_message is the thread-safe way in.
        self.post_message(DeviceEvent(action, device))

    def on_device_event(self, message: DeviceEvent) -> None:
        self.device_events_seen += 1
        self.sample_now()
