"""The live dashboard inside the VM, screenshotted during a real recovery.

``python -m tests.realmd.guest_ui ARRAY RESULTS_DIR`` runs in the guest,
started by guest_driver as soon as the guest is up, because importing
Textual and raidtop's app costs 10-30 s of guest CPU under TCG. The
handshake with the driver goes through files in /tmp:

1. after its imports it waits for ``GO_FILE`` (the rebuild scenario begins);
2. it starts ``RaidtopApp(Config())`` headless on the guest's real root at
   120x40 and writes ``READY_FILE`` once the dashboard shows its first
   sample (the driver adds the new disk only then, so the app sees the
   whole recovery);
3. it waits until the Arrays panel shows ARRAY recovering with both ETAs
   (raidtop's needs 10 s of progress), or until ``STOP_FILE`` appears (the
   recording is over), opens ARRAY's member grid and saves
   ``realmd-recovery.svg``.

It always writes ``ui.json`` into RESULTS_DIR: timings, what the Arrays
panel showed, and the error if the app failed.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
import traceback
from pathlib import Path

STARTED = time.monotonic()

from raidtop.app.raidtop_app import RaidtopApp  # noqa: E402  (import time is measured)
from raidtop.config import Config  # noqa: E402
from raidtop.widgets.array_rows import array_row  # noqa: E402

SCREENSHOT_NAME = "realmd-recovery.svg"
SIZE = (120, 40)
GO_FILE = Path("/tmp/realmd-ui-go")
READY_FILE = Path("/tmp/realmd-ui-ready")
STOP_FILE = Path("/tmp/realmd-ui-stop")
#: Give up waiting for GO (the rebuild scenario never ran) after this long.
GO_DEADLINE_S = 900.0
#: Give up waiting for the recovery (and shoot whatever is shown) after this long.
SHOT_DEADLINE_S = 180.0


def _recovering_with_etas(app: RaidtopApp, array: str):
    """The array as last shown, when it is recovering with both ETAs known; else None."""
    snap = app.live.latest
    if snap is None:
        return None
    for shown in snap.arrays:
        sync = shown.sync
        if (
            shown.name == array
            and sync is not None
            and sync.action == "recover"
            and sync.percent is not None
            and sync.eta_s is not None
            and sync.eta_s_kernel is not None
        ):
            return shown
    return None


async def shoot(array: str, results: Path, report: dict) -> None:
    """Run the app until ``array`` shows a recovery with ETAs, then save the screenshot."""
    started = time.monotonic()
    app = RaidtopApp(Config())
    async with app.run_test(size=SIZE) as pilot:
        while app.live.latest is None and time.monotonic() - started < SHOT_DEADLINE_S:
            await pilot.pause(0.2)
        READY_FILE.touch()
        report["first_sample_s"] = round(time.monotonic() - STARTED, 2)
        shown = None
        while time.monotonic() - started < SHOT_DEADLINE_S and not STOP_FILE.exists():
            await pilot.pause(0.5)
            shown = _recovering_with_etas(app, array)
            if shown is not None:
                break
        report["condition_met"] = shown is not None
        report["waited_s"] = round(time.monotonic() - STARTED, 2)
        panel = app.dashboard.query_one("#arrays")
        if array not in panel.expanded:
            panel.toggle(array)  # the member grid shows which disk is being rebuilt
        # Two refreshes: one to apply the toggle, one to lay out the grown panel.
        await pilot.pause()
        await pilot.pause()
        last = app.live.latest
        if last is not None:
            report["rows"] = [list(array_row(a, a.name in last.degraded_alerts).cells) for a in last.arrays]
            report["members"] = [
                {"name": m.name, "slot": m.slot, "roles": list(m.roles)}
                for a in last.arrays
                if a.name == array
                for m in a.members
            ]
        path = app.save_screenshot(SCREENSHOT_NAME, str(results))
        report["screenshot"] = Path(path).name
        report["shot_at_s"] = round(time.monotonic() - STARTED, 2)


def main(argv: list[str] | None = None) -> int:
    """Entry point: ARRAY RESULTS_DIR; exit status 0 when the recovery was shot."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print("usage: python -m tests.realmd.guest_ui ARRAY RESULTS_DIR", file=sys.stderr)
        return 2
    array, results = args[0], Path(args[1])
    report: dict = {"import_s": round(time.monotonic() - STARTED, 2), "condition_met": False}
    while not GO_FILE.exists():
        if time.monotonic() - STARTED > GO_DEADLINE_S:
            report["error"] = "never told to start (no rebuild scenario ran)"
            break
        time.sleep(0.2)
    else:
        report["go_s"] = round(time.monotonic() - STARTED, 2)
        try:
            asyncio.run(shoot(array, results, report))
        except Exception:  # noqa: BLE001 - any failure is the result, reported to the host
            report["error"] = traceback.format_exc()[-3000:]
    READY_FILE.touch()  # never leave the driver waiting, whatever happened
    (results / "ui.json").write_text(json.dumps(report))
    print(f"guest_ui: {report}", flush=True)
    return 0 if report["condition_met"] else 1


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    # A failed app can leave worker threads behind that would keep the
    # process (and the driver waiting for it) alive.
    os._exit(code)
