"""The chunk × block-size sweep: which stripe unit suits which I/O size, for each access pattern.

For each chunk size a lab array is created (and its initial build waited
for), every fio pattern runs at every block size on it, and it is torn
down before the next chunk. The result is one chunk × block-size table per
pattern (:func:`~raidtop.actions.experiments.results.sweep_tables`), the best cell
marked: MiB/s for sequential patterns, IOPS for random ones.
"""

from __future__ import annotations

from raidtop.model.frozen import frozen_dataclass
from raidtop.actions.experiments import defaults
import re
import time

from raidtop.actions.lab.core import Lab
from raidtop.actions.experiments.experiment import (
    Control,
    ExperimentStopped,
    fio_job,
    run_fio,
    tuning_in_force,
    wait_idle,
)
from raidtop.actions.experiments.results import ExperimentResult, SweepCell, store_result
from raidtop.actions.lab.spec import CHUNK_CHOICES_KIB, LabSpec, SpecError, human_size, level_name, parse_size, validate

PATTERNS = defaults.SWEEP_PATTERNS
DEFAULT_CHUNKS_KIB = defaults.SWEEP_CHUNKS_KIB
DEFAULT_BLOCK_SIZES = defaults.SWEEP_BLOCK_SIZES
DEFAULT_LEVEL = defaults.SWEEP_LEVEL
DEFAULT_DISKS = defaults.SWEEP_DISKS
DEFAULT_DISK_BYTES = defaults.SWEEP_DISK_BYTES
DEFAULT_RUNTIME_S = defaults.SWEEP_RUNTIME_S
MAX_BLOCK_BYTES = 16 << 20
_BLOCK = re.compile(r"^([0-9]{1,5})([kKmM]?)$")


@frozen_dataclass
class SweepParams:
    """What to sweep."""

    level: str = DEFAULT_LEVEL
    disks: int = DEFAULT_DISKS
    chunks_kib: tuple[int, ...] = DEFAULT_CHUNKS_KIB
    block_sizes: tuple[str, ...] = DEFAULT_BLOCK_SIZES
    patterns: tuple[str, ...] = PATTERNS
    runtime_s: int = DEFAULT_RUNTIME_S
    disk_size_bytes: int = DEFAULT_DISK_BYTES

    def as_text(self) -> dict[str, str]:
        """The parameters as the history stores them."""
        return {
            "level": self.level,
            "disks": str(self.disks),
            "chunk": ",".join(f"{c}K" for c in self.chunks_kib),
            "bs": ",".join(self.block_sizes),
            "rw": ",".join(self.patterns),
            "runtime_s": str(self.runtime_s),
            "size": human_size(self.disk_size_bytes),
        }

    @property
    def steps(self) -> int:
        """Create, wait, every job and teardown, for every chunk."""
        return len(self.chunks_kib) * (3 + len(self.block_sizes) * len(self.patterns))


def parse_chunks(text: str) -> tuple[int, ...]:
    """``16K,64K,1M`` → (16, 64, 1024) KiB; a bare number is KiB (as ``--chunk`` of ``lab create``)."""
    chunks = []
    for part in _parts(text, "--chunk"):
        value = parse_size(part + ("K" if part.isdigit() else "")) // 1024
        if value not in CHUNK_CHOICES_KIB:
            raise SpecError(f"chunk {part} is not one of {', '.join(f'{c}K' for c in CHUNK_CHOICES_KIB)}")
        chunks.append(value)
    return tuple(dict.fromkeys(chunks))


def parse_block_sizes(text: str) -> tuple[str, ...]:
    """``4K,64K,1M`` → ("4K", "64K", "1M"): whole KiB multiples up to 16M, as fio's ``--bs`` reads them."""
    sizes = []
    for part in _parts(text, "--bs"):
        match = _BLOCK.match(part)
        if not match:
            raise SpecError(f"block size {part!r} is not like 4K, 64K or 1M")
        number, unit = int(match.group(1)), match.group(2).upper() or "K"
        size = number << (20 if unit == "M" else 10)
        if not 512 <= size <= MAX_BLOCK_BYTES or (unit == "K" and number % 4):
            raise SpecError(f"block size {part} must be a multiple of 4K, at most 16M")
        sizes.append(f"{number}{unit}")
    return tuple(dict.fromkeys(sizes))


