"""The garbage collector rests while the dashboard starts.

Start-up makes about 70 000 objects that live as long as raidtop does
(modules, classes, CSS rules, widgets). While they were being made the
cyclic collector ran about 170 times, generation 2 once, and took 30 ms of
a 0.33 s first frame (perf/RESULTS.md). None of it finds garbage worth the
time, so the collector is paused until the first frame is on screen. Then
one full collection frees the cycles start-up left (about 10 000 objects,
1.5 MB of RSS, 40 ms once; issue 30, item 4), what is left is frozen
(``gc.freeze``), so later collections do not walk those objects again on
every pass, and the collector runs as usual.

Only the ``raidtop`` command pauses it: an app made by other code (tests,
``--web``'s children run the command) leaves the collector as it found it.
"""

from __future__ import annotations

import gc

_paused = False


def pause() -> None:
    """Stop automatic collection until :func:`resume` (no-op if it is already off)."""
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def resume() -> None:
    """Free start-up's garbage, freeze what lives on and collect as usual again, if :func:`pause` stopped it."""
    global _paused
    if _paused:
        _paused = False
        gc.collect()  # frozen garbage would be held for the whole session
        gc.freeze()
        gc.enable()


def paused() -> bool:
    """Whether :func:`pause` stopped the collector and it has not resumed yet."""
    return _paused
