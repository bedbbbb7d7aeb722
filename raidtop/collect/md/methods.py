"""How the sync figures are computed, in words built from the constants the code uses.

Explain shows these texts and the README states the same numbers; a test
holds all three to :mod:`raidtop.collect.md.eta`'s constants, so changing a
window or a threshold changes what the user reads.
"""

from __future__ import annotations

from raidtop.collect.md.eta import HISTORY_S, SPEED_WINDOW_S, STALL_AFTER_COARSE_S, STALL_AFTER_S
from raidtop.collect.md.marks import MARK_STEP_S, MARKS, SLEEP_S

SPEED_METHOD = (
    f"Δcompleted / Δt over the last {SPEED_WINDOW_S:.0f} s, md's speed window at its longest "
    f"({MARKS} marks {MARK_STEP_S:.0f} s apart), so md's bursts and sleeps never read as 0; md's own "
    f"sync_speed until raidtop has watched that long"
)
"""How the Speed column is computed, in words built from the constants the code uses."""
ETA_METHOD = (
    f"md's throttle run forward from the last {HISTORY_S:.0f} s of progress: a mark every "
    f"{MARK_STEP_S:.0f} s, the rate measured from the mark {MARKS} back, a {SLEEP_S * 1000:.0f} ms sleep "
    f"while it is above the limit; the disks' pace learnt where md did not hold back, raised by "
    f"any faster pace it reached while it did"
)
"""How raidtop's ETA is computed, in the same words Explain and the README use."""
STALL_METHOD = (
    f"the completed count has not moved for {STALL_AFTER_S:.0f} s ({STALL_AFTER_COARSE_S:.0f} s "
    f"from sysfs alone), with no limit of 0, frozen sync or read-only array to explain it"
)
"""When a sync is STALLED."""
