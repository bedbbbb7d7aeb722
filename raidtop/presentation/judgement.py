"""The judgement step wired into the readers: SMART verdicts, SmartWarning events, rebuild risks.

The readers (:mod:`raidtop.collect`) read and never import what judges, so
the callers that show or export snapshots (the app, the exporter, the
command line) build their sampler, SMART poller and replayer here: the same
readers with the judgement handed in. A reader built without it shows the
readings with every verdict ``unknown`` and no SmartWarning or rebuild risk.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from raidtop.collect.sampler import Sampler
from raidtop.collect.smart.poller import SmartPoller, poller_for
from raidtop.collect.source import Root
from raidtop.presentation.smart_events import HealthTracker
from raidtop.presentation.smart_rules import judge

if TYPE_CHECKING:
    from raidtop.collect.recording.replayer import Replayer
    from raidtop.collect.recording.roots import Recording


def judged_sampler(root: Root | str | os.PathLike[str] = "/", **options: Any) -> Sampler:
    """A :class:`~raidtop.collect.sampler.Sampler` whose snapshots carry SmartWarning events and rebuild risks."""
    return Sampler(root, judgement=HealthTracker(), **options)


def smart_poller(root: object, interval: float, start_delay: float = 0.0) -> SmartPoller | None:
    """:func:`~raidtop.collect.smart.poller.poller_for` with the verdict rules of :mod:`.smart_rules`."""
    return poller_for(root, interval, judge=judge, start_delay=start_delay)


def judged_replayer(recording: Recording) -> Replayer:
    """A :class:`~raidtop.collect.recording.replayer.Replayer` over judged samplers, as the live run sampled."""
    # Imported here: the recording reader costs the dashboard's first frame nothing unless it replays.
    from raidtop.collect.recording.replayer import Replayer

    return Replayer(recording, sampler=judged_sampler)
