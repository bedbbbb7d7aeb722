"""What every lab experiment shares: progress, stopping, waiting, writing, fio jobs, the tuning in force.

The sweep, the trade-off, the bitmap study and the grow (their own modules)
are written as plain loops over steps. :class:`Control` carries what crosses
threads and signals: a cancel flag every wait checks, the fio runs in
progress (cancelled with it), and the progress callback (step i of n and
the time left). A signal handler (:func:`stop_on_signals`) only sets the
flag and stops fio; the experiment then leaves its loop and its ``finally``
tears down what it made, so a Ctrl-C never interrupts a teardown halfway.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import threading
import time
from dataclasses import dataclass, field
from collections.abc import Callable, Iterator

from raidtop.model.frozen import frozen_dataclass
from raidtop.actions.fio.results import FioResult
from raidtop.actions.lab.array_device import open_array_device
from raidtop.actions.lab.core import Lab, LabError
from raidtop.model.units import duration
from raidtop.actions.lab.guard import check_array, kernel_members
from raidtop.actions.lab.timeline import read_status
from raidtop.actions.member_actions import ActionRefused

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
LOAD_CEILING_S = 3600
"""A load that runs "until the rebuild ends" is started for this long and stopped when it does."""
WRITE_BLOCK = 1 << 20


class ExperimentStopped(LabError):
    """The experiment was stopped (Ctrl-C, a signal, the screen's stop key)."""


@frozen_dataclass
class ProgressEvent:
    """Where an experiment is: step ``step`` of ``total``, and an estimate of the time left."""

    step: int
    total: int
    label: str
    elapsed_s: float
    left_s: float | None
    """``None`` until one step has finished (nothing to estimate from)."""

    def line(self) -> str:
        """``step 3/12 (about 40 s left): raid5 chunk 64K: fio randread bs 4K``."""
        left = "" if self.left_s is None else f", about {duration(self.left_s, coarse=True)} left"
        return f"step {self.step}/{self.total}{left}: {self.label}"


@dataclass
class Control:
    """Progress, cancellation and the fio runs in flight of one experiment; thread-safe."""

    on_progress: Callable[[ProgressEvent], None] | None = None
    total: int = 1
    _step: int = 0
    _started: float = field(default_factory=time.monotonic)
    _step_started: list[float] = field(default_factory=list)
    _cancel: threading.Event = field(default_factory=threading.Event)
    _batches: list = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def cancelled(self) -> bool:
        """True once :meth:`cancel` was called."""
        return self._cancel.is_set()

    def cancel(self) -> None:
        """Stop: every running fio gets SIGINT, every wait returns at its next look."""
        self._cancel.set()
        with self._lock:
            batches = list(self._batches)
        for batch in batches:
            batch.cancel()

    def check(self) -> None:
        """Raise :class:`ExperimentStopped` once cancelled."""
        if self._cancel.is_set():
            raise ExperimentStopped("stopped by request; what the experiment made is being torn down")

    def sleep(self, seconds: float) -> None:
        """Sleep, waking at once when cancelled."""
        self._cancel.wait(seconds)

    def new_batch(self):
        """A fio :class:`~raidtop.actions.fio.session.Batch` that :meth:`cancel` also stops."""
        from raidtop.actions.fio.session import Batch

        batch = Batch()
        with self._lock:
            self._batches.append(batch)
        if self._cancel.is_set():
            batch.cancel()
        return batch

    def step(self, label: str, *, check: bool = True) -> None:
        """Begin the next step; reports it with the time left estimated from the steps so far.

        ``check`` False for teardown steps, which must run whether or not the experiment was stopped.
        """
        if check:
            self.check()
        now = time.monotonic()
        self._step += 1
        done = self._step - 1
        elapsed = now - self._started
        left = elapsed / done * (self.total - done) if done else None
        if self.on_progress is not None:
            try:
                self.on_progress(ProgressEvent(self._step, max(self.total, self._step), label, elapsed, left))
            except Exception:  # noqa: BLE001 - a closed terminal or screen must not stop the experiment
                pass


@contextlib.contextmanager
def stop_on_signals(control: Control, say: Callable[[str], None] = lambda _t: None) -> Iterator[None]:
    """While inside: SIGINT, SIGTERM and SIGHUP cancel ``control`` instead of killing the process.

    The handler does no more than that, so the experiment's own ``finally``
    tears down; a second signal is told to wait. Only the main thread may set
    handlers: elsewhere this does nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, _frame) -> None:
        if control.cancelled:
            say("still tearing down what the experiment made; please wait")
            return
        say(f"{signal.Signals(signum).name}: stopping; tearing down what the experiment made")
        control.cancel()

    previous = {sig: signal.signal(sig, handler) for sig in STOP_SIGNALS}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def wait_idle(lab: Lab, name: str, control: Control, timeout: float = 900.0, poll: float = 0.05) -> float:
    """Poll until ``name`` has no sync running or pending, recording its timeline; returns the seconds waited.

    Raises:
        ExperimentStopped: cancelled meanwhile.
        LabError: the array is gone, or still busy after ``timeout``.
    """
    started = time.monotonic()
    while True:
        control.check()
        status = read_status(name, lab.root)
        record = lab.observe(name, status)
        if not status.present:
            raise LabError(f"{name} is not running")
        if status.idle and (record is None or record.watch is None or record.watch.pending_since is None):
            return time.monotonic() - started
        if time.monotonic() - started > timeout:
            raise LabError(f"{name} is still busy ({status.sync or 'a sync is pending'}) after {timeout:.0f} s")
        control.sleep(poll)


def wait_whole(lab: Lab, name: str, control: Control) -> None:
    """:func:`wait_idle` until ``name`` is whole again (a rebuild after --add or --re-add has run).

    Right after ``mdadm --add`` md may not have started the recovery yet and
    ``sync_action`` still reads idle (seen in the VM: a 0.4 s "rebuild" at a
    2000 KiB/s limit was the wait returning before the recovery began).
    """
    wait_idle(lab, name, control)
    while (read_status(name, lab.root).degraded or 0) > 0:
        control.sleep(0.05)
        wait_idle(lab, name, control)


def rebuild_seconds(lab: Lab, name: str, before) -> float | None:
    """The duration of the rebuild recorded after ``before`` (a ``last_rebuild``), or ``None``."""
    record = lab.state().array(name)
    rebuild = record.last_rebuild if record is not None else None
    return rebuild.seconds if rebuild is not None and rebuild != before else None


def last_rebuild(lab: Lab, name: str):
    """The array's latest rebuild record, to tell a new one from it."""
    record = lab.state().array(name)
    return record.last_rebuild if record is not None else None


def write_mib(lab: Lab, name: str, mib: int, control: Control, offset_mib: int = 0) -> None:
    """Write ``mib`` MiB of fresh data to the lab array ``name`` from ``offset_mib`` on, shown and logged as dd.

    The guard checks the array is entirely the lab's; the device is opened
    exclusively (``O_EXCL``: refused while mounted or held) and must be the
    block device the kernel lists for ``name`` (:func:`open_array_device`).
    """
    try:
        check_array(name, lab.state(), lab.root)
    except ActionRefused as exc:
        raise LabError(str(exc)) from None
    command = f"dd if=/dev/urandom of=/dev/{name} bs=1M seek={offset_mib} count={mib} conv=fsync"

    def write() -> None:
        fd = open_array_device(lab, name, os.O_WRONLY | os.O_EXCL, "written")
        try:
            block = os.urandom(WRITE_BLOCK)
            for index in range(mib):
                control.check()
                os.pwrite(fd, block, (offset_mib + index) * WRITE_BLOCK)
            os.fsync(fd)
        finally:
            os.close(fd)

    lab.runner.python(command, write, array=name)


def tuning_in_force(lab: Lab, name: str, **extra: object) -> dict[str, str]:
    """The settings a result was measured under: the stack's queue settings, md's limits, ``extra``."""
    from raidtop.actions.fio.stack import capture_tuning

    settings: dict[str, str] = {}
    try:
        settings.update(capture_tuning(f"/dev/{name}", lab.root).settings())
    except Exception:  # noqa: BLE001 - a record of the context, never a reason to lose the measurement
        pass
    for attr in ("sync_speed_min", "sync_speed_max", "chunk_size", "level", "raid_disks"):
        value = lab.root.read_optional(f"/sys/block/{name}/md/{attr}")
        if value is not None:
            settings[f"{name}.{attr}"] = value.strip()
    bitmap = lab.root.read_optional(f"/sys/block/{name}/md/bitmap/location")
    settings[f"{name}.bitmap"] = (bitmap or "none").strip()
    for limit in ("speed_limit_min", "speed_limit_max"):
        value = lab.root.read_optional(f"/proc/sys/dev/raid/{limit}")
        if value is not None:
            settings[f"system.{limit}"] = value.strip()
    settings.update({key: str(value) for key, value in extra.items()})
    return settings


def in_sync_member(lab: Lab, name: str) -> str:
    """An in-sync member of ``name`` (the one an experiment fails), or LabError."""
    for member in kernel_members(name, lab.root) or ():
        state = lab.root.read_optional(f"/sys/block/{name}/md/dev-{member}/state") or ""
        if "in_sync" in state.replace(",", " ").split():
            return member
    raise LabError(f"{name} has no in-sync member to fail")


# ---------------------------------------------------------------- fio


@frozen_dataclass
class JobFigures:
    """What one fio job measured on a lab array."""

    iops: float
    """Reads plus writes per second."""
    mib_s: float
    p50_us: float | None
    """Median completion latency (the worse of reads and writes when the job does both)."""
    p99_us: float | None
    seconds: float
    command: str
    partial: bool = False
    result: FioResult | None = None
    """fio's parsed result (:class:`~raidtop.actions.fio.results.FioResult`): each direction's mean and p99."""


def fio_job(name: str, rw: str, bs: str, *, iodepth: int = 16, numjobs: int = 1, rwmixread: int | None = None):
    """A fio :class:`~raidtop.actions.fio.presets.Preset` for one experiment job (direct I/O, libaio)."""
    from raidtop.actions.fio.presets import Preset

    return Preset(
        name, rw, bs, iodepth, numjobs, f"lab experiment: {rw} {bs}", rwmixread=rwmixread, origin="lab experiment"
    )


def run_fio(
    lab: Lab,
    preset,
    device: str,
    runtime_s: int,
    control: Control,
    until: threading.Event | None = None,
    running: threading.Event | None = None,
    on_point: Callable | None = None,
    **history,
) -> JobFigures:
    """Run ``preset`` on the lab device through raidtop's fio module (guards, opened target, log, history).

    The exact command reaches the lab's listeners before fio starts (``$ fio …``
    on ``raidtop lab``'s output, a line in the Lab screen's log). ``history``
    (``label``, ``group_id``, ``group_kind``, ``pass_no``) labels the run in the
    Benchmarks history.

    With ``until``, the job runs until that event is set (at most
    :data:`LOAD_CEILING_S`), then stops: fio's SIGINT result covers exactly the time it ran.
    ``running`` is set at fio's first status report (its jobs are doing I/O);
    ``on_point`` hears every status report (a ``ProgressPoint`` each second).
    """
    from raidtop.actions.fio.guards import TargetRefused
    from raidtop.actions.fio.presets import PresetSet
    from raidtop.actions.fio.session import FioMissing, execute, plan_run
    from raidtop.actions.fio.store import RunStore

    control.check()
    try:
        plan = plan_run(
            preset,
            device,
            presets=PresetSet((preset,)),
            runtime_s=LOAD_CEILING_S if until is not None else runtime_s,
            registry=lab.registry.path,
        )
    except (FioMissing, TargetRefused) as exc:
        raise LabError(str(exc)) from None
    batch = control.new_batch()
    if until is not None:
        threading.Thread(target=lambda: (until.wait(), batch.cancel()), daemon=True).start()

    def point(progress) -> None:
        if running is not None:
            running.set()
        if on_point is not None:
            on_point(progress)

    with lab.runner.shown(plan.command.display):
        record = execute(
            plan,
            RunStore(),
            batch=batch,
            log=lab.runner.log,
            on_point=point if running is not None or on_point is not None else None,
            **history,
        )
    control.check()
    outcome = record.outcome
    if outcome.result is None:
        raise LabError(f"fio {preset.rw} {preset.bs} on {device} produced no result: {outcome.message or 'no output'}")
    if outcome.partial and until is None:
        raise LabError(f"fio {preset.rw} {preset.bs} on {device} did not finish: {outcome.message}")
    result = outcome.result
    p50, p99 = _percentiles(outcome.json_text)
    return JobFigures(
        result.read.iops + result.write.iops,
        result.read.mib_s + result.write.mib_s,
        p50,
        p99,
        outcome.ended - outcome.started,
        plan.command.display,
        outcome.partial,
        result,
    )


def _percentiles(json_text: str | None) -> tuple[float | None, float | None]:
    """p50 and p99 completion latency (µs) from fio's JSON: the worse of the directions that did I/O."""
    from raidtop.actions.fio.results import percentile

    try:
        jobs = json.loads(json_text or "{}").get("jobs") or []
    except ValueError:
        return None, None
    found: dict[float, list[float]] = {50.0: [], 99.0: []}
    for job in jobs:
        for direction in ("read", "write"):
            section = job.get(direction) or {}
            if not section.get("total_ios"):
                continue
            block, scale = (section.get("clat_ns"), 1e-3) if "clat_ns" in section else (section.get("clat"), 1.0)
            if not isinstance(block, dict):
                continue
            for wanted, values in found.items():
                value = percentile(block, wanted)
                if value is not None:
                    values.append(value * scale)
    return (max(found[50.0]) if found[50.0] else None, max(found[99.0]) if found[99.0] else None)
