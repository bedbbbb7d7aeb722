"""The RAID-level study: the classic "compare RAID 0/1/5 on loop devices", repeated, in one command.

For each run and, within it, each level (run-major, so drift over time
touches every level alike): create a lab array, wait for its initial
build, fill it, run the ``rand-read`` and ``rand-write`` presets; then, on a
redundant level, fail a disk, remove it, add a fresh one and time the
rebuild with nothing else running, and do it again with ``rand-write``
running through the rebuild (the "during rebuild" column: fio's
per-second reports from the add on, for the runtime or until the rebuild
ends, at least 3 s); tear the array
down. The result is an experiment in the lab history like the sweep's:
every run's figures and fio commands, the per-level mean ± sd, the
parameters, the kernel and the speed limits in force.

Fair conditions by default:

- **Filled**: every array is written end to end (``dd``-equivalent, the
  lab's own writer) before fio runs. A fresh raid0 has no initial resync,
  so without this its sparse images pay for allocation during the first
  write test (write/read 0.84 at 5 s against ~1.0 filled), while raid1 and
  raid5 were filled by their resync. ``--no-fill`` turns it off;
  ``--ramp S`` adds fio's ``ramp_time`` on top.
- **Same member count**: 3 disks for every level by default, the smallest
  count all of raid0, raid1 and raid5 allow, so each level gets the same
  loop devices, the same raw capacity and the same I/O concurrency; the
  differences in the table are then the level's. (raid1 on 3 disks is a
  3-way mirror: it tolerates 2 failures and holds one disk.) Levels that
  need more (raid6, raid10) get their minimum, noted in the row.
  ``--disks N`` overrides.
"""

from __future__ import annotations

import re
import time
from dataclasses import replace

from raidtop.model.frozen import frozen_dataclass
from raidtop.actions.experiments import defaults
from raidtop.actions.lab.commands import LabCommandFailed
from raidtop.actions.lab.core import Lab, LabError
from raidtop.actions.experiments.experiment import (
    Control,
    ExperimentStopped,
    in_sync_member,
    last_rebuild,
    rebuild_seconds,
    run_fio,
    tuning_in_force,
    wait_idle,
    wait_whole,
    write_mib,
)
from raidtop.actions.lab.members import LabMemberActions
from raidtop.actions.experiments.results import ExperimentResult, store_result
from raidtop.actions.lab.spec import MIN_DISKS, LabSpec, SpecError, human_size, level_name, validate
from raidtop.actions.experiments.study_results import StudyRun, summarize
from raidtop.actions.member_actions import ActionRefused

DEFAULT_LEVELS = defaults.STUDY_LEVELS
DEFAULT_DISKS = defaults.STUDY_DISKS
"""Every level on the same number of disks: the smallest count raid0, raid1 and raid5 all allow."""
DEFAULT_DISK_BYTES = defaults.STUDY_DISK_BYTES
DEFAULT_RUNTIME_S = defaults.STUDY_RUNTIME_S
DEFAULT_RUNS = defaults.STUDY_RUNS
MIN_REBUILDING_S = 3
"""The load during a rebuild runs at least this long: fio reports once a second, and only whole seconds count."""
READ_PRESET = "rand-read"
WRITE_PRESET = "rand-write"


@frozen_dataclass
class StudyParams:
    """What to compare, and how."""

    levels: tuple[str, ...] = DEFAULT_LEVELS
    disks: int | None = DEFAULT_DISKS
    """Disks for every level (raised to a level's minimum); ``None``: each level's minimum."""
    disk_size_bytes: int = DEFAULT_DISK_BYTES
    runtime_s: int = DEFAULT_RUNTIME_S
    runs: int = DEFAULT_RUNS
    fill: bool = True
    ramp_s: int = 0
    during_rebuild: bool = True

    @property
    def steps(self) -> int:
        """Per run and level: create, wait, fill, read, write, two rebuilds (redundant levels), teardown."""
        redundant = sum(1 for level in self.levels if level != "raid0")
        per_run = len(self.levels) * (5 + (1 if self.fill else 0)) + redundant * (1 + (1 if self.during_rebuild else 0))
        return self.runs * per_run


