"""Where raidtop's first frame goes, in-process: imports, App(), mount → first refresh.

Usage (from the repository root)::

    PYTHONPATH=. python perf/experiments/first_frame_split.py raidtop
    PYTHONPATH=. python perf/experiments/first_frame_split.py bare   # perf/datatable_reference.py

Headless at 120×40 and without the sampler, so it isolates start-up work
from the terminal and the first sample; run each a few times and take the
best (the figures move with the machine's load).
"""

from __future__ import annotations

import sys
import time

started = time.perf_counter()
which = sys.argv[1] if len(sys.argv) > 1 else "raidtop"
if which == "raidtop":
    import raidtop.__main__ as entry

    entry.build_parser().parse_args([])
    from raidtop.app import startup_gc

    startup_gc.pause()  # as raidtop.__main__ does
    from raidtop.app.raidtop_app import RaidtopApp
    from raidtop.config import Config

    imported = time.perf_counter()
    app = RaidtopApp(Config(autostart_sampler=False))
else:
    sys.path.insert(0, "bench")
    from datatable_reference import DataTableReference

    imported = time.perf_counter()
    app = DataTableReference()
made = time.perf_counter()
marks: dict[str, float] = {}


def _first_refresh_done() -> None:
    marks["refreshed"] = time.perf_counter()
    app.exit()


# Two refreshes after the first callback: the first frame has been composed and rendered.
app.call_later(lambda: app.call_after_refresh(lambda: app.call_after_refresh(_first_refresh_done)))
app.run(headless=True, size=(120, 40))
print(
    f"{which}: imports {imported - started:.3f} s, App() {made - imported:.3f} s, "
    f"mount → first refresh {marks['refreshed'] - made:.3f} s, total {marks['refreshed'] - started:.3f} s, "
    f"CPU {time.process_time():.3f} s"
)
