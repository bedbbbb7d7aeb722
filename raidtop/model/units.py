"""How raidtop writes a duration, a size and a rate, for every layer (pure functions, no I/O).

Sizes and rates follow one convention, IEC: powers of 1024 written with
their IEC symbols, ``B``, ``KiB``, ``MiB``, ``GiB``, ``TiB``, ``PiB`` and
``KiB/s``, ``MiB/s`` -- in table headers, cells, sentences, Explain and the
JSON's field names (``_kib``, ``_kib_s``, ``_bytes``, ``_b_s``). Everything
raidtop reads counts that way: the kernel counts 512-byte sectors and 4 KiB
pages, md's ``sync_speed``, ``sync_completed`` and speed limits are KiB,
``/proc/meminfo`` and ``/proc/vmstat`` are KiB, iostat's and vmstat's "kB"
are KiB (sectors / 2), and fio's ``bw`` is KiB/s. A decimal MB would be a
conversion raidtop added and the user would have to undo. :data:`NOT_IEC`
finds what breaks the convention; a test walks every declared label with it.

Each formatter comes in two registers, chosen by where the text goes:

* a table cell, short and without spaces, so the fitting rule of
  :mod:`raidtop.widgets.table_cells` can shorten it: ``45s``, ``12m30s``,
  ``2h07m``, ``3d04h``; ``512KiB``, ``1.5GiB``; ``980KiB/s``, ``12.3MiB/s``;
* a sentence (``spoken=True``), read as words: ``3.2 s``, ``1 min 04 s``,
  ``2 h 07 min``; ``512 B``, ``64 MiB``, ``1.5 GiB``; ``980 KiB/s``.

They live at the bottom of the package because actions (the lab's
timeline, fio's refusals, tuning's predictions) write sentences too.
"""

from __future__ import annotations

import math
import re

