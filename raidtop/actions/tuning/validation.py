"""Check a new knob value before anything is written, and say what the change will do.

:func:`check_value` refuses words a knob does not offer, numbers outside its
range, non-numbers and values the kernel would round; :func:`change_warnings`
gives the warning and notes a confirmation shows (write through, scheduler
resets, RAM used by a stripe cache, a minimum above the maximum).
"""

from __future__ import annotations

import re

from raidtop.model.frozen import frozen_dataclass
from raidtop.actions.tuning.knobs import INT_MAX, PAGE_KB, SPEED_KNOBS, WRITE_THROUGH_WARNING, Knob
from raidtop.untrusted import plain
from raidtop.model.units import counted


@frozen_dataclass
class Checked:
    """The outcome of :func:`check_value`: a canonical value, or why it is refused."""

    value: str | None
    error: str | None = None


_WRITE_CACHE_ALIASES = {
    "write back": "write back",
    "writeback": "write back",
    "write-back": "write back",
    "write through": "write through",
    "writethrough": "write through",
    "write-through": "write through",
}


MAX_VALUE_DIGITS = 20
"""More digits than any kernel knob holds (u64 has 20); longer values are refused uncounted."""


def _shown(raw: str) -> str:
    """``raw`` quoted for a refusal: control characters replaced, at most 40 characters."""
    text = plain(raw)
    return repr(text if len(text) <= 40 else text[:40] + "…")


def check_value(knob: Knob, text: str) -> Checked:
    """Validate ``text`` for ``knob`` before anything is written.

    Refuses words the knob does not offer, numbers outside the range (negative,
    huge), non-numbers, and read-ahead values the kernel would round.
    """
    name = f"{knob.target} {knob.attr}"
    raw = " ".join(str(text).split())
    if not raw:
        return Checked(None, f"{name}: enter a value ({knob.allowed.describe()})")
    if not knob.writable:
        return Checked(None, f"{name} is read-only on this device: the kernel does not allow changing it")
    allowed = knob.allowed
    if allowed.choices:
        if knob.attr == "write_cache":
            raw = _WRITE_CACHE_ALIASES.get(raw.lower(), raw)
        if raw in allowed.choices:
            return Checked(raw)
        if knob.attr == "scheduler":
            return Checked(
                None, f"{name}: {_shown(raw)} is not offered by this device (it offers: {' '.join(allowed.choices)})"
            )
        return Checked(None, f"{name}: {_shown(raw)} is not allowed (choose one of: {', '.join(allowed.choices)})")
    if raw.lower() in allowed.words:
        return Checked(raw.lower())
    words = f" or {'/'.join(allowed.words)}" if allowed.words else ""
    if re.fullmatch(r"-\s*[0-9]+", raw, re.ASCII):
        return Checked(None, f"{name}: negative numbers are not allowed ({allowed.describe()})")
    if not re.fullmatch(r"[0-9]+", raw, re.ASCII):
        return Checked(None, f"{name}: {_shown(raw)} is not a whole number{words} ({allowed.describe()})")
    digits = raw.lstrip("0") or "0"
    if len(digits) > MAX_VALUE_DIGITS:
        # Counted before int(): a 100,000-digit value is refused with a sentence, not a ValueError.
        return Checked(
            None,
            f"{name}: a {len(digits)}-digit number is above the maximum "
            f"{allowed.high if allowed.high is not None else INT_MAX}",
        )
    number = int(digits)
    if allowed.low is not None and number < allowed.low:
        hint = " (the kernel would silently raise it to 4)" if knob.attr == "nr_requests" else ""
        return Checked(None, f"{name}: {number} is below the minimum {allowed.low}{hint}")
    if allowed.high is not None and number > allowed.high:
        why = f" ({allowed.note})" if allowed.note and knob.attr == "max_sectors_kb" else ""
        return Checked(None, f"{name}: {number} is above the maximum {allowed.high}{why}")
    if allowed.multiple_of and number % allowed.multiple_of:
        rounded = number - number % allowed.multiple_of
        return Checked(
            None,
            f"{name}: the kernel keeps read-ahead in {allowed.multiple_of} KiB pages, so {number} "
            f"would become {rounded}; use a multiple of {allowed.multiple_of}",
        )
    return Checked(str(number))


SPEED_PAIRS = {
    "sync_speed_min": "sync_speed_max",
    "sync_speed_max": "sync_speed_min",
    "speed_limit_min": "speed_limit_max",
    "speed_limit_max": "speed_limit_min",
}
"""Each speed limit and the other end of its range."""


def mib(kib: int) -> str:
    """``2048`` → ``2 MiB``; below a MiB, in KiB."""
    return f"{kib // 1024} MiB" if kib >= 1024 else f"{kib} KiB"


def change_warnings(knob: Knob, new: str, *, other: Knob | None = None, disks: int = 0) -> tuple[str, tuple[str, ...]]:
    """The warning (data at risk) and notes for setting ``knob`` to the checked value ``new``.

    ``other`` is the other end of a speed range (:data:`SPEED_PAIRS`), ``disks``
    the array's raid_disks for a stripe cache's RAM.
    """
    notes: list[str] = []
    warning = ""
    if knob.attr == "write_cache":
        if new == "write through":
            warning = WRITE_THROUGH_WARNING
        else:
            notes.append(
                "write back makes the kernel send cache flushes again (the safe setting); "
                "on a device without a volatile cache it reads back as write through."
            )
    elif knob.attr == "scheduler":
        notes.append("Switching the scheduler resets nr_requests to the new scheduler's default.")
    elif knob.attr == "nr_requests" and knob.allowed.note:
        notes.append(f"nr_requests {knob.allowed.note}; the kernel refuses more with EINVAL.")
    elif knob.attr == "stripe_cache_size" and disks:
        notes.append(
            f"Uses about {mib(int(new) * PAGE_KB * disks)} of RAM ({new} × {PAGE_KB} KiB × {counted(disks, 'disk')})."
        )
    elif knob.attr == "read_ahead_kb":
        notes.append(f"raidtop writes {new} to {knob.path}; blockdev --setra counts 512-byte sectors.")
    if knob.attr in SPEED_KNOBS and new.isdigit() and other is not None and other.effective is not None:
        low, high = (int(new), other.effective) if knob.attr.endswith("min") else (other.effective, int(new))
        if low > high:
            notes.append(f"The minimum ({low}) is above the maximum ({high}): md then syncs at the minimum.")
    return warning, tuple(notes)