def parse_levels(text: str) -> tuple[str, ...]:
    """``0,1,5`` → (raid0, raid1, raid5)."""
    return tuple(dict.fromkeys(level_name(part.strip()) for part in str(text).split(",") if part.strip()))


def disks_for(level: str, wanted: int | None) -> tuple[int, str]:
    """Disks to use for ``level`` and a note when ``wanted`` had to be raised."""
    if wanted is None:
        return MIN_DISKS[level], ""
    if wanted < MIN_DISKS[level]:
        return MIN_DISKS[level], f"{level} needs {MIN_DISKS[level]} disks; used {MIN_DISKS[level]}"
    return wanted, ""


def failures_tolerated(level: str, disks: int) -> str:
    """How many disks the level survives losing, in words that fit a column."""
    if level == "raid0":
        return "0"
    if level == "raid1":
        return str(disks - 1)
    if level in ("raid4", "raid5"):
        return "1"
    if level == "raid6":
        return "2"
    # near=2: one disk always; one per mirror pair when the right ones fail.
    return f"1 (≤{disks // 2})"


def check_params(params: StudyParams):
    """``(params, read preset, write preset)``; SpecError for a level, count or size the lab cannot build."""
    from raidtop.actions.fio.presets import load_presets

    if not params.levels:
        raise SpecError("--levels names at least one level (0, 1, 4, 5, 6, 10)")
    if not 1 <= params.runs <= 20:
        raise SpecError("--runs takes 1 to 20")
    if not 0 <= params.ramp_s <= 600:
        raise SpecError("--ramp takes 0 to 600 seconds")
    for level in params.levels:
        validate(LabSpec(level, disks_for(level, params.disks)[0], params.disk_size_bytes))
    presets = load_presets()
    chosen = []
    for name in (READ_PRESET, WRITE_PRESET):
        preset = presets.get(name)
        if preset is None:
            raise SpecError(f"the fio preset {name} is not defined (raidtop bench --list)")
        if params.ramp_s:
            preset = replace(preset, options=tuple(preset.options) + (("ramp_time", str(params.ramp_s)),))
        chosen.append(preset)
    return replace(params, runtime_s=max(1, params.runtime_s)), chosen[0], chosen[1]


def run_study(lab: Lab, params: StudyParams, control: Control | None = None) -> ExperimentResult:
    """Run the study; every array is torn down before the next is made, whatever happens.

    The result is stored as it stands when the study stops early (stopped)
    or a level fails (a command, fio or the fill: LabError is raised after storing).
    """
    params, read_preset, write_preset = check_params(params)
    control = control or Control()
    control.total = params.steps
    actions = LabMemberActions(lab, cache_s=0)
    started = time.time()
    study_id = lab.store.reserve_experiment("study", started)
    from raidtop.actions.fio.store import new_group_id

    context = _Context(lab, actions, params, read_preset, write_preset, study_id, new_group_id(), control)
    rows: list[StudyRun] = []
    stopped, failure = False, None
    try:
        for run in range(1, params.runs + 1):
            for level in params.levels:
                rows.append(context.measure(level, run))
    except ExperimentStopped:
        stopped = True
    except (LabError, LabCommandFailed, OSError) as exc:
        stopped, failure = True, exc
    commands = tuple(c for r in rows for c in (r.read_command, r.write_command, r.rebuilding_command) if c)
    context.commands = commands
    result = ExperimentResult(
        "study",
        _params_text(lab, params, read_preset, write_preset, context, started),
        tuple(rows),
        context.tuning,
        started,
        time.time(),
        study_id,
        stopped,
        commands,
        summarize(rows),
    )
    result = store_result(lab.store, result)
    if failure is not None:
        raise LabError(f"{failure} (what was measured is kept as experiment {result.experiment_id})")
    return result


