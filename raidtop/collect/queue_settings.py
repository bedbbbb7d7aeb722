"""Read a block device's tunable queue settings from /sys/block/<dev>/queue.

These are the knobs storage tuning guides change by hand; the tuning screen
shows them and the benchmark history records them with every result.
"""

from __future__ import annotations

from typing import Any

from raidtop.model.frozen import frozen_dataclass
from raidtop.collect.source import Root, as_root

QUEUE_ATTRS = (
    "scheduler",
    "read_ahead_kb",
    "nr_requests",
    "rq_affinity",
    "nomerges",
    "max_sectors_kb",
    "max_hw_sectors_kb",
    "write_cache",
    "rotational",
)


@frozen_dataclass
class QueueSettings:
    """One device's queue settings; ``None`` where the kernel does not expose one."""

    device: str
    scheduler: str | None = None
    """The active scheduler (the bracketed word of ``queue/scheduler``)."""
    schedulers: tuple[str, ...] = ()
    """Every scheduler the device offers."""
    read_ahead_kb: int | None = None
    nr_requests: int | None = None
    rq_affinity: int | None = None
    nomerges: int | None = None
    max_sectors_kb: int | None = None
    max_hw_sectors_kb: int | None = None
    write_cache: str | None = None
    """``write back`` or ``write through``."""
    rotational: bool | None = None

    @property
    def read_ahead_sectors(self) -> int | None:
        """read_ahead_kb as ``blockdev --setra`` counts it (512-byte sectors)."""
        return None if self.read_ahead_kb is None else self.read_ahead_kb * 2


def parse_scheduler(text: str) -> tuple[str | None, tuple[str, ...]]:
    """``mq-deadline kyber [bfq] none`` -> (``bfq``, all four)."""
    words = text.split()
    active = next((w[1:-1] for w in words if w.startswith("[") and w.endswith("]")), None)
    offered = tuple(w.strip("[]") for w in words)
    if active is None and len(offered) == 1:
        active = offered[0]  # "none" alone is printed without brackets
    return active, offered


def read_queue_settings(root: Root | str, device: str) -> QueueSettings:
    """Read every queue attribute of ``device`` that exists and parses."""
    root = as_root(root)
    base = f"/sys/block/{device.replace('/', '!')}/queue"
    values: dict[str, Any] = {}  # attribute -> its parsed value, each of its own type
    text = root.read_optional(f"{base}/scheduler")
    if text is not None:
        values["scheduler"], values["schedulers"] = parse_scheduler(text)
    for attr in ("read_ahead_kb", "nr_requests", "rq_affinity", "nomerges", "max_sectors_kb", "max_hw_sectors_kb"):
        raw = root.read_optional(f"{base}/{attr}")
        if raw is not None:
            try:
                values[attr] = int(raw.split()[0])
            except (ValueError, IndexError):
                pass
    raw = root.read_optional(f"{base}/write_cache")
    if raw is not None and raw.strip():
        values["write_cache"] = raw.strip()
    raw = root.read_optional(f"{base}/rotational")
    if raw is not None and raw.strip() in ("0", "1"):
        values["rotational"] = raw.strip() == "1"
    return QueueSettings(device, **values)
