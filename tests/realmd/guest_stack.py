"""Run in the guest: raidtop's stack reader, alignment check, mdadm view and Stack screen on the live kernel.

Writes ``$RESULTS/stack.json``: the stack nodes (as read_stack gives them),
the alignment notes for the md arrays the sampler saw, mdadm's view of md0
(creation time included) and the Stack screen's rows as the app drew them
after ``u`` on the guest's real root.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import time
from dataclasses import asdict
from pathlib import Path

from raidtop.collect.md.mdadm_detail import read_mdadm_detail
from raidtop.collect.sampler import Sampler
from raidtop.collect.source import Root
from raidtop.collect.stack.tree import read_stack
from raidtop.presentation.stack_alignment import misalignments


async def stack_screen_rows() -> list[list[str]]:
    """Open the Stack view with ``u`` in the real app on / and return its rows once a sample filled it."""
    from raidtop.app.raidtop_app import RaidtopApp
    from raidtop.config import Config
    from raidtop.screens.stack import StackScreen
    from raidtop.widgets.text_table import TextTable

    app = RaidtopApp(Config())
    async with app.run_test(size=(140, 40)) as pilot:
        started = time.monotonic()
        while app.live.latest is None and time.monotonic() - started < 120:
            await pilot.pause(0.2)
        await pilot.press("u")
        assert isinstance(app.screen, StackScreen)
        table = app.screen.query_one(TextTable)
        while not table.rows and time.monotonic() - started < 180:
            await pilot.pause(0.5)
        await pilot.pause()
        app.save_screenshot("realmd-stack.svg", os.environ["RESULTS"])
        return [[str(c) for c in r.cells] for r in table.rows]


def main() -> None:
    snap = Sampler("/").sample()
    arrays = {a.name: a for a in snap.arrays}
    stack = read_stack(Root("/"))
    mdadm = read_mdadm_detail(Root("/"), "md0", mdadm=shutil.which("mdadm"))
    out = {
        "nodes": {k: asdict(v) for k, v in stack.nodes.items()},
        "arrays": {k: [a.level, a.chunk_kib, a.raid_disks] for k, a in arrays.items()},
        "misaligned": misalignments(stack, arrays),
        "mdadm": asdict(mdadm),
        "rows": asyncio.run(stack_screen_rows()),
    }
    Path(os.environ["RESULTS"], "stack.json").write_text(json.dumps(out))


if __name__ == "__main__":
    main()
    os._exit(0)
