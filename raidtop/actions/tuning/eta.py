"""What a speed-limit change does to a running resync or rebuild: predicted, then observed.

The model
---------
md keeps each array's sync rate (per device, KiB/s) between two limits: the
array's ``sync_speed_min``/``_max``, or the system's ``speed_limit_min``/
``_max`` where the array has none of its own. md_do_sync never pauses below
the minimum, always pauses above the maximum, and in between pauses only while
the array has other I/O. The disks themselves cap the rate at some capacity.

From one observed rate ``s`` and the limits in force we can tell which of
three things sets the pace, and so what a new limit does:

* **held at the maximum** (``s`` ≥ 90 % of the max): the limit is the
  bottleneck; the new rate is the new ceiling. Raising it is *optimistic*:
  the disks may not keep up, so the ETA is a best case.
* **held near the minimum** (``s`` within 10 % of the min, well below the max):
  md yields to other I/O; the new rate is the new minimum (optimistic when
  raised, the disks may be busy).
* **otherwise the disks set the pace**: the rate stays ``s`` unless the new
  ceiling is lower.

The ceiling is max(new min, new max), because md does not pause below its
minimum even if that is above the maximum. The predicted ETA is not
remaining / rate: md measures its speed over a ~30 s window, so after a
lower limit it stalls until the fast progress has left the window, and
after a higher one it bursts at the disks' speed until the window is full.
The ETA runs that rule forward with the same function raidtop's running ETA
uses (:func:`raidtop.collect.md.eta.project_finish`), from the array's recent
progress; the disks' capacity is unknown (unlimited) whenever a limit, not
the disks, held the observed rate. Its uncertainty (``eta_range_s``) spans
the phase of md's 3 s marks (±1.5 s) and, for a raise, disks no faster than now.

Observing the effect
--------------------
md's ``sync_speed`` averages over up to 30 s (ten marks three seconds apart,
SYNC_MARKS × SYNC_MARK_STEP), so after a change the observed rate needs about
:data:`SETTLE_S` seconds to show it fully; :class:`EffectTracker` records the
rate before and every sample after, and says when it is still settling.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from collections.abc import Callable, Iterable

from raidtop.model.frozen import frozen_dataclass
from raidtop.actions.tuning.knobs import GLOBAL_TARGET, Knob
from raidtop.collect.md.eta import PHASE_RANGE_S
from raidtop.collect.md.marks import WINDOW_S
from raidtop.collect.md.throttle import project_finish
from raidtop.model.snapshot import Snapshot
from raidtop.model.md import MdArray
from raidtop.model.units import duration

SETTLE_S = 30.0
"""Seconds md's sync_speed window needs to reflect a new limit."""
NEAR_MAX = 0.9
NEAR_MIN = 1.1


@frozen_dataclass
class Limits:
    """The sync limits in force for one array, KiB/s per device."""

    min: int
    max: int


@frozen_dataclass
class ArrayLimits:
    """An array's own limits (``None`` = follows the system value) and the system's."""

    local_min: int | None
    local_max: int | None
    system_min: int
    system_max: int

    @property
    def effective(self) -> Limits:
        """What md uses now."""
        return Limits(self.local_min or self.system_min, self.local_max or self.system_max)

    def with_change(self, attr: str, value: str) -> ArrayLimits:
        """The limits after writing ``value`` to ``attr`` (array or global knob)."""
        number = None if value == "system" else int(value)
        if attr == "sync_speed_min":
            return ArrayLimits(number, self.local_max, self.system_min, self.system_max)
        if attr == "sync_speed_max":
            return ArrayLimits(self.local_min, number, self.system_min, self.system_max)
        if attr == "speed_limit_min" and number is not None:
            return ArrayLimits(self.local_min, self.local_max, number, self.system_max)
        if attr == "speed_limit_max" and number is not None:
            return ArrayLimits(self.local_min, self.local_max, self.system_min, number)
        return self


def array_limits(knobs_of: Callable[[str], list[Knob]], arrays: Iterable[str]) -> dict[str, ArrayLimits]:
    """Each array's own sync limits and the system's, as md applies them now.

    ``knobs_of`` reads a target's knobs (``[]`` when it has none). Without
    /proc/sys/dev/raid (a copied tree), the system value is taken from an
    array that follows it, else the kernel defaults (1000 and 200000).
    """
    per_array: dict[str, dict[str, Knob]] = {}
    for name in arrays:
        knobs = {k.attr: k for k in knobs_of(name) if k.attr in ("sync_speed_min", "sync_speed_max")}
        if len(knobs) == 2:
            per_array[name] = knobs
    system = {k.attr: k.effective for k in knobs_of(GLOBAL_TARGET)}
    for attr, default, local in (
        ("speed_limit_min", 1000, "sync_speed_min"),
        ("speed_limit_max", 200000, "sync_speed_max"),
    ):
        if system.get(attr) is None:
            follower = next((k[local].effective for k in per_array.values() if k[local].value == "system"), None)
            system[attr] = follower if follower is not None else default
    limits = {}
    for name, knobs in per_array.items():
        low, high = knobs["sync_speed_min"], knobs["sync_speed_max"]
        limits[name] = ArrayLimits(
            None if low.value == "system" else low.effective,
            None if high.value == "system" else high.effective,
            int(system["speed_limit_min"] or 0),
            int(system["speed_limit_max"] or 0),
        )
    return limits


