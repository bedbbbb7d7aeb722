"""The app's sampling object: a sample that raises is said in a notice, and the next one is shown."""

from __future__ import annotations

from raidtop.app.raidtop_app import RaidtopApp
from raidtop.config import Config

from tests.conftest import DATA


async def test_a_sample_that_raises_is_said_and_sampling_goes_on():
    app = RaidtopApp(Config(root=DATA / "root1", interval=0.1, autostart_sampler=False))
    real = app.sampling.sample_once
    calls = []

    def once():
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("a reader's bug")
        return real()

    app.sampling.sample_once = once
    async with app.run_test(size=(120, 40)) as pilot:
        app.sampling.start()
        for _ in range(200):
            await pilot.pause(0.05)
            if app.live.latest is not None:
                break
        assert any("sampling failed: RuntimeError(\"a reader's bug\")" in n.message for n in app.notices.offered)
        assert app.live.latest is not None  # the loop went on after the failure
        assert len(calls) >= 2
