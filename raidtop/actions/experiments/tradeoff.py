"""The rebuild-speed trade-off: how fast a rebuild runs against how much a running load suffers.

One lab array is built and filled; a fio load runs undisturbed for the
baseline. Then, for each speed limit: the limit is set on that array only
(its own ``md/sync_speed_min`` and ``md/sync_speed_max``, never the system's
``/proc/sys/dev/raid``), the load starts, and at fio's first status report
(about a second in) a member is failed and removed and a fresh disk added;
the load runs until the rebuild ends and fio is then stopped. Its result
(IOPS, p50/p99 completion latency) covers the rebuild plus that first
second, when the array was still whole.

Why the floor too: while the array is busy md slows a rebuild down to
``sync_speed_min``, whatever the maximum; a limit that set only the maximum
would show one rebuild time for every limit under load. So each limit is
floor and ceiling at once: the rebuild runs at that speed and the load gets
what is left. The limits are set back to the system's at the end.
"""

from __future__ import annotations

from raidtop.model.frozen import frozen_dataclass
from raidtop.actions.experiments import defaults
import time

from raidtop.actions.lab.core import Lab, LabError
from raidtop.actions.experiments.experiment import (
    Control,
    ExperimentStopped,
    JobFigures,
    run_fio,
    tuning_in_force,
    wait_idle,
    write_mib,
)
from raidtop.actions.lab.members import LabMemberActions
from raidtop.actions.experiments.rebuild_load import rebuild_under_load
from raidtop.actions.experiments.results import ExperimentResult, TradeoffRow, store_result
from raidtop.actions.lab.spec import LabSpec, SpecError, human_size, level_name, validate
from raidtop.actions.member_actions import ActionRefused

DEFAULT_LIMITS = defaults.TRADEOFF_LIMITS
MAX_LIMIT_KIB = 2_000_000
"""What ``max`` sets: 2 GB/s, more than loop devices deliver, so md does not hold the rebuild back."""
DEFAULT_LOAD = defaults.TRADEOFF_LOAD
DEFAULT_LEVEL = defaults.TRADEOFF_LEVEL
DEFAULT_DISKS = defaults.TRADEOFF_DISKS
DEFAULT_DISK_BYTES = defaults.TRADEOFF_DISK_BYTES
DEFAULT_BASELINE_S = defaults.TRADEOFF_BASELINE_S


@frozen_dataclass
class TradeoffParams:
    """What to measure."""

    level: str = DEFAULT_LEVEL
    disks: int = DEFAULT_DISKS
    limits: tuple[str, ...] = DEFAULT_LIMITS
    load: str = DEFAULT_LOAD
    """A fio preset name (``raidtop bench``'s presets)."""
    baseline_s: int = DEFAULT_BASELINE_S
    disk_size_bytes: int = DEFAULT_DISK_BYTES

    def as_text(self) -> dict[str, str]:
        """The parameters as the history stores them."""
        return {
            "level": self.level,
            "disks": str(self.disks),
            "limits": ",".join(self.limits),
            "load": self.load,
            "baseline_s": str(self.baseline_s),
            "size": human_size(self.disk_size_bytes),
        }

    @property
    def steps(self) -> int:
        """Create, wait, fill, baseline, two per limit, teardown."""
        return 5 + 2 * len(self.limits)


def parse_limits(text: str) -> tuple[str, ...]:
    """``1000,10000,max`` → the limits, each whole KiB/s from 100 to 2,000,000, or ``max``."""
    limits = []
    for part in (p.strip().lower() for p in str(text).split(",") if p.strip()):
        if part != "max" and not (part.isdigit() and len(part) <= 7 and 100 <= int(part) <= MAX_LIMIT_KIB):
            raise SpecError(f"a limit is KiB/s from 100 to {MAX_LIMIT_KIB:,}, or max; not {part!r}")
        limits.append(part)
    if not 1 <= len(limits) <= 12:
        raise SpecError("--limits takes 1 to 12 comma-separated values")
    return tuple(dict.fromkeys(limits))


