"""Rich's width cache holds what the screen shows now, not every number of the session."""

from __future__ import annotations

from rich.cells import cached_cell_len, cell_len

from raidtop.app.raidtop_app import RaidtopApp
from raidtop.config import Config
from tests.conftest import DATA, two_root_snapshot


async def test_each_sample_empties_the_width_cache_the_last_samples_filled() -> None:
    app = RaidtopApp(Config(root=DATA / "root1", autostart_sampler=False))
    async with app.run_test(size=(120, 40)) as pilot:
        app.apply_snapshot(two_root_snapshot())
        await pilot.pause()
        # What many samples of changing numbers leave behind: strings shown once each.
        for n in range(4000):
            cell_len(f"{n / 7:.2f}")
        assert cached_cell_len.cache_info().currsize >= 4000
        app.apply_snapshot(two_root_snapshot())
        await pilot.pause()
        left = cached_cell_len.cache_info().currsize
        assert 0 < left < 1000  # this frame's measurements only
        assert cell_len("sda ▁▂▃") == 7  # and measuring still measures
