"""The app's live state: what raidtop last read, what came before, where a replay is, what is shown.

No Textual, no I/O. The app owns one :class:`LiveState` and hands it to the
dashboard; every other screen reads it through the app (``live_state``), never
through another screen's attributes or widgets. The sampler reads back what
the screens want read (processes, cgroup units), so work follows the screen.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from raidtop.live.history import History
from raidtop.live.latency_history import LatencyHistory
from raidtop.live.replay_position import ReplayPosition
from raidtop.model.md import MdEvent
from raidtop.model.snapshot import Snapshot


@dataclass
class LiveState:
    """The latest snapshot, its history and events, and the replay's position.

    Attributes:
        latest: the snapshot on screen, ``None`` before the first one.
        history: rings of recent values and every md event of the session.
        replay: where ``--replay`` is and how fast it plays; ``None`` when live.
        simulated: the numbers come from ``--demo``'s simulation (no key may act on the machine).
        show_processes: the Processes panel is shown: read every process's I/O each sample.
        units_wanted_by: what shows per-device attribution now ("detail", "members"): read the cgroup tree.
        latency: recent latency histograms per device, while a latency view has the tracer running.
    """

    latest: Snapshot | None = None
    history: History = field(default_factory=History)
    replay: ReplayPosition | None = None
    simulated: bool = False
    show_processes: bool = False
    units_wanted_by: frozenset[str] = frozenset()
    latency: LatencyHistory = field(default_factory=LatencyHistory)

    def add(self, snapshot: Snapshot) -> frozenset[str]:
        """Make ``snapshot`` the latest and add it to the history; the degraded alerts of the one before."""
        previous = self.latest.degraded_alerts if self.latest is not None else frozenset()
        self.latest = snapshot
        self.history.add(snapshot)
        return previous

    def set_events(self, events: list[MdEvent]) -> None:
        """Replace the event list (a replay's events follow its position, not the path to it)."""
        self.history.set_events(events)

    def want_units(self, who: str, wanted: bool) -> None:
        """``who`` ("detail", "members") shows per-device attribution now (or no longer)."""
        self.units_wanted_by = self.units_wanted_by | {who} if wanted else self.units_wanted_by - {who}
