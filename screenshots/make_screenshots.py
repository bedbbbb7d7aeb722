"""Regenerate the README's screenshots headlessly (never edit them by hand).

Each screen is rendered by the real app inside Textual's test harness from
recorded data, so the images are reproducible on any machine:
``make screenshots`` or ``.venv/bin/python screenshots/make_screenshots.py``.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))

from raidtop.app import RaidtopApp  # noqa: E402
from raidtop.collect.sampler import Sampler  # noqa: E402
from raidtop.collect.source import Root  # noqa: E402
from raidtop.config import Config  # noqa: E402

UI_DATA = REPO / "tests" / "data" / "ui"


def recorded_snapshot():
    """Rates between two trees recorded by sysstat's maintainers (31 s apart)."""
    sampler = Sampler(UI_DATA / "root1", clock=lambda: 1_600_000_000.0)
    sampler.sample()
    sampler.root = Root(UI_DATA / "root2")
    return sampler.sample()


async def shoot(name: str, size: tuple[int, int], keys: tuple[str, ...] = ()) -> Path:
    """Render the dashboard at ``size``, press ``keys``, save ``name``.svg."""
    app = RaidtopApp(Config(root=UI_DATA / "root1", autostart_sampler=False))
    async with app.run_test(size=size) as pilot:
        app.apply_snapshot(recorded_snapshot())
        await pilot.pause()
        if keys:
            await pilot.press(*keys)
            await pilot.pause()
        path = Path(app.save_screenshot(f"{name}.svg", str(HERE)))
    return path


async def main() -> None:
    os.environ["TZ"] = "UTC"
    time.tzset()
    shots = [
        ("dashboard-120x40", (120, 40), ()),
        ("dashboard-80x24", (80, 24), ()),
        ("dashboard-200x60-all-devices", (200, 60), ("a",)),
        ("help", (120, 40), ("question_mark",)),
    ]
    for name, size, keys in shots:
        print(await shoot(name, size, keys))


if __name__ == "__main__":
    asyncio.run(main())
