"""Build the exact fio command line for a preset and a checked target.

The argv is what runs and its shell-quoted form is what the confirm dialog,
the action log and the history show, so the user can paste it and get the
same job. Output is always ``--output-format=json --status-interval=1`` (one
JSON object per second, then the final one) with ``--group_reporting``.

libaio is fio's usual engine for direct I/O, but a fio built without it, or a
kernel without AIO (some containers), cannot use it; :func:`check_engine`
asks ``fio --enghelp`` and then tries a 64 KiB job, and the command falls
back to ``psync`` and says so.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import tempfile
import threading

from raidtop.model.frozen import frozen_dataclass
from raidtop.actions.fio.guards import BenchTarget
from raidtop.actions.fio.presets import DEFAULT_SIZE, Preset

FIO_PACKAGE = "fio"
"""The Debian/Ubuntu (and Fedora, Arch) package that installs fio."""
FALLBACK_ENGINE = "psync"


@frozen_dataclass
class EngineChoice:
    """The I/O engine a run uses and, when it is not the one asked for, why."""

    engine: str
    note: str | None = None


@frozen_dataclass
class FioCommand:
    """One fio invocation, ready to run."""

    argv: tuple[str, ...]
    preset: Preset
    target: BenchTarget
    runtime_s: int
    engine: str
    engine_note: str | None = None
    size: str | None = None
    """Test-file size (directory targets only)."""

    @property
    def display(self) -> str:
        """The command as one shell-quoted line, with the target's real path."""
        return shlex.join(self.argv)

    def argv_for(self, fio_filename: str) -> tuple[str, ...]:
        """The argv that runs: ``--filename`` names the descriptor raidtop opened (``/proc/self/fd/N``)."""
        return tuple(f"--filename={fio_filename}" if arg.startswith("--filename=") else arg for arg in self.argv)


def find_fio() -> str | None:
    """The fio executable on PATH, or ``None`` when fio is not installed."""
    return shutil.which("fio")


def fio_missing_message() -> str:
    """What to tell a user without fio."""
    return f"fio is not installed: install the '{FIO_PACKAGE}' package (apt install {FIO_PACKAGE})"


def fio_version(fio: str = "fio") -> str | None:
    """``fio-3.33`` as ``fio --version`` prints it, or ``None`` when it cannot run."""
    try:
        out = subprocess.run([fio, "--version"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    text = out.stdout.strip()
    return text or None


_engine_cache: dict[tuple[str, str], EngineChoice] = {}
_engine_lock = threading.Lock()


def check_engine(engine: str, fio: str = "fio") -> EngineChoice:
    """``engine`` if fio can use it here, else psync with the reason (cached per fio)."""
    if engine != "libaio":
        return EngineChoice(engine)
    key = (fio, engine)
    with _engine_lock:
        if key in _engine_cache:
            return _engine_cache[key]
    choice = _probe_libaio(fio)
    with _engine_lock:
        _engine_cache[key] = choice
    return choice


def _probe_libaio(fio: str) -> EngineChoice:
    try:
        listing = subprocess.run([fio, "--enghelp"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        return EngineChoice(
            FALLBACK_ENGINE, f"libaio unavailable (fio --enghelp failed: {exc}); using {FALLBACK_ENGINE}"
        )
    if "libaio" not in listing.split():
        return EngineChoice(
            FALLBACK_ENGINE, f"libaio unavailable (this fio was built without it); using {FALLBACK_ENGINE}"
        )
    # Built in is not enough: io_setup may be refused (containers, aio-max-nr).
    with tempfile.TemporaryDirectory(prefix="raidtop-fio-probe-") as tmp:
        argv = [
            fio,
            "--name=probe",
            "--ioengine=libaio",
            f"--filename={tmp}/probe",
            "--size=64k",
            "--bs=4k",
            "--rw=read",
            "--output-format=json",
        ]
        try:
            done = subprocess.run(argv, capture_output=True, text=True, timeout=30)
        except (OSError, subprocess.SubprocessError) as exc:
            return EngineChoice(
                FALLBACK_ENGINE, f"libaio unavailable (test job failed: {exc}); using {FALLBACK_ENGINE}"
            )
    if done.returncode != 0:
        reason = (done.stderr.strip().splitlines() or ["exit code " + str(done.returncode)])[-1]
        return EngineChoice(FALLBACK_ENGINE, f"libaio unavailable ({reason}); using {FALLBACK_ENGINE}")
    return EngineChoice("libaio")


def build_command(
    preset: Preset,
    target: BenchTarget,
    *,
    runtime_s: int,
    size: str | None = None,
    engine: EngineChoice | None = None,
    fio: str = "fio",
) -> FioCommand:
    """The fio command for ``preset`` on ``target`` running ``runtime_s`` seconds.

    ``size`` is the test-file size for a directory target (ignored for a
    device, where fio uses the whole device). ``engine`` defaults to the
    preset's engine after :func:`check_engine`.
    """
    choice = engine or check_engine(preset.ioengine, fio)
    argv = [
        fio,
        f"--name={preset.name}",
        f"--filename={target.shown_filename}",
        f"--rw={preset.rw}",
    ]
    if preset.rwmixread is not None and preset.rw in ("randrw", "rw", "readwrite"):
        argv.append(f"--rwmixread={preset.rwmixread}")
    argv += [
        f"--bs={preset.bs}",
        f"--iodepth={preset.iodepth}",
        f"--numjobs={preset.numjobs}",
        # Jobs as threads of one process: when raidtop dies, the kernel's parent-death
        # signal kills that process and with it every job (forked jobs would write on).
        "--thread",
        f"--ioengine={choice.engine}",
        f"--direct={1 if preset.direct else 0}",
        "--time_based",
        f"--runtime={runtime_s}",
    ]
    if target.kind == "directory":
        size = size or DEFAULT_SIZE
        argv.append(f"--size={size}")
    elif not preset.writes:
        # A read job on a raw device: fio itself then refuses any write.
        argv.append("--readonly")
    argv += [f"--{name}={value}" for name, value in preset.options]
    argv += ["--group_reporting", "--output-format=json", "--status-interval=1"]
    return FioCommand(
        argv=tuple(argv),
        preset=preset,
        target=target,
        runtime_s=runtime_s,
        engine=choice.engine,
        engine_note=choice.note,
        size=size if target.kind == "directory" else None,
    )