@frozen_dataclass
class EtaPrediction:
    """The predicted rate and ETA of one array's sync after a limit change."""

    array: str
    action: str
    remaining_kib: int
    observed_kib_s: float
    predicted_kib_s: float
    eta_s: float | None
    current_eta_s: float | None
    basis: str
    """Which of the model's three cases applied, in words."""
    optimistic: bool
    """True when the prediction assumes the disks can go faster than observed."""
    eta_range_s: tuple[float, float] | None = None
    """Shortest and longest ETA the model allows: the phase of md's 3 s marks and the disks' unknown speed."""

    @property
    def uncertainty(self) -> str:
        """The range in words, e.g. "between 15s and 30s"; "" when it is under a second wide."""
        if self.eta_range_s is None or self.eta_range_s[1] - self.eta_range_s[0] < 1.0:
            return ""
        low, high = self.eta_range_s
        return f"between {duration(low)} and {duration(high)}"


def predict_eta(
    array: str,
    action: str,
    remaining_kib: int,
    observed_kib_s: float,
    old: Limits,
    new: Limits,
    current_eta_s: float | None = None,
    history: tuple[tuple[float, int], ...] = (),
    capacity_kib_s: float | None = None,
) -> EtaPrediction:
    """Predict the rate and ETA after the limits change from ``old`` to ``new`` (see the module doc).

    The rate is the steady one the model's case gives; the ETA runs md's own
    window throttle forward from ``history`` (``(time, done_kib)``, as
    :attr:`MdSync.recent` holds it), as raidtop's running ETA does
    (:func:`raidtop.collect.md.eta.project_finish`), so a lowered limit
    includes md's stall and a raised one its burst. Without history the past
    is taken as ``observed_kib_s`` (md's window average) throughout.
    """
    ceiling = max(new.max, new.min)
    capacity: float | None
    if observed_kib_s >= NEAR_MAX * old.max:
        rate = float(ceiling)
        optimistic = rate > observed_kib_s
        capacity = capacity_kib_s  # unknown while md held it back: the limit sets the pace
        basis = "md holds the sync at its maximum; the new limit sets the pace"
        if optimistic:
            basis += " if the disks keep up"
    elif old.min > 0 and NEAR_MAX * old.min <= observed_kib_s <= NEAR_MIN * old.min:
        # Below the minimum md never pauses (the disks are slow); near it, md is yielding.
        rate = float(new.min) if new.min > 0 else observed_kib_s
        optimistic = rate > observed_kib_s
        capacity = rate
        basis = "md yields to other I/O down to its minimum; the new minimum sets the pace"
    else:
        rate = min(observed_kib_s, float(ceiling))
        optimistic = False
        capacity = observed_kib_s
        basis = (
            "the disks set the pace (running below the limit)"
            if rate == observed_kib_s
            else "the new maximum is below the observed rate"
        )
    if current_eta_s is None and observed_kib_s > 0:
        current_eta_s = remaining_kib / observed_kib_s
    eta: float | None = None
    span: tuple[float, float] | None = None
    if rate > 0:
        etas = [
            _model_eta(history, remaining_kib, observed_kib_s, ceiling, capacity, phase)
            for phase in (0.0, *PHASE_RANGE_S)
        ]
        if optimistic and observed_kib_s > 0:
            # The disks may be no faster than now: the slow end of the range.
            etas.append(_model_eta(history, remaining_kib, observed_kib_s, ceiling, observed_kib_s, 0.0))
        known = [e for e in etas if e is not None]
        if known:
            eta, span = known[0], (min(known), max(known))
    return EtaPrediction(
        array,
        action,
        remaining_kib,
        observed_kib_s,
        rate,
        eta,
        current_eta_s,
        basis,
        optimistic,
        span,
    )


def _model_eta(
    history: tuple[tuple[float, int], ...],
    remaining: int,
    observed: float,
    limit: float,
    capacity: float | None,
    phase: float,
) -> float | None:
    if history:
        points = [(float(t), float(d)) for t, d in history]
    else:
        points = [(0.0, observed * 10 * WINDOW_S)]  # a long past at the observed rate
    span = points[-1][0] - points[0][0]
    back = observed if span < WINDOW_S else None
    return project_finish(points, points[-1][1] + remaining, limit, capacity, back, phase)


