"""The app's sampling object: a sample that raises is said in a notice, and the next one is shown."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
import time

from raidtop.app.raidtop_app import RaidtopApp
from raidtop.config import Config

from tests.conftest import DATA


def counting_app(interval: float, fail_first: bool = False) -> tuple[RaidtopApp, list[int]]:
    """An app on the fixture root whose samples are counted (the first one raising, if asked)."""
    app = RaidtopApp(Config(root=DATA / "root1", interval=interval, autostart_sampler=False))
    real = app.sampling.sample_once
    calls: list[int] = []

    def once():
        calls.append(1)
        if fail_first and len(calls) == 1:
            raise RuntimeError("a reader's bug")
        return real()

    app.sampling.sample_once = once
    return app, calls


async def start_sampling(app: RaidtopApp, pilot) -> None:
    """Start the sampling loop and wait (bounded) for the first snapshot."""
    app.sampling.start()
    for _ in range(200):
        await pilot.pause(0.05)
        if app.live.latest is not None:
            break


async def test_a_sample_that_raises_is_said_and_sampling_goes_on():
    app, calls = counting_app(0.1, fail_first=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await start_sampling(app, pilot)
        assert any("sampling failed: RuntimeError(\"a reader's bug\")" in n.message for n in app.notices.offered)
        assert app.live.latest is not None  # the loop went on after the failure
        assert len(calls) >= 2


def test_the_first_frame_does_not_wait_for_the_readers_imports():
    """Starting the dashboard imports no reader: the sampler is made by the first sample, after the first frame."""
    script = textwrap.dedent(
        """
        import sys
        import raidtop.__main__ as main
        main.build_parser()
        from raidtop.app.raidtop_app import RaidtopApp
        from raidtop.config import Config
        RaidtopApp(Config(root="/", autostart_sampler=True))
        print(" ".join(sorted(m for m in sys.modules if m.startswith("raidtop.collect."))))
        """
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    loaded = set(result.stdout.split())
    for reader in ("raidtop.collect.sampler", "raidtop.collect.md.track", "raidtop.collect.smart.poller"):
        assert reader not in loaded, loaded


async def test_the_sampler_is_made_in_the_sampling_thread_by_the_first_sample():
    app = RaidtopApp(Config(root=DATA / "root1", interval=0.1, autostart_sampler=False))
    made_in: list[str] = []
    make = app.sampling._make_sampler
    assert make is not None and app.sampling._sampler is None

    def recording_make():
        made_in.append(threading.current_thread().name)
        return make()

    app.sampling._make_sampler = recording_make
    async with app.run_test(size=(120, 40)) as pilot:
        app.sampling.start()
        for _ in range(200):
            await pilot.pause(0.05)
            if app.live.latest is not None:
                break
        assert app.live.latest is not None and app.live.latest.disks
        assert made_in and made_in[0] != threading.main_thread().name
        assert app.sampler is app.sampling.sampler  # made once, then kept
        assert len(made_in) == 1


async def test_a_storm_of_device_events_samples_at_most_once_per_gap():
    """Found in issue 30: 1500 loop devices going away had the dashboard sample back to back (half a core)."""
    app, taken = counting_app(30)
    async with app.run_test(size=(120, 40)) as pilot:
        await start_sampling(app, pilot)
        before = len(taken)
        started = time.monotonic()
        for _ in range(75):  # a uevent every 20 ms (or slower, on a loaded machine)
            app.sampling.device_event()
            await pilot.pause(0.02)
        await pilot.pause(0.6)
        storm, lasted = len(taken) - before, time.monotonic() - started
        # One per 0.5 s gap at most, whatever the storm lasted; each event its own sample was 75.
        assert 1 <= storm <= lasted / 0.5 + 2 and storm < 40, (storm, lasted)
        app.sampling.sample_now()  # a key is not held back by the gap
        for _ in range(100):  # bounded wait on a loaded machine
            await pilot.pause(0.05)
            if len(taken) - before > storm:
                break
        assert len(taken) - before > storm
