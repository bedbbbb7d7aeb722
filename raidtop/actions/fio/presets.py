"""Benchmark presets: the built-in jobs and the user's presets.toml.

The built-ins are the jobs storage guides use (sequential and random 1M/4K,
the classic 50/50 randrw RAID-level comparison, a 4M certification job).
``$XDG_CONFIG_HOME/raidtop/presets.toml`` may change any field of a built-in
or add new presets::

    runtime = 20              # seconds, for presets without their own
    size = "2G"               # test-file size for directory targets

    [preset.rand-read]
    iodepth = 64

    [preset.oltp-8k]
    description = "8K 70/30 random mix"
    rw = "randrw"
    rwmixread = 70
    bs = "8k"
    iodepth = 16
    numjobs = 4
    options = { norandommap = "1" }

A file that cannot be read or parsed leaves the built-ins in force and yields
one message; a bad preset is skipped with a message naming it. Jobs are
bounded (:data:`MAX_NUMJOBS`, :data:`MAX_IODEPTH`, :data:`MAX_RUNTIME_S`): a
typo of 100000 jobs would start 100000 threads on a server holding real data.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

from raidtop.model.frozen import frozen_dataclass
from raidtop.config import xdg_dir
from raidtop.safeio import read_bounded

DEFAULT_RUNTIME_S = 15
"""Seconds a preset runs unless it (or the user) says otherwise."""
DEFAULT_SIZE = "1G"
"""Test-file size for directory targets."""
MAX_NUMJOBS = 64
"""Jobs per run: each is a thread; beyond 64 a run measures the CPU scheduler, not the storage."""
MAX_IODEPTH = 1024
"""I/Os in flight per job: NVMe's deepest queue is 1024 entries and no device has a use for more."""
MAX_RUNTIME_S = 24 * 3600
"""A day: long enough for a burn-in, short enough that a typo does not write for a week."""
PRESETS_FILE_LIMIT = 1024 * 1024
"""Bytes read at most from presets.toml (a real one is a few KiB)."""
RUNTIME_STEPS = (5, 10, 15, 30, 60, 120)
"""The runtimes the screen cycles through."""

RW_MODES = ("read", "write", "randread", "randwrite", "rw", "readwrite", "randrw", "trim", "randtrim", "trimwrite")
"""fio ``rw=`` values a preset may use."""
_WRITING = {"write", "randwrite", "rw", "readwrite", "randrw", "trim", "randtrim", "trimwrite"}
_SIZE = re.compile(r"^\d+(?:\.\d+)?\s*(?:[kmgtp]i?b?)?$", re.IGNORECASE)
_OPTION_NAME = re.compile(r"^[a-z_][a-z0-9_]*$")
# Options raidtop sets itself: a preset overriding them would break parsing or the guards.
_RESERVED_OPTIONS = {
    "output-format",
    "output_format",
    "status-interval",
    "status_interval",
    "filename",
    "directory",
    "name",
    "group_reporting",
    "readonly",
    "runtime",
    "time_based",
    "size",
    "filename_format",
    # Which files fio touches, and whether its jobs die with raidtop: the guards depend on these.
    "opendir",
    "nrfiles",
    "unlink",
    "unlink_each_loop",
    "thread",
    "allow_mounted_write",
    "filesize",
    "exec_prerun",
    "exec_postrun",
    "create_only",
    "file_append",
    # The preset's own fields (and fio's aliases): set here they would dodge the limits.
    "rw",
    "readwrite",
    "bs",
    "blocksize",
    "iodepth",
    "numjobs",
    "ioengine",
    "direct",
    "buffered",
    "rwmixread",
}


@frozen_dataclass
class Preset:
    """One fio job raidtop can run."""

    name: str
    rw: str
    bs: str
    iodepth: int
    numjobs: int
    description: str = ""
    runtime_s: int | None = None
    """Its own runtime (certification: 30 s); ``None`` takes the default."""
    ioengine: str = "libaio"
    direct: bool = True
    rwmixread: int | None = None
    """Percentage of reads for mixed modes (randrw)."""
    size: str | None = None
    """Test-file size for directory targets; ``None`` takes the default."""
    options: tuple[tuple[str, str], ...] = ()
    """Further fio options as (name, value) pairs, passed as ``--name=value``."""
    origin: str = "built-in"
    """``built-in``, ``presets.toml`` or ``built-in, changed in presets.toml``."""

    @property
    def writes(self) -> bool:
        """True when the job writes (or trims) the target."""
        return self.rw in _WRITING

    @property
    def summary(self) -> str:
        """``randrw 50/50 4k QD32×4`` — what the job does, in a few words."""
        mix = f" {self.rwmixread}/{100 - self.rwmixread}" if self.rwmixread is not None else ""
        return f"{self.rw}{mix} {self.bs} QD{self.iodepth}×{self.numjobs}"