def remaining_kib(array: MdArray) -> int | None:
    """KiB (per device) the running sync still has to cover."""
    sync = array.sync
    if sync is None or not sync.running or sync.done_kib is None or sync.total_kib is None:
        return None
    return max(0, sync.total_kib - sync.done_kib)


def predictions_for_change(
    arrays: Iterable[MdArray], limits: dict[str, ArrayLimits], target: str, attr: str, value: str
) -> list[EtaPrediction]:
    """Predictions for every running sync a change of ``attr`` on ``target`` would move.

    ``limits`` maps array names to their :class:`ArrayLimits`; an array
    missing from it is skipped. A global change moves only arrays that follow
    the system value; an array change moves only that array.
    """
    predictions = []
    for array in arrays:
        if array.name not in limits or array.sync is None:
            continue
        if attr.startswith("sync_speed") and array.name != target:
            continue
        remaining = remaining_kib(array)
        speed = array.sync.speed_kib_s
        if remaining is None or not speed:
            continue
        before = limits[array.name]
        after = before.with_change(attr, value)
        if after.effective == before.effective:
            continue  # the array keeps its own limit: a global change does not reach it
        eta_now = array.sync.eta_s if array.sync.eta_s is not None else array.sync.eta_s_kernel
        predictions.append(
            predict_eta(
                array.name,
                array.sync.action,
                remaining,
                float(speed),
                before.effective,
                after.effective,
                eta_now,
                array.sync.recent,
                array.sync.capacity_kib_s,
            )
        )
    return predictions


@dataclass
class ObservedEffect:
    """One array's sync rate before a limit change and every sample after it."""

    array: str
    target: str
    attr: str
    value: str
    time: float
    before_kib_s: float
    predicted_kib_s: float | None
    after: deque[tuple[float, float]] = field(default_factory=lambda: deque(maxlen=120))

    @property
    def latest_kib_s(self) -> float | None:
        """The most recent rate seen after the change."""
        return self.after[-1][1] if self.after else None

    @property
    def settling(self) -> bool:
        """True until md's averaging window has passed since the change."""
        return not self.after or self.after[-1][0] - self.time < SETTLE_S

    def summary(self, fmt=lambda v: f"{v:.0f} KiB/s") -> str:
        """One line: rate before → after (predicted), and whether it is still settling."""
        if not self.after:
            return (
                f"{self.array}: {fmt(self.before_kib_s)} before {self.attr}={self.value}; waiting for the next sample"
            )
        elapsed = self.after[-1][0] - self.time
        predicted = f", predicted {fmt(self.predicted_kib_s)}" if self.predicted_kib_s is not None else ""
        state = f" (settling: md averages over ~{SETTLE_S:.0f} s)" if self.settling else ""
        return (
            f"{self.array}: {fmt(self.before_kib_s)} before {self.attr}={self.value} → "
            f"{fmt(self.after[-1][1])} {elapsed:.0f} s after{predicted}{state}"
        )


class EffectTracker:
    """Follows the sync rate of arrays whose limits changed, sample by sample."""

    def __init__(self, keep: int = 20) -> None:
        self._effects: deque[ObservedEffect] = deque(maxlen=keep)

    def start(
        self,
        time: float,
        target: str,
        attr: str,
        value: str,
        arrays: Iterable[MdArray],
        predictions: Iterable[EtaPrediction] = (),
    ) -> list[ObservedEffect]:
        """Begin following every syncing array in ``arrays`` after a change at ``time``."""
        predicted = {p.array: p.predicted_kib_s for p in predictions}
        started = []
        for array in arrays:
            if array.sync is None or not array.sync.running or not array.sync.speed_kib_s:
                continue
            effect = ObservedEffect(
                array.name, target, attr, value, time, float(array.sync.speed_kib_s), predicted.get(array.name)
            )
            self._effects.append(effect)
            started.append(effect)
        return started

    def observe(self, snapshot: Snapshot) -> None:
        """Add the rates of a later sample."""
        arrays = {a.name: a for a in snapshot.arrays}
        for effect in self._effects:
            array = arrays.get(effect.array)
            if array is None or array.sync is None or array.sync.speed_kib_s is None:
                continue
            if snapshot.time > effect.time and (not effect.after or effect.after[-1][0] < snapshot.time):
                effect.after.append((snapshot.time, float(array.sync.speed_kib_s)))

    def effects(self, array: str | None = None) -> list[ObservedEffect]:
        """Effects being followed (of one array), oldest first."""
        return [e for e in self._effects if array is None or e.array == array]
