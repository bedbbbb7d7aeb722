"""The one place where counters become rates.

Formulas follow sysstat 12.6 (iostat.c, rd_stats.c, mpstat.c) and procps
vmstat, so raidtop's numbers equal theirs on the same inputs. Where a value is
undefined (an average over zero requests, a counter that went backwards) the
result is ``None``: the UI shows "—" and the JSON ``null``.

One module per source: :mod:`.disk` (iostat -x), :mod:`.cpu` (mpstat) and
:mod:`.vmstat` (vmstat); the sampler and the tests use the names below.
"""

from __future__ import annotations

from raidtop.collect.rates.cpu import carry_offline_cpus, cpu_usage, cpu_usages
from raidtop.collect.rates.disk import DISK_RATE_FIELDS, disk_io, disk_rate_columns, updated_rate_columns
from raidtop.collect.rates.vmstat import vm_stat

__all__ = [
    "DISK_RATE_FIELDS",
    "carry_offline_cpus",
    "cpu_usage",
    "cpu_usages",
    "disk_io",
    "disk_rate_columns",
    "updated_rate_columns",
    "vm_stat",
]
