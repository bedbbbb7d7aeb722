"""The app's one sampler worker, and what wakes it: device events and the keys that change the interval."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from concurrent.futures import Executor
from functools import partial
from typing import TYPE_CHECKING

from textual.app import App
from textual.message import Message

from raidtop.app.messages import DeviceEvent, SamplingFailed, SnapshotReady
from raidtop.config import Config, md_expected_members, next_interval
from raidtop.live.state import LiveState
from raidtop.model.md import MdEvent
from raidtop.model.snapshot import Snapshot

if TYPE_CHECKING:
    # The demo is imported only when asked for, the readers only when the first
    # sample is taken (in the sampler's thread): each import delays the first frame.
    from raidtop.collect.sampler import Sampler
    from raidtop.collect.udev_watch import BlockDeviceWatcher
    from raidtop.demo.controller import DemoController


def sampler_for(config: Config, demo: DemoController | None) -> tuple[Callable[[], Sampler], list[str]]:
    """What makes the sampler ``config`` asks for (the demo's root when there is a demo), and notes on the md config.

    The sampler is made when first used, normally in the sampler's thread after
    the first frame: its readers' imports are a third of raidtop's start-up.
    """
    if demo is not None:
        root = demo.root
        return partial(_judged_sampler, root), []
    # SMART only for the live system, when the app samples it (tests feed snapshots by hand).
    live = config.replay is None and config.autostart_sampler
    # Thousands of devices: their udev/model/serial walk is spread over the first ticks.
    expected, notes = md_expected_members() if live else ({}, [])

    def make() -> Sampler:
        from raidtop.collect.smart.poller import START_DELAY_S
        from raidtop.presentation.judgement import judged_sampler, smart_poller

        return judged_sampler(
            config.root,
            identify_per_sample=256,
            smart=smart_poller(config.root, config.smart_interval if live else 0.0, start_delay=START_DELAY_S),
            md_expected_members=expected,
        )

    return make, notes


def _judged_sampler(root) -> Sampler:
    from raidtop.presentation.judgement import judged_sampler

    return judged_sampler(root)


DEVICE_EVENT_GAP_S = 0.5
"""Least time between samples that device events (not keys, not the interval) ask for."""


class Sampling:
    """Samples, posts each snapshot to the app, sleeps the rest of the interval; never two at once.

    Owned by the app; it runs as the app's exclusive "sampler" worker (a replay
    takes that group instead, so the two can never both post snapshots).

    Args:
        app: the app whose worker this is and to which snapshots are posted.
        sampler: reads the system (or the demo's root).
        interval: seconds between samples.
        live: the live state, whose wants (processes, units) each sample follows.
        frame_sink: called in the sampler thread with every snapshot (the recorder's).
        demo: the demo's controller, ticked (and reset when asked) before each sample.
    """

    def __init__(
        self,
        app: App[None],
        sampler: Sampler | Callable[[], Sampler],
        interval: float,
        live: LiveState,
        frame_sink: Callable[[Snapshot], None],
        demo: DemoController | None = None,
    ) -> None:
        self._app = app
        self._sampler: Sampler | None = None
        self._make_sampler: Callable[[], Sampler] | None = None
        if callable(sampler) and not hasattr(sampler, "sample"):
            self._make_sampler = sampler
        else:
            self._sampler = sampler  # type: ignore[assignment]  # a Sampler, not its maker
        self._making = threading.Lock()
        self.interval = interval
        self.paused = False
        self._live = live
        self._frame_sink = frame_sink
        self.demo = demo
        self._wake = asyncio.Event()
        self._demo_reset_asked = False
        self._woken_by_device = False
        self.executor: Executor | None = None
        """Where the blocking reads run (the app's daemon executor, set on mount)."""
        self.watcher: BlockDeviceWatcher | None = None
        self.device_events_seen = 0
        self.device_events_note = "device events not watched"

    @property
    def sampler(self) -> Sampler:
        """The sampler, made on first use (normally by the first sample, in the sampler's thread)."""
        sampler = self._sampler
        if sampler is None:
            with self._making:  # the UI thread may ask while the first sample makes it
                if self._sampler is None:
                    assert self._make_sampler is not None
                    self._sampler = self._make_sampler()
                sampler = self._sampler
        return sampler

    @sampler.setter
    def sampler(self, sampler: Sampler) -> None:
        self._sampler = sampler

    @property
    def wake(self) -> asyncio.Event:
        """Set to cut the current wait short (a replay waits on it too)."""
        return self._wake

    def start(self) -> None:
        """Run the sampling loop as the app's exclusive "sampler" worker."""
        self._app.run_worker(self._loop(), exclusive=True, group="sampler", exit_on_error=False)

    async def _loop(self) -> None:
        # The blocking reads run in a daemon thread; awaiting them inside this
        # one long-lived worker is what keeps collections from overlapping.
        while True:
            started = time.monotonic()
            if not self.paused:
                try:
                    snapshot = await asyncio.get_running_loop().run_in_executor(self.executor, self.sample_once)
                except Exception as exc:  # noqa: BLE001  a bug in a reader must not stop the dashboard
                    self._app.post_message(SamplingFailed(f"sampling failed: {exc!r}"))
                else:
                    self._app.post_message(SnapshotReady(snapshot))
            self._wake.clear()
            remaining = self.interval - (time.monotonic() - started)
            if remaining > 0:
                try:
                    await asyncio.wait_for(self._wake.wait(), timeout=remaining)
                except TimeoutError:
                    pass
            if self._woken_by_device:
                # A storm of uevents (1500 loop devices going) had it sample back to back at
                # half a core and more: at most one sample per gap follows devices.
                self._woken_by_device = False
                rest = min(self.interval, DEVICE_EVENT_GAP_S) - (time.monotonic() - started)
                if rest > 0:
                    await asyncio.sleep(rest)

    def sample_once(self) -> Snapshot:
        """One sample (in the worker thread), handed to the frame sink too."""
        reset = False
        if self.demo is not None:
            if self._demo_reset_asked:
                reset = True
                # Here, in the sampler's own thread, so no sample sees half a reset; a
                # fresh Sampler, because the counters start over (not "went backwards").
                self._demo_reset_asked = False
                self.demo.reset()
                self.sampler = _judged_sampler(self.demo.root)
            self.demo.tick()
        # Work follows the screen: /proc and the cgroup tree only while something shows them.
        watch = self.sampler.processes
        watch.want_processes = self._live.show_processes
        watch.want_units = bool(self._live.units_wanted_by)
        snapshot = self.sampler.sample()
        if reset and self.demo is not None:
            # The timeline keeps the run before: this mark says where it ended.
            mark = MdEvent(
                snapshot.time, self.demo.sim.name, "DemoReset", detail="the events before it are the run before"
            )
            snapshot = replace(snapshot, events=(mark, *snapshot.events))
        self._frame_sink(snapshot)
        return snapshot

    def sample_now(self) -> None:
        """Cut the current wait short (a key: an interval change, a pause ended)."""
        self._woken_by_device = False
        self._wake.set()

    def ask_demo_reset(self) -> None:
        """Put the demo back to its start at the next sample (in the sampler's thread)."""
        self._demo_reset_asked = True
        self.sample_now()

    def toggle_pause(self) -> None:
        """Stop or resume sampling."""
        self.paused = not self.paused
        if not self.paused:
            self.sample_now()

    def change_interval(self, direction: int) -> None:
        """Lengthen (+1) or shorten (-1) the interval, and sample at once."""
        self.interval = next_interval(self.interval, direction)
        self.sample_now()

    def watch_devices(self, post: Callable[[Message], object]) -> None:
        """Start the uevent watcher (in a thread: pyudev's import and start are not for the event loop).

        ``post`` is the thread-safe way in (``App.post_message``); each event becomes a :class:`DeviceEvent`.
        """

        def heard(action: str, device: str) -> None:
            # pyudev calls from its own thread.
            post(DeviceEvent(action, device))

        from raidtop.collect.udev_watch import BlockDeviceWatcher

        self.watcher = BlockDeviceWatcher(self.sampler.root, heard)
        reason = self.watcher.start()
        self.device_events_note = reason or f"watching {self.watcher.source} block device events"

    def device_event(self) -> None:
        """A block device came, went or changed: count it, have an open stack view walk it again, sample soon.

        Soon: now, unless a sample began less than :data:`DEVICE_EVENT_GAP_S` ago.
        """
        self.device_events_seen += 1
        if self._sampler is not None:
            self._sampler.stack.invalidate()
        if not self._wake.is_set():  # a key's sample already asked for is not held back
            self._woken_by_device = True
            self._wake.set()

    def stop(self) -> None:
        """Stop the watcher and the SMART poller (on the way out)."""
        if self.watcher is not None:
            self.watcher.stop()
        sampler = self._sampler  # never made: nothing to stop
        if sampler is not None and sampler.smart is not None:
            sampler.smart.stop()