DASH = "—"
DURATION_UNITS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}
"""Suffixes a typed duration may carry, in seconds: options (``--duration 5m``) and the replay's jump (``+30s``)."""
MAX_DURATION_CHARS = 32
"""Longer typed durations are refused before any conversion."""
_TYPED_DURATION = re.compile(r"([0-9]+(?:\.[0-9]*)?|\.[0-9]+)([smhd]?)", re.ASCII)
_BINARY = (("P", 1 << 50), ("T", 1 << 40), ("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10))
IEC_SIZES = ("B", "KiB", "MiB", "GiB", "TiB", "PiB")
"""The size units raidtop writes; a rate is one of them per second (``KiB/s``)."""
NOT_IEC = re.compile(
    r"[kKMGTP]B?/s\b"  # K/s, M/s, kB/s, MB/s (iostat's rkB/s too: its kB are KiB)
    r"|(?<![A-Za-z])[kKMGTP]B\b"  # kB, MB, GB as a size
    r"|\d[KMGTP]\b"  # 512K, 1.5G: a bare prefix letter
    r"|(?:\b|_)[rwd]?[kmgt]b(?:_s)?\b|[kMG]Bps\b"  # field names: rkb_s, swpd_kb, read_MBps
)
"""A unit written outside the IEC convention (decimal or ambiguous); ``KiB``, ``MiB/s``, ``_kib_s`` pass."""


def duration(seconds: float | None, *, coarse: bool = False, spoken: bool = False, resolution_s: float = 0.0) -> str:
    """How long, in the two largest units that apply; an em dash when unknown.

    A cell: ``45s``, ``12m30s``, ``2h07m``, ``3d04h``; ``coarse`` (an age on
    a row, how long a sync has stalled) keeps whole minutes below an hour,
    ``4m``. A sentence (``spoken``, a measured time): ``3.2 s``, ``1 min 04 s``,
    ``2 h 07 min``, ``3 d 04 h``, prefixed ``≤`` when it was measured at a
    ``resolution_s`` too coarse to say more.
    """
    if seconds is None:
        return DASH
    if spoken:
        return _spoken(seconds, resolution_s)
    if coarse and seconds < 3600:
        s = int(seconds)  # an age: 4m until it is 5m, never rounded up
        return f"{s}s" if s < 60 else f"{s // 60}m"
    s = int(seconds + 0.5)
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    if s < 86400:
        return f"{s // 3600}h{s % 3600 // 60:02d}m"
    return f"{s // 86400}d{s % 86400 // 3600:02d}h"


def parse_duration(text: str) -> float | None:
    """Seconds from a duration a user typed, or ``None`` when it is not one.

    The one grammar for every typed duration, options (``--duration 5s``,
    ``--interval 0.5``) and the replay's jump (``+30s``) alike: a decimal
    number and at most one unit of :data:`DURATION_UNITS` (``30``, ``0.5``,
    ``5s``, ``2m``, ``1h``, ``1d``). No sign, exponent, ``inf`` or ``nan``;
    the caller says what range it takes.
    """
    stripped = text.strip()
    match = _TYPED_DURATION.fullmatch(stripped) if len(stripped) <= MAX_DURATION_CHARS else None
    if match is None:
        return None
    value = float(match.group(1)) * DURATION_UNITS[match.group(2)]
    return value if math.isfinite(value) else None


def _spoken(seconds: float, resolution_s: float) -> str:
    prefix = "≤ " if resolution_s > max(2.0, seconds / 2) else ""
    if seconds < 60:
        return f"{prefix}{seconds:.1f} s"
    s = int(round(seconds))
    if s < 3600:
        return f"{prefix}{s // 60} min {s % 60:02d} s"
    if s < 86400:
        return f"{prefix}{s // 3600} h {s % 3600 // 60:02d} min"
    return f"{prefix}{s // 86400} d {s % 86400 // 3600:02d} h"


def size(n_bytes: float | None, *, spoken: bool = False) -> str:
    """A byte count in IEC units; an em dash when unknown (``?`` in a sentence).

    A cell: ``512KiB``, ``1.5GiB`` (whole KiB below a MiB, one decimal above).
    A sentence: ``512 B``, ``64 MiB``, ``1.5 GiB`` (no decimal when whole).
    """
    if n_bytes is None:
        return "?" if spoken else DASH
    if spoken:
        for unit, factor in _BINARY:
            if n_bytes >= factor:
                value = n_bytes / factor
                return f"{value:.0f} {unit}iB" if value == int(value) else f"{value:.1f} {unit}iB"
        return f"{n_bytes:.0f} B"
    scaled = float(n_bytes) / 1024
    for unit, _ in reversed(_BINARY):
        if abs(scaled) < 1024 or unit == "P":
            return f"{scaled:.0f}{unit}iB" if unit == "K" else f"{scaled:.1f}{unit}iB"
        scaled /= 1024
    return DASH  # unreachable: the loop returns at "P"


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``1 array``, ``2 arrays``, ``0 arrays``: a count with its noun, singular only for one.

    ``plural`` for nouns that do not just take an ``s`` (``1 pass``, ``2 passes``).
    """
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def micros(us: float | None) -> str:
    """A latency given in microseconds, as a cell: ``0µs``, ``512µs``, ``1.0ms``, ``16ms``, ``131ms``, ``1.0s``."""
    if us is None:
        return DASH
    if us < 1000:
        return f"{us:.0f}µs"
    if us < 1_000_000:
        ms = us / 1000
        return f"{ms:.1f}ms" if ms < 10 else f"{ms:.0f}ms"
    s = us / 1_000_000
    return f"{s:.1f}s" if s < 10 else f"{s:.0f}s"


def rate(kib_s: float | None, *, spoken: bool = False) -> str:
    """A rate given in KiB/s (md's and the kernel's unit): KiB/s under 10 MiB/s, else MiB/s, GiB/s.

    A cell: ``980KiB/s``, ``12.3MiB/s``; a sentence: ``980 KiB/s``,
    ``12.3 MiB/s``. An em dash when unknown (``?`` in a sentence).
    """
    if kib_s is None:
        return "?" if spoken else DASH
    space = " " if spoken else ""
    if abs(kib_s) < 10240:
        return f"{kib_s:.0f}{space}KiB/s"
    value, unit = (kib_s / 1024, "MiB/s") if abs(kib_s) < 10240 * 1024 else (kib_s / (1024 * 1024), "GiB/s")
    # A sentence says a whole figure without its decimal ("20 MiB/s"); a cell keeps one so a column lines up.
    return f"{value:.0f}{space}{unit}" if spoken and value == int(value) else f"{value:.1f}{space}{unit}"


def non_iec(text: str) -> list[str]:
    """The units in ``text`` that break the IEC convention (:data:`NOT_IEC`); empty when it keeps it."""
    return [m.group(0) for m in NOT_IEC.finditer(text)]