def limit_kib(limit: str) -> int:
    """KiB/s for a limit as typed."""
    return MAX_LIMIT_KIB if limit == "max" else int(limit)


def check_params(params: TradeoffParams):
    """``(params, load preset)``; SpecError when the level cannot rebuild or the load is unknown."""
    from raidtop.actions.fio.presets import load_presets

    level = level_name(params.level)
    if level == "raid0":
        raise SpecError("raid0 has no redundancy: nothing to rebuild, so no trade-off to measure")
    validate(LabSpec(level, params.disks, params.disk_size_bytes))
    preset = load_presets().get(params.load)
    if preset is None:
        raise SpecError(f"--load names a fio preset (raidtop bench --list); {params.load!r} is not one")
    checked = TradeoffParams(
        level, params.disks, params.limits, params.load, max(1, params.baseline_s), params.disk_size_bytes
    )
    return checked, preset


def run_tradeoff(lab: Lab, params: TradeoffParams, control: Control | None = None) -> ExperimentResult:
    """Measure the baseline, then one rebuild under load per limit; teardown whatever happens."""
    params, preset = check_params(params)
    control = control or Control()
    control.total = params.steps
    actions = LabMemberActions(lab, cache_s=0)
    started = time.time()
    rows: list[TradeoffRow] = []
    commands: list[str] = []
    tuning: dict[str, str] = {}
    stopped = False
    name = None
    try:
        control.step(f"creating {params.level} on {params.disks} × {human_size(params.disk_size_bytes)}")
        name = lab.create(LabSpec(params.level, params.disks, params.disk_size_bytes)).name
        device = f"/dev/{name}"
        control.step(f"waiting for {name}'s initial build")
        wait_idle(lab, name, control)
        usable = int((lab.root.read_optional(f"/sys/block/{name}/size") or "0").strip() or 0) * 512
        control.step(f"filling {name} ({human_size(usable)})")
        write_mib(lab, name, usable >> 20, control)
        control.step(f"baseline: fio {preset.name} for {params.baseline_s} s, no rebuild")
        base = run_fio(lab, preset, device, params.baseline_s, control)
        commands.append(base.command)
        rows.append(_row("baseline", None, base))
        tuning = tuning_in_force(lab, name, load=preset.summary)
        for limit in params.limits:
            kib = limit_kib(limit)
            control.step(f"limit {limit}: md/sync_speed_min = md/sync_speed_max = {kib} KiB/s on {name}")
            _set_limit(actions, name, kib)
            control.step(f"limit {limit}: fail a member, add a fresh disk, fio {preset.name} until the rebuild ends")
            rebuild_s, load = rebuild_under_load(lab, actions, name, preset, control)
            commands.append(load.command)
            rows.append(_row(limit, rebuild_s, load))
    except ExperimentStopped:
        stopped = True
    finally:
        if name is not None:
            control.step(f"setting {name}'s limits back and tearing it down", check=False)
            _restore_limits(actions, name)
            lab.teardown([name])
    result = ExperimentResult(
        "tradeoff",
        params.as_text(),
        tuple(rows),
        tuning,
        started,
        time.time(),
        stopped=stopped,
        commands=tuple(commands),
    )
    return store_result(lab.store, result)


def _row(limit: str, rebuild_s: float | None, figures: JobFigures) -> TradeoffRow:
    return TradeoffRow(
        limit, rebuild_s, round(figures.iops, 1), figures.p50_us, figures.p99_us, round(figures.seconds, 2)
    )


def _set_limit(actions: LabMemberActions, name: str, kib: int) -> None:
    try:
        actions.speed_limit_plan(name, kib, "sync_speed_max").execute()
        actions.speed_limit_plan(name, kib, "sync_speed_min").execute()
    except (ActionRefused, OSError) as exc:
        raise LabError(f"the speed limit could not be set on {name}: {exc}") from None


def _restore_limits(actions: LabMemberActions, name: str) -> None:
    for attr in ("sync_speed_min", "sync_speed_max"):
        try:
            actions.speed_limit_plan(name, None, attr).execute()
        except Exception:  # noqa: BLE001 - the array is torn down next: its limits go with it
            pass
