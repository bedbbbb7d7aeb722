"""The compiled disk parse and rates (``_disk_native.c``), or ``None`` where the install built without them.

At thousands of busy disks CPython's ``split`` and ``int()`` alone cost three
times a raw read of /proc/diskstats (issue 30, item 2), so the regular case
of both jobs is done in C. The Python code in ``diskstats.py`` and
``rates/disk.py`` stays the reference and the fallback: the C functions
decline (return ``None``) whatever is not regular, and the Python path
decides it and words its notes. Callers read :data:`compiled` when they run,
so a test or a measurement can set it to ``None`` for the Python path.
"""

from __future__ import annotations

from types import ModuleType

from raidtop.model.disk_columns import COUNTER_FIELDS
from raidtop.model.snapshot import DISK_RATE_FIELDS


def _load() -> ModuleType | None:
    try:
        from raidtop.collect import _disk_native
    except ImportError:  # installed where no C compiler built it: the Python path does it all
        return None
    if _disk_native.COUNTER_FIELDS != COUNTER_FIELDS or _disk_native.RATE_FIELDS != DISK_RATE_FIELDS:
        return None  # a module built from other sources than these (a stale build): never trusted
    return _disk_native


compiled: ModuleType | None = _load()
"""The C module, or ``None``: then every read goes through the Python path."""
