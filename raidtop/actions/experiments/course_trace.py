"""The faults course's slow-disk measurement: each leg's latency while fio writes to the array.

Where bpftrace runs, raidtop's own :class:`~raidtop.latency.tracer.LatencyTracer`
histograms every leg while fio runs (its intervals added into one histogram
per leg, summarised as the member grid summarises an interval); diskstats'
counters are read before and after by raidtop's :class:`~raidtop.collect.sampler.Sampler`
either way, so each leg's average await over the run is there for the judgement
to fall back on. Nothing is loaded into the kernel without the tracer saying so:
its ``bpftrace`` command is shown and logged like every lab command.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from dataclasses import field

from raidtop.model.frozen import frozen_dataclass
from raidtop.actions.experiments.experiment import Control, fio_job, run_fio
from raidtop.actions.lab.core import Lab
from raidtop.collect.sampler import Sampler
from raidtop.latency.histogram import Log2Histogram, merged
from raidtop.latency.summary import MemberLatency, summarize
from raidtop.latency.tracer import ATTACH_S
from raidtop.model.md import MdArray
from raidtop.model.snapshot import DiskIO
from raidtop.model.units import micros
from raidtop.untrusted import plain

SETTLE_S = 1.5
"""After fio: longer than the tracer's 1 s interval, so the print covering fio's last requests arrives."""


@frozen_dataclass
class Measured:
    """Each leg's latency over one fio run: distributions where traced, average awaits always."""

    latencies: Mapping[str, MemberLatency] = field(default_factory=dict)
    disks: Mapping[str, DiskIO] = field(default_factory=dict)
    unavailable: str | None = None
    """Why there are no distributions (bpftrace missing, not root, not attached…), or ``None``."""

    def describe(self, array: MdArray, basis: str) -> str:
        """``p99 (bpftrace): dm-0 p50 101ms p99 118ms; loop3 …`` or the awaits, saying which and why."""
        names = [m.name for m in array.members if not m.is_faulty]
        if basis == "p99":
            figures = "; ".join(
                f"{n} p50 {micros(_us(lat.p50_ms))} p99 {micros(_us(lat.p99_ms))}"
                for n in names
                if (lat := self.latencies.get(n)) is not None
            )
            return f"p99 latency (raidtop's bpftrace tracer): {figures}"
        why = self.unavailable or "too few requests traced for a p99"
        figures = "; ".join(f"{n} {micros(_us(_await(self.disks.get(n))))}" for n in names)
        return f"average await (diskstats; no distribution: {why}): {figures}"


def measure_latency(lab: Lab, name: str, members: list[str], runtime_s: int, trace: bool, control: Control) -> Measured:
    """Trace ``members`` (where bpftrace runs) and read diskstats around a fio random write on ``name``."""
    from raidtop.latency.tracer import LatencyTracer, why_unavailable

    unavailable = None if trace else "tracing left off (--no-trace)"
    unavailable = unavailable or why_unavailable()
    intervals: dict[str, list[Log2Histogram]] = {}
    measuring = threading.Event()

    def sampled(interval: dict[str, Log2Histogram]) -> None:
        if measuring.is_set():
            for member, hist in interval.items():
                intervals.setdefault(member, []).append(hist)

    ended: list[str] = []  # why bpftrace stopped on its own ("" when raidtop stopped it)
    tracer = None if unavailable else LatencyTracer(members, 1, sampled, ended.append)
    try:
        if tracer is not None:
            unavailable = _attach(lab, tracer, control)
        sampler = Sampler(lab.root)
        sampler.sample()
        measuring.set()
        run_fio(lab, fio_job("course-slow", "randwrite", "4K"), f"/dev/{name}", runtime_s, control)
        control.sleep(SETTLE_S if tracer is not None else 0.0)
        snapshot = sampler.sample()
    finally:
        if tracer is not None:
            tracer.stop()
            tracer.join(10.0)
    disks = {d.name: d for d in snapshot.disks if d.name in members}
    # Distributions of part of the run would judge a leg on requests fio made before bpftrace went.
    unavailable = unavailable or ended_early(ended)
    if unavailable is not None:
        return Measured({}, disks, unavailable)
    return Measured({m: summarize(merged(hists)) for m, hists in intervals.items()}, disks, None)


def _attach(lab: Lab, tracer, control: Control) -> str | None:
    """Start the tracer, shown as its command; wait for its probes; the reason when they did not attach."""
    from raidtop.latency.program import argv

    shown = " ".join(argv("")[:-1]) + f" '<raidtop block latency program: {' '.join(tracer.names)}>'"
    with lab.runner.shown(shown):
        tracer.start()
        deadline = time.monotonic() + ATTACH_S
        while not tracer.wait_attached(1.0):
            control.check()
            if not tracer.alive or time.monotonic() > deadline:
                return f"bpftrace did not attach its probes within {ATTACH_S:.0f} s"
    return None


def ended_early(reasons: list[str]) -> str | None:
    """Why the distributions cannot be used when bpftrace stopped on its own (``""``: raidtop stopped it)."""
    why = next((reason.strip() for reason in reasons if reason.strip()), None)
    if why is None:
        return None
    line = plain(why.splitlines()[0])
    return f"bpftrace ended during the run ({line if len(line) <= 120 else line[:119] + '…'})"


def _await(io: DiskIO | None) -> float | None:
    waits = [w for w in (io.r_await_ms, io.w_await_ms) if w is not None] if io is not None else []
    return max(waits) if waits else None


def _us(ms: float | None) -> float | None:
    return None if ms is None else ms * 1000