BUILTIN_PRESETS: tuple[Preset, ...] = (
    Preset("seq-read", "read", "1M", 32, 4, "Sequential read, 1M blocks"),
    Preset("seq-write", "write", "1M", 32, 4, "Sequential write, 1M blocks"),
    Preset("rand-read", "randread", "4k", 32, 4, "Random read, 4K blocks"),
    Preset("rand-write", "randwrite", "4k", 32, 4, "Random write, 4K blocks"),
    Preset(
        "rand-rw", "randrw", "4k", 32, 4, "4K 50/50 random read/write: the classic RAID-level comparison", rwmixread=50
    ),
    Preset(
        "certification", "randwrite", "4M", 64, 4, "4M random write for 30 s: a client acceptance job", runtime_s=30
    ),
)
"""The presets every raidtop has, in the order the screen lists them."""

KEYED_PRESETS = len(BUILTIN_PRESETS)
"""Presets a digit key runs (1 to this): one per built-in; presets a user adds run with Enter."""


def preset_keys() -> str:
    """The digit keys that run presets, as the screen, help and README name them: ``1–6``."""
    return f"1–{KEYED_PRESETS}"


@frozen_dataclass
class PresetSet:
    """The presets in force and what went wrong loading the user's file."""

    presets: tuple[Preset, ...]
    default_runtime_s: int = DEFAULT_RUNTIME_S
    default_size: str = DEFAULT_SIZE
    problems: tuple[str, ...] = ()
    """One sentence per problem; the built-ins stay whatever the file holds."""
    path: Path | None = None

    def get(self, name: str) -> Preset | None:
        """The preset called ``name``, if any."""
        return next((p for p in self.presets if p.name == name), None)

    @property
    def names(self) -> tuple[str, ...]:
        """Every preset name, in list order."""
        return tuple(p.name for p in self.presets)

    def runtime_of(self, preset: Preset, override: int | None = None, *, default: int | None = None) -> int:
        """Seconds ``preset`` runs: an explicit ``override``, else its own runtime, else ``default``.

        ``default`` (the Benchmarks screen's ``u``) only stands in for presets
        without a runtime of their own; ``None`` takes the presets file's.
        """
        if override is not None:
            return override
        if preset.runtime_s is not None:
            return preset.runtime_s
        return default if default is not None else self.default_runtime_s

    def size_of(self, preset: Preset, override: str | None = None) -> str:
        """The test-file size for a directory target."""
        return override or preset.size or self.default_size


def presets_path() -> Path:
    """``$XDG_CONFIG_HOME/raidtop/presets.toml``."""
    return xdg_dir("config") / "presets.toml"


def load_presets(path: Path | None = None) -> PresetSet:
    """The built-ins, changed and extended by ``path`` (default :func:`presets_path`)."""
    path = path or presets_path()
    try:
        text = read_bounded(path, PRESETS_FILE_LIMIT).decode("utf-8")
    except FileNotFoundError:
        return PresetSet(BUILTIN_PRESETS, path=path)
    except UnicodeDecodeError:
        return PresetSet(
            BUILTIN_PRESETS, problems=(f"{path}: is not UTF-8 text; using the built-in presets",), path=path
        )
    except OSError as exc:
        reason = getattr(exc, "reason", None) or exc.strerror or str(exc)
        return PresetSet(
            BUILTIN_PRESETS, problems=(f"{path}: cannot be read ({reason}); using the built-in presets",), path=path
        )
    return parse_presets_toml(text, path)


def parse_presets_toml(text: str, path: Path | None = None) -> PresetSet:
    """Apply a presets.toml text to the built-ins; never raises."""
    where = str(path) if path else "presets.toml"
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return PresetSet(BUILTIN_PRESETS, problems=(f"{where}: {exc}; using the built-in presets",), path=path)
    except RecursionError:
        return PresetSet(
            BUILTIN_PRESETS,
            problems=(f"{where}: nested too deeply to be a presets file; using the built-in presets",),
            path=path,
        )
    problems: list[str] = []
    runtime = DEFAULT_RUNTIME_S
    size = DEFAULT_SIZE
    if "runtime" in doc:
        if _positive_int(doc["runtime"]) and doc["runtime"] <= MAX_RUNTIME_S:
            runtime = doc["runtime"]
        else:
            problems.append(
                f"{where}: runtime must be a whole number of seconds from 1 to {MAX_RUNTIME_S}, not {doc['runtime']!r}"
            )
    if "size" in doc:
        if isinstance(doc["size"], str) and _SIZE.match(doc["size"]):
            size = doc["size"]
        else:
            problems.append(f"{where}: size must look like \"1G\" or \"512M\", not {doc['size']!r}")
    unknown = sorted(set(doc) - {"runtime", "size", "preset"})
    if unknown:
        problems.append(f"{where}: unknown top-level keys ignored: {', '.join(unknown)}")
    presets = list(BUILTIN_PRESETS)
    table = doc.get("preset", {})
    if not isinstance(table, dict):
        problems.append(f"{where}: [preset] must be a table of presets")
        table = {}
    for name, spec in table.items():
        existing = next((i for i, p in enumerate(presets) if p.name == name), None)
        base = presets[existing] if existing is not None else None
        built, problem = _build_preset(name, spec, base)
        if problem or built is None:
            problems.append(f"{where}: preset {name!r}: {problem}; {'kept the built-in' if base else 'skipped'}")
            continue
        if existing is not None:
            presets[existing] = built
        else:
            presets.append(built)
    return PresetSet(tuple(presets), runtime, size, tuple(problems), path)