class _Context:
    """One study's fixed parts, and the measuring of one level in one run."""

    def __init__(self, lab, actions, params, read_preset, write_preset, study_id, group, control) -> None:
        self.lab, self.actions, self.params, self.control = lab, actions, params, control
        self.read_preset, self.write_preset = read_preset, write_preset
        self.study_id, self.group = study_id, group
        self.tuning: dict[str, str] = {}
        self.commands: tuple[str, ...] = ()
        self.limits: dict[str, str] = {}

    def _history(self, level: str, run: int, what: str) -> dict:
        # The Benchmarks history labels each run with the study and level it belongs to.
        return {
            "label": f"study {self.study_id} {level} run {run} {what}",
            "group_id": self.group,
            "group_kind": "study",
            "pass_no": run,
        }

    def measure(self, level: str, run: int) -> StudyRun:
        lab, params, control = self.lab, self.params, self.control
        disks, note = disks_for(level, params.disks)
        where = f"run {run}/{params.runs}: {level}"
        control.step(f"{where}: creating {disks} × {human_size(params.disk_size_bytes)}")
        name = lab.create(LabSpec(level, disks, params.disk_size_bytes)).name
        device = f"/dev/{name}"
        try:
            control.step(f"{where}: waiting for {name}'s initial build")
            wait_idle(lab, name, control)
            usable = int((lab.root.read_optional(f"/sys/block/{name}/size") or "0").strip() or 0) * 512
            chunk = (lab.root.read_optional(f"/sys/block/{name}/md/chunk_size") or "").strip()
            chunk_kib = int(chunk) // 1024 if level != "raid1" and chunk.isdigit() and int(chunk) else None
            if params.fill:
                control.step(f"{where}: filling {name} ({human_size(usable)})")
                write_mib(lab, name, usable >> 20, control)
            self._context(level, name)
            control.step(f"{where}: fio {self.read_preset.name} for {params.runtime_s} s")
            read = run_fio(
                lab, self.read_preset, device, params.runtime_s, control, **self._history(level, run, "read")
            )
            control.step(f"{where}: fio {self.write_preset.name} for {params.runtime_s} s")
            write = run_fio(
                lab, self.write_preset, device, params.runtime_s, control, **self._history(level, run, "write")
            )
            if read.result is None or write.result is None:  # run_fio raises before this; the type does not say so
                raise LabError(f"{where}: fio produced no result")
            row = StudyRun(
                run,
                level,
                disks,
                params.disk_size_bytes,
                chunk_kib,
                usable or None,
                failures_tolerated(level, disks),
                **_direction("read", read.result.read),
                **_direction("write", write.result.write),
                read_command=read.command,
                write_command=write.command,
            )
            if level == "raid0":
                note = "; ".join(
                    filter(None, [note, "no redundancy: a failed disk loses the array, nothing to rebuild"])
                )
            else:
                row = self._rebuilds(row, level, name, run, where)
            return replace(row, note="; ".join(filter(None, [note, row.note])))
        finally:
            control.step(f"{where}: tearing down {name}", check=False)
            lab.teardown([name])

    def _rebuilds(self, row: StudyRun, level: str, name: str, run: int, where: str) -> StudyRun:
        from raidtop.actions.experiments.rebuild_load import rebuild_under_load

        lab, control = self.lab, self.control
        control.step(f"{where}: fail a member, remove it, add a fresh disk; time the rebuild")
        before = last_rebuild(lab, name)
        try:
            victim = in_sync_member(lab, name)
            self.actions.run("fail", name, victim)
            self.actions.run("remove", name, victim)
            self.actions.run("add", name, None)
        except ActionRefused as exc:
            raise LabError(f"{level}: {exc}") from None
        wait_whole(lab, name, control)
        record = lab.state().array(name)
        resolution = record.last_rebuild.resolution_s if record is not None and record.last_rebuild else 0.0
        row = replace(row, rebuild_s=rebuild_seconds(lab, name, before), rebuild_resolution_s=resolution)
        if not self.params.during_rebuild:
            return row
        control.step(f"{where}: fio {self.write_preset.name} while {name} rebuilds")
        points: list = []
        _seconds, load = rebuild_under_load(
            lab,
            self.actions,
            name,
            self.write_preset,
            control,
            stop_after_s=max(self.params.runtime_s, MIN_REBUILDING_S),
            rebuilding=points,
            **self._history(level, run, "write during rebuild"),
        )
        row = replace(row, rebuilding_command=load.command)
        if not points:
            return replace(row, note="the rebuild ended before fio's first whole second under it")
        iops = [p.write_iops for p in points]
        latency = [(p.write_lat_us, p.write_iops) for p in points if p.write_lat_us is not None and p.write_iops]
        weight = sum(w for _l, w in latency)
        return replace(
            row,
            rebuilding_write_iops=round(sum(iops) / len(iops), 1),
            rebuilding_write_lat_avg_us=round(sum(lat * w for lat, w in latency) / weight, 1) if weight else None,
            rebuilding_load_s=float(len(points)),
        )

    def _context(self, level: str, name: str) -> None:
        """The tuning and speed limits in force, once per level (the first run's array)."""
        if any(key.startswith(f"{level}: ") for key in self.tuning):
            return
        settings = tuning_in_force(self.lab, name)
        self.tuning.update({f"{level}: {k.replace(name + '.', 'md.')}": v for k, v in settings.items()})
        for limit in ("speed_limit_min", "speed_limit_max"):
            self.limits[limit] = settings.get(f"system.{limit}", "")


