"""When the stack is read: work per tick follows what is on screen.

A walk of ``/sys/class/block`` is not free on a host with thousands of
devices (50 ms at 500 loop devices: about ten reads per device), so it is
done only while a view that shows the stack (the Stack screen, an array's
detail) is open, and even then the device graph is walked again only when it
may have changed: a device came or went (the list of names differs, or the
app heard a uevent and called :meth:`StackPoller.invalidate`), or
:data:`STRUCTURE_S` seconds passed. Between walks each sample asks only the
mounted filesystems' usage again, which changes from one second to the next.

With no such view open the stack is read only while an array is degraded or
failed, at most every :data:`SLOW_S` seconds, for the full-filesystem check; a
healthy host with no such view open reads nothing.
"""

from __future__ import annotations

import threading
from dataclasses import replace

from raidtop.collect.source import Root, SourceError
from raidtop.collect.stack.full import full_on_degraded
from raidtop.collect.stack.tree import Usage, device_names, read_stack, with_fresh_usage
from raidtop.model.snapshot import Snapshot
from raidtop.model.stack import Stack

SLOW_S = 30.0
"""Seconds between reads for the full-filesystem check when no view shows the stack:
a filesystem fills in minutes, and a degraded array's state is already on screen."""
STRUCTURE_S = 5.0
"""Longest an open view shows a device graph without walking it again: what changes
without a uevent or a new name (a mount, a holder) shows within this."""


class StackPoller:
    """Reads the stack when it is wanted and attaches it to the sample."""

    def __init__(self, slow_s: float = SLOW_S, usage: Usage | None = None, structure_s: float = STRUCTURE_S) -> None:
        self.slow_s = slow_s
        self.structure_s = structure_s
        self._usage = usage
        self._views = 0
        self._lock = threading.Lock()  # views open and close on the UI thread; apply runs in the sampler's
        self._last: Stack | None = None
        self._at: float | None = None
        self._names: tuple[str, ...] | None = None
        self._stale = threading.Event()  # set from the UI thread, read in the sampler's

    def view_opened(self) -> None:
        """A screen that shows the stack opened: read it every sample."""
        with self._lock:
            self._views += 1

    def view_closed(self) -> None:
        """That screen closed."""
        with self._lock:
            self._views = max(0, self._views - 1)

    def invalidate(self) -> None:
        """A block device came, went or changed (a uevent): walk the graph again at the next sample."""
        self._stale.set()

    @property
    def wanted(self) -> bool:
        """True while a view shows the stack."""
        return self._views > 0

    def apply(self, root: Root, snapshot: Snapshot) -> Snapshot:
        """``snapshot`` with the stack and its full-filesystem sentences, when they are due."""
        troubled = any(a.health in ("degraded", "failed") for a in snapshot.arrays)
        if not self.wanted and not troubled:
            self._last = self._at = self._names = None
            return snapshot
        now = snapshot.time
        if self.wanted:
            self._last = self._current(root, now)
        elif self._at is None or not 0 <= now - self._at < self.slow_s:
            self._walk(root, now)
        stack = self._last
        assert stack is not None
        full = tuple(full_on_degraded(stack, {a.name: a for a in snapshot.arrays}))
        return replace(snapshot, stack=stack, full_filesystems=full, notes=snapshot.notes + stack.notes)

    def _current(self, root: Root, now: float) -> Stack:
        """For an open view: the graph walked again when it may have changed, else fresh usage only."""
        try:
            names: tuple[str, ...] | None = device_names(root)
        except SourceError:
            names = None  # read_stack says why
        fresh_enough = self._at is not None and 0 <= now - self._at < self.structure_s
        if self._last is None or not fresh_enough or names != self._names or self._stale.is_set():
            return self._walk(root, now, names)
        return with_fresh_usage(self._last, root, self._usage)

    def _walk(self, root: Root, now: float, names: tuple[str, ...] | None = None) -> Stack:
        self._stale.clear()  # before the walk: an event during it marks the next sample again
        self._last, self._at, self._names = read_stack(root, self._usage), now, names
        return self._last
