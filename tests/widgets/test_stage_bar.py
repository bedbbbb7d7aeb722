"""The demo's stage bar: every line whole at any width, a step's key and words never split across lines."""

from __future__ import annotations

import pytest
from textual.app import ComposeResult
from textual.geometry import Region

from raidtop.app.terminal_app import TerminalApp
from raidtop.widgets.stage_bar import StageBar

STEPS = (("↑", "Up"), ("f", "Fail"), ("B", "Make a disk go bad"), ("[", "Slower rebuild"), ("z", "Reset demo"))
NARRATION = "md9 is degraded but still serves every read and write: md computes the missing disk's blocks from parity."


class BarApp(TerminalApp[None]):  # raidtop's apps hold the bar's parts
    def compose(self) -> ComposeResult:
        bar = StageBar(classes="-on")
        bar.narration = NARRATION
        bar.source = "md9 is simulated; the rest is a rebuild recorded on a real kernel (realmd-vm), held at its start"
        bar.steps = STEPS
        yield bar


@pytest.mark.parametrize("width", [40, 80, 100])
async def test_lines_wrap_whole_and_each_step_stays_on_one_line(width):
    app = BarApp()
    async with app.run_test(size=(width, 20)) as pilot:
        await pilot.pause()
        bar = app.query_one(StageBar)
        lines = [s.text for s in bar.render_lines(Region(0, 0, bar.size.width, bar.size.height))]
        assert all(len(line) <= width for line in lines)
        words = " ".join(" ".join(line.split()) for line in lines)
        assert NARRATION in words and "held at its start" in words  # nothing cut at the edge
        for key, what in STEPS:
            assert any(f"{key} {what}" in line for line in lines), (key, what, lines)
