"""Rich's cache of measured text widths, kept to what the screen shows now.

Rich measures a string's width through a cache of the last 4096 strings it
measured (``rich.cells.cached_cell_len``), and Textual measures every segment
it paints. The dashboard's numbers change at every sample, so within minutes
that cache held 4096 strings each shown once: 0.6 MB, most of raidtop's
memory growth from minute 1 to minute 10 at 500 devices (issue 30, item 4).
The dashboard empties it at each sample; the measurements a frame repeats
still find it.
"""

from __future__ import annotations

from rich.cells import cached_cell_len


def forget_measured_widths() -> None:
    """Empty rich's width cache (what the next frames measure fills it again)."""
    cached_cell_len.cache_clear()