_FIELD_TYPES = {
    "description": str,
    "rw": str,
    "bs": str,
    "iodepth": int,
    "numjobs": int,
    "runtime": int,
    "ioengine": str,
    "direct": bool,
    "rwmixread": int,
    "size": str,
}


def _build_preset(name: str, spec: Any, base: Preset | None) -> tuple[Preset | None, str | None]:
    if not re.match(r"^[A-Za-z0-9][A-Za-z0-9._-]*$", name):
        return None, "names may hold letters, digits, '.', '_' and '-' only"
    if not isinstance(spec, dict):
        return None, "must be a table"
    unknown = sorted(set(spec) - set(_FIELD_TYPES) - {"options"})
    if unknown:
        return None, f"unknown keys {', '.join(unknown)} (known: {', '.join(sorted(_FIELD_TYPES))}, options)"
    values: dict[str, Any] = {}
    for key, kind in _FIELD_TYPES.items():
        if key not in spec:
            continue
        value = spec[key]
        # bool is an int in Python; a preset saying iodepth = true is a mistake.
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            return None, f"{key} must be {kind.__name__}, not {value!r}"
        values["runtime_s" if key == "runtime" else key] = value
    for key, most in (("iodepth", MAX_IODEPTH), ("numjobs", MAX_NUMJOBS), ("runtime_s", MAX_RUNTIME_S)):
        if key in values and not 1 <= values[key] <= most:
            return None, f"{key.removesuffix('_s')} must be from 1 to {most}, not {values[key]}"
    if "rw" in values and values["rw"] not in RW_MODES:
        return None, f"rw must be one of {', '.join(RW_MODES)}"
    if "rwmixread" in values and not 0 <= values["rwmixread"] <= 100:
        return None, "rwmixread must be 0..100"
    for key in ("bs", "size"):
        if key in values and not _SIZE.match(values[key]):
            return None, f"{key} must look like 4k, 1M or 2G, not {values[key]!r}"
    if "options" in spec:
        options = spec["options"]
        if not isinstance(options, dict):
            return None, "options must be a table of fio options"
        pairs = []
        for option, value in options.items():
            if not _OPTION_NAME.match(option) or option in _RESERVED_OPTIONS:
                return None, f"option {option!r} is not allowed (raidtop sets it, or it is not a fio option name)"
            if isinstance(value, bool):
                value = "1" if value else "0"
            if not isinstance(value, (str, int, float)):
                return None, f"option {option} must be a string or number"
            pairs.append((option, str(value)))
        values["options"] = tuple(pairs)
    if base is not None:
        return replace(base, origin="built-in, changed in presets.toml", **values), None
    missing = [key for key in ("rw", "bs", "iodepth", "numjobs") if key not in values]
    if missing:
        return None, f"a new preset needs {', '.join(missing)}"
    return Preset(name=name, origin="presets.toml", **values), None


def check_job(preset: Preset, runtime_s: int) -> str | None:
    """Why ``preset`` may not run for ``runtime_s`` seconds (one sentence), or ``None``."""
    for what, value, most in (
        ("numjobs", preset.numjobs, MAX_NUMJOBS),
        ("iodepth", preset.iodepth, MAX_IODEPTH),
        ("runtime", runtime_s, MAX_RUNTIME_S),
    ):
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= most:
            return f"preset {preset.name}: {what} must be from 1 to {most}, not {value!r}"
    return None


def _positive_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def next_runtime(current: int, direction: int = 1) -> int:
    """The next runtime step up (+1) or down (-1), wrapping around."""
    steps = RUNTIME_STEPS
    if direction > 0:
        return next((s for s in steps if s > current), steps[0])
    return next((s for s in reversed(steps) if s < current), steps[-1])


__all__ = [
    "BUILTIN_PRESETS",
    "DEFAULT_RUNTIME_S",
    "DEFAULT_SIZE",
    "KEYED_PRESETS",
    "MAX_IODEPTH",
    "MAX_NUMJOBS",
    "MAX_RUNTIME_S",
    "Preset",
    "PresetSet",
    "check_job",
    "load_presets",
    "next_runtime",
    "parse_presets_toml",
    "preset_keys",
    "presets_path",
]

# Keep dataclass field names and the TOML keys in step (runtime is runtime_s).
assert {f.name for f in fields(Preset)} >= {("runtime_s" if k == "runtime" else k) for k in _FIELD_TYPES}