def parse_patterns(text: str) -> tuple[str, ...]:
    """``read,randwrite`` → the fio patterns, each one of :data:`PATTERNS`."""
    patterns = []
    for part in _parts(text, "--rw"):
        if part not in PATTERNS:
            raise SpecError(f"--rw takes {', '.join(PATTERNS)}; not {part!r}")
        patterns.append(part)
    return tuple(dict.fromkeys(patterns))


def _parts(text: str, option: str) -> list[str]:
    parts = [p.strip() for p in str(text).split(",") if p.strip()]
    if not parts or len(parts) > 16:
        raise SpecError(f"{option} takes 1 to 16 comma-separated values")
    return parts


def check_params(params: SweepParams) -> SweepParams:
    """``params`` normalised, or SpecError: the level must have a chunk, every array must be buildable."""
    level = level_name(params.level)
    if level == "raid1":
        raise SpecError("raid1 has no chunk size to sweep: use raid0, raid4, raid5, raid6 or raid10")
    for chunk in params.chunks_kib:
        validate(LabSpec(level, params.disks, params.disk_size_bytes, chunk))
    if not params.chunks_kib or not params.block_sizes or not params.patterns:
        raise SpecError("a sweep needs at least one chunk, one block size and one pattern")
    return SweepParams(
        level,
        params.disks,
        params.chunks_kib,
        params.block_sizes,
        params.patterns,
        max(1, params.runtime_s),
        params.disk_size_bytes,
    )


def run_chunk_sweep(lab: Lab, params: SweepParams, control: Control | None = None) -> ExperimentResult:
    """Run the sweep chunk by chunk; each array is torn down before the next (and on any stop or error).

    The result is stored in the lab history, stopped early or not; an error
    raises after teardown (LabError, SpecError, LabCommandFailed).
    """
    params = check_params(params)
    control = control or Control()
    control.total = params.steps
    started = time.time()
    cells: list[SweepCell] = []
    commands: list[str] = []
    tuning: dict[str, str] = {}
    stopped = False
    try:
        for chunk in params.chunks_kib:
            where = f"{params.level} chunk {chunk}K"
            control.step(f"{where}: creating {params.disks} × {human_size(params.disk_size_bytes)}")
            name = lab.create(LabSpec(params.level, params.disks, params.disk_size_bytes, chunk)).name
            try:
                control.step(f"{where}: waiting for the initial build ({name})")
                wait_idle(lab, name, control)
                if not tuning:
                    tuning = tuning_in_force(lab, name)
                tuning[f"chunk {chunk}K"] = f"{name}.chunk_size=" + tuning_in_force(lab, name).get(
                    f"{name}.chunk_size", "?"
                )
                for rw in params.patterns:
                    for bs in params.block_sizes:
                        control.step(f"{where}: fio {rw} bs {bs} for {params.runtime_s} s on /dev/{name}")
                        job = fio_job(f"lab-sweep-{rw}-{bs}", rw, bs)
                        figures = run_fio(lab, job, f"/dev/{name}", params.runtime_s, control)
                        commands.append(figures.command)
                        cells.append(
                            SweepCell(
                                chunk,
                                bs,
                                rw,
                                round(figures.iops, 1),
                                round(figures.mib_s, 2),
                                figures.p50_us,
                                figures.p99_us,
                            )
                        )
            finally:
                control.step(f"{where}: tearing down {name}", check=False)
                lab.teardown([name])
    except ExperimentStopped:
        stopped = True
    result = ExperimentResult(
        "sweep", params.as_text(), tuple(cells), tuning, started, time.time(), stopped=stopped, commands=tuple(commands)
    )
    return store_result(lab.store, result)
