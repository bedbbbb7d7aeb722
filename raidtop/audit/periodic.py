"""The audit for a long-running reader (the exporter, the dashboard): facts re-read at a slow pace.

The facts (bad-block logs, timeouts, caches) change rarely and cost a few
sysfs reads per member, so they are read again only every
:data:`FACTS_EVERY_S` or when the set of arrays or members changes; the
detectors, which are pure, run at every call on the newest snapshot.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from raidtop.audit.detect import audit
from raidtop.audit.facts import read_facts
from raidtop.audit.model import AuditFacts, Finding
from raidtop.collect.source import Root

FACTS_EVERY_S = 60.0


class PeriodicAudit:
    """Audit each snapshot it is given, reading the facts under ``root`` at most every ``every_s``."""

    def __init__(self, root: Root, every_s: float = FACTS_EVERY_S, clock: Callable[[], float] = time.monotonic) -> None:
        self.root = root
        self.every_s = every_s
        self._clock = clock
        self._facts: AuditFacts | None = None
        self._read_at = float("-inf")
        self._layout: tuple = ()

    def __call__(self, snap) -> tuple[Finding, ...]:
        """The findings for ``snap`` (a :class:`~raidtop.model.snapshot.Snapshot`)."""
        layout = tuple((a.name, tuple(m.name for m in a.members)) for a in snap.arrays)
        now = self._clock()
        if self._facts is None or layout != self._layout or now - self._read_at >= self.every_s:
            self._facts = read_facts(self.root, snap.arrays)
            self._layout, self._read_at = layout, now
        return audit(snap.arrays, self._facts, snap.smart, snap.rebuild_risks)

    @property
    def notes(self) -> tuple[str, ...]:
        """What the last read of the facts could not read."""
        return self._facts.notes if self._facts is not None else ()
