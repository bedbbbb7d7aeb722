"""What the Benchmarks screen remembers between sessions: the target and the runtime.

Stored as ``$XDG_CONFIG_HOME/raidtop/bench.json``. A raw-device override is
deliberately not remembered: it must be given again in each session.
"""

from __future__ import annotations

import json
from pathlib import Path

from raidtop.model.frozen import frozen_dataclass
from raidtop.config import xdg_dir
from raidtop.safeio import atomic_write, read_bounded_text


@frozen_dataclass
class BenchPrefs:
    """The remembered choices; ``None`` means not chosen yet."""

    target: str | None = None
    runtime_s: int | None = None


def prefs_path() -> Path:
    """``$XDG_CONFIG_HOME/raidtop/bench.json``."""
    return xdg_dir("config") / "bench.json"


def load_prefs(path: Path | None = None) -> BenchPrefs:
    """The saved choices; a missing or damaged file gives the defaults."""
    try:
        # Bounded and non-blocking: a FIFO or a huge file in the config dir is no hang.
        doc = json.loads(read_bounded_text(path or prefs_path(), 64 * 1024))
    except (OSError, ValueError):
        return BenchPrefs()
    if not isinstance(doc, dict):
        return BenchPrefs()
    target = doc.get("target")
    runtime = doc.get("runtime_s")
    return BenchPrefs(
        target=target if isinstance(target, str) and target else None,
        runtime_s=runtime if isinstance(runtime, int) and not isinstance(runtime, bool) and runtime > 0 else None,
    )


def save_prefs(prefs: BenchPrefs, path: Path | None = None) -> Path:
    """Write the choices atomically and durably (the one atomic-write helper, mode 0600)."""
    text = json.dumps({"target": prefs.target, "runtime_s": prefs.runtime_s}, indent=1)
    return atomic_write(path or prefs_path(), text, 0o600)
