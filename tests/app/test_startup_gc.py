"""The collector rests while the dashboard starts and is back once its first frame is drawn."""

from __future__ import annotations

import gc
import weakref

import pytest

from raidtop.app import startup_gc
from raidtop.app.raidtop_app import RaidtopApp
from raidtop.config import Config

from tests.conftest import DATA


@pytest.fixture(autouse=True)
def collector_as_found():
    """Whatever a test does, the suite's collector is enabled and nothing stays frozen."""
    yield
    startup_gc._paused = False
    gc.unfreeze()
    gc.enable()


def test_resume_without_pause_leaves_the_collector_alone():
    # Tests and other code make apps without the command's pause: nothing is frozen for them.
    gc.disable()  # someone else's choice
    startup_gc.resume()
    assert not gc.isenabled() and gc.get_freeze_count() == 0


def test_pause_then_resume_freezes_what_exists_and_collects_again():
    startup_gc.pause()
    assert not gc.isenabled() and startup_gc.paused()
    survivor = [object() for _ in range(100)]
    startup_gc.resume()
    assert gc.isenabled() and not startup_gc.paused()
    assert gc.get_freeze_count() >= len(survivor)


class _Cycle:
    def __init__(self) -> None:
        self.me = self


def test_resume_frees_start_ups_cycles_before_it_freezes_the_rest():
    startup_gc.pause()
    garbage = _Cycle()
    gone = weakref.ref(garbage)
    del garbage  # unreachable, held only by its own cycle: the paused collector cannot free it
    assert gone() is not None
    startup_gc.resume()
    assert gone() is None, "frozen with the survivors: held for the whole session"


def test_pause_keeps_a_collector_someone_else_turned_off():
    gc.disable()
    startup_gc.pause()
    assert not startup_gc.paused()  # not ours to turn back on
    startup_gc.resume()
    assert not gc.isenabled()


async def test_the_dashboard_turns_the_collector_back_on_after_its_first_frame():
    startup_gc.pause()  # as `raidtop` does before importing the app
    app = RaidtopApp(Config(root=DATA / "root1", interval=0.5))
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(100):  # bounded wait for the first sample, not a timing assertion
            if app.live.latest is not None:
                break
            await pilot.pause(0.05)
        assert app.live.latest is not None
        assert gc.isenabled() and not startup_gc.paused()
        assert gc.get_freeze_count() > 0
