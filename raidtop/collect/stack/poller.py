"""When the stack is read: work per tick follows what is on screen.

A walk of ``/sys/class/block`` is not free on a host with thousands of
devices, so the stack is read every sample only while a view that shows it
(the Stack screen, an array's detail) is open. Otherwise it is read only while
an array is degraded or failed, at most every :data:`SLOW_S` seconds, for the
full-filesystem check; a healthy host with no such view open reads nothing.
"""

from __future__ import annotations

import threading
from dataclasses import replace

from raidtop.collect.source import Root
from raidtop.collect.stack.full import full_on_degraded
from raidtop.collect.stack.tree import Usage, read_stack
from raidtop.model.snapshot import Snapshot
from raidtop.model.stack import Stack

SLOW_S = 30.0
"""Seconds between reads for the full-filesystem check when no view shows the stack:
a filesystem fills in minutes, and a degraded array's state is already on screen."""


class StackPoller:
    """Reads the stack when it is wanted and attaches it to the sample."""

    def __init__(self, slow_s: float = SLOW_S, usage: Usage | None = None) -> None:
        self.slow_s = slow_s
        self._usage = usage
        self._views = 0
        self._lock = threading.Lock()  # views open and close on the UI thread; apply runs in the sampler's
        self._last: Stack | None = None
        self._at: float | None = None

    def view_opened(self) -> None:
        """A screen that shows the stack opened: read it every sample."""
        with self._lock:
            self._views += 1

    def view_closed(self) -> None:
        """That screen closed."""
        with self._lock:
            self._views = max(0, self._views - 1)

    @property
    def wanted(self) -> bool:
        """True while a view shows the stack."""
        return self._views > 0

    def apply(self, root: Root, snapshot: Snapshot) -> Snapshot:
        """``snapshot`` with the stack and its full-filesystem sentences, when they are due."""
        troubled = any(a.health in ("degraded", "failed") for a in snapshot.arrays)
        if not self.wanted and not troubled:
            self._last = self._at = None
            return snapshot
        now = snapshot.time
        if self.wanted or self._at is None or not 0 <= now - self._at < self.slow_s:
            self._last, self._at = read_stack(root, self._usage), now
        stack = self._last
        assert stack is not None
        full = tuple(full_on_degraded(stack, {a.name: a for a in snapshot.arrays}))
        return replace(snapshot, stack=stack, full_filesystems=full, notes=snapshot.notes + stack.notes)
