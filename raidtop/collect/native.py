"""The compiled disk parse and rates, or ``None`` where the install built without them.

At thousands of busy disks CPython's ``split`` and ``int()`` alone cost three
times a raw read of /proc/diskstats (issue 30, item 2), so the regular case
of both jobs is done in C: ``_diskstats_native.c`` beside ``diskstats.py``
and ``rates/_disk_rates_native.c`` beside ``rates/disk.py``. The Python code
stays the reference and the fallback: the C functions decline (return
``None``) whatever is not regular, and the Python path decides it and words
its notes. Callers read these attributes when they run, so a test or a
measurement can set them to ``None`` for the Python path.
"""

from __future__ import annotations

from importlib import import_module
from types import ModuleType

from raidtop.model.disk_columns import COUNTER_FIELDS
from raidtop.model.snapshot import DISK_RATE_FIELDS


def _load(name: str) -> ModuleType | None:
    try:
        return import_module(name)
    except ImportError:  # installed where no C compiler built it: the Python path does it all
        return None


def _rates() -> ModuleType | None:
    module = _load("raidtop.collect.rates._disk_rates_native")
    if module is None or module.COUNTER_FIELDS != COUNTER_FIELDS or module.RATE_FIELDS != DISK_RATE_FIELDS:
        return None  # built from other sources than these (a stale build): never trusted with a number
    return module


diskstats_parse: ModuleType | None = _load("raidtop.collect._diskstats_native")
"""``parse`` and ``changed_rows`` of /proc/diskstats, or ``None``: the Python parse reads every file."""

disk_rates: ModuleType | None = _rates()
"""``rate_columns``, or ``None``: the Python rates work out every device."""
