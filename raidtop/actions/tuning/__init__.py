"""Change block-queue and md tuning knobs safely: validate, write, read back, log, undo.

Every storage-tuning guide changes the same handful of sysfs files by hand.
This module knows those knobs (:data:`SPECS`), reads their current value and
what the kernel allows, checks a new value *before* writing it, writes it the
way ``echo VALUE > FILE`` does, reads it back, and says in words what
happened. Nothing here raises on a failed write: the kernel's error becomes a
sentence in a :class:`ChangeResult`.

All paths go through a :class:`~raidtop.collect.source.Root`, so a session can
point at a copy of /sys; the commands shown to the user always name the real
system paths (``/sys/block/sda/queue/scheduler``).

What the kernel accepts (checked against the 6.x sources and on a 6.18 host):

* ``scheduler``: one of the words ``queue/scheduler`` lists; switching it
  resets ``nr_requests`` to the new scheduler's default.
* ``nr_requests``: values below 4 (BLKDEV_MIN_RQ) are raised to 4; at most 2048
  (MAX_SCHED_RQ) with a scheduler, at most the driver's queue depth with
  ``none`` (EINVAL above it; sysfs does not show that depth).
* ``read_ahead_kb``: kept in pages, so non-multiples of the page size are
  rounded down; ``blockdev --setra`` sets the same value in 512-byte sectors.
* ``max_sectors_kb``: 4 KiB (or a page) up to ``max_hw_sectors_kb``; newer
  kernels silently cap larger values.
* ``rq_affinity`` and ``nomerges``: 0, 1 or 2.
* ``write_cache``: ``write back`` or ``write through``; it changes the kernel's
  view only (whether it sends cache flushes), not the drive.
* md ``sync_speed_min``/``_max``: a positive KiB/s value, or ``system`` to
  follow /proc/sys/dev/raid/speed_limit_*; they read ``N (local)`` or
  ``N (system)``.
* md ``stripe_cache_size`` (raid4/5/6): 17–32768; ``group_thread_cnt``: 0–8192.
* /proc/sys/dev/raid/speed_limit_min/max: ints (proc_dointvec).
* md ``sync_action``: ``check``, ``repair`` or ``idle`` (stop); a request, not a
  setting, so it is logged but never undone or made permanent.

The package, one job per module: :mod:`.knobs` (what each knob is),
:mod:`.reading`, :mod:`.validation`, :mod:`.changes` (plans and results),
:mod:`.sysfs_write` (the one writer), :mod:`.session` (apply, read back, log),
:mod:`.undo`, :mod:`.eta` (what a speed limit does to a rebuild) and
:mod:`.rules` (udev rules and sysctl.d files that make changes permanent).
"""

from __future__ import annotations

from raidtop.actions.tuning.changes import ChangeResult, Plan, Refusal
from raidtop.actions.tuning.knobs import (
    BLKDEV_MIN_RQ,
    CHOICE_MEANINGS,
    GLOBAL_KNOBS,
    GLOBAL_TARGET,
    INT_MAX,
    MAX_SCHED_RQ,
    MD_KNOBS,
    PAGE_KB,
    QUEUE_KNOBS,
    READ_AHEAD_LIMIT_KB,
    SPECS,
    SPEED_KNOBS,
    WRITE_THROUGH_WARNING,
    Allowed,
    Knob,
    KnobSpec,
    Target,
    TuningError,
    dev_name,
    shell_command,
    sys_name,
    system_path,
)
from raidtop.actions.tuning.reading import list_targets, parent_disk, read_knobs, read_target
from raidtop.actions.tuning.session import TuningSession
from raidtop.actions.tuning.shared import SettingFailed, session_for, write_setting
from raidtop.actions.tuning.sysfs_write import describe_write_error, write_attribute
from raidtop.actions.tuning.undo import changes_from_log
from raidtop.actions.tuning.validation import MAX_VALUE_DIGITS, Checked, check_value

__all__ = [
    "BLKDEV_MIN_RQ",
    "INT_MAX",
    "MAX_SCHED_RQ",
    "READ_AHEAD_LIMIT_KB",
    "CHOICE_MEANINGS",
    "GLOBAL_KNOBS",
    "GLOBAL_TARGET",
    "MAX_VALUE_DIGITS",
    "MD_KNOBS",
    "PAGE_KB",
    "QUEUE_KNOBS",
    "SPECS",
    "SPEED_KNOBS",
    "WRITE_THROUGH_WARNING",
    "Allowed",
    "ChangeResult",
    "Checked",
    "Knob",
    "KnobSpec",
    "Plan",
    "Refusal",
    "SettingFailed",
    "Target",
    "TuningError",
    "TuningSession",
    "changes_from_log",
    "check_value",
    "describe_write_error",
    "dev_name",
    "list_targets",
    "parent_disk",
    "read_knobs",
    "read_target",
    "session_for",
    "shell_command",
    "sys_name",
    "system_path",
    "write_attribute",
    "write_setting",
]