def _direction(prefix: str, direction) -> dict:
    """One direction of fio's result as the study's figures (IOPS, MiB/s, mean and p99 latency in µs)."""
    return {
        f"{prefix}_iops": round(direction.iops, 1),
        f"{prefix}_mib_s": round(direction.mib_s, 3),
        f"{prefix}_lat_avg_us": direction.lat_mean_us,
        f"{prefix}_lat_p99_us": direction.lat_p99_us,
    }


def _params_text(
    lab: Lab, params: StudyParams, read_preset, write_preset, context: _Context, started: float
) -> dict[str, str]:
    """The parameters and conditions, as the history stores them (and the CSV repeats per level)."""
    from raidtop.actions.fio.session import kernel_release

    def both(attr: str) -> str:
        values = dict.fromkeys(str(getattr(p, attr)) for p in (read_preset, write_preset))
        return "/".join(values)

    # The engine fio used (psync when libaio is missing), as its command line says.
    engines = [m.group(1) for c in context.commands for m in [re.search(r"--ioengine=(\S+)", c)] if m]
    engine = "/".join(dict.fromkeys(engines)) or both("ioengine")
    return {
        "levels": ",".join(params.levels),
        "disks": str(params.disks if params.disks is not None else "minimum"),
        "size": human_size(params.disk_size_bytes),
        "disk_size_bytes": str(params.disk_size_bytes),
        "runs": str(params.runs),
        "runtime_s": str(params.runtime_s),
        "ramp_s": str(params.ramp_s),
        "fill": "yes" if params.fill else "no",
        "during_rebuild": "yes" if params.during_rebuild else "no",
        "read_preset": read_preset.name,
        "write_preset": write_preset.name,
        "bs": both("bs"),
        "iodepth": both("iodepth"),
        "numjobs": both("numjobs"),
        "engine": engine,
        "kernel": kernel_release(lab.root) or "",
        "started_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started)),
        "speed_limit_min": context.limits.get("speed_limit_min", ""),
        "speed_limit_max": context.limits.get("speed_limit_max", ""),
    }
