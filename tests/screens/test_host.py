"""screen_host: the app a screen runs in is raidtop's, checked without reading its members."""

from __future__ import annotations

import pytest
from textual.app import App

from raidtop.app.raidtop_app import RaidtopApp
from raidtop.config import Config
from raidtop.screens.host import screen_host

from tests.conftest import DATA


async def test_a_screen_inside_another_app_is_told_so() -> None:
    app: App[None] = App()
    async with app.run_test():
        with pytest.raises(TypeError, match="not raidtop's app"):
            screen_host(app.screen)


async def test_asking_for_the_host_does_not_make_the_sampler() -> None:
    app = RaidtopApp(Config(root=DATA / "root1", autostart_sampler=False))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert screen_host(app.screen) is app
        assert app.sampling._sampler is None  # made by the first sample, not by a type check
