"""The app's one latency tracer: started for the union of the views that want it, stopped when none does.

A recording stand-in takes the tracer's place (these tests are about who
starts and stops it; tests/latency/test_tracer.py runs the real bpftrace).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from raidtop.config import Config
from raidtop.latency.histogram import from_values
from raidtop.latency import tracer as latency_tracer
from raidtop.live.latency_feed import NOT_LIVE, LatencyFeed, not_live
from raidtop.live.latency_history import LatencyHistory


class StandIn:
    """Records what the feed asks of a tracer."""

    made: list[StandIn] = []

    def __init__(self, names, interval_s, on_sample, on_end) -> None:
        self.names, self.interval_s, self.on_sample, self.on_end = names, interval_s, on_sample, on_end
        self.started = self.stopped = False
        StandIn.made.append(self)

    def start(self) -> None:
        self.started = True

    def stop(self) -> None:
        self.stopped = True


@pytest.fixture
def feed(monkeypatch):
    monkeypatch.setattr(latency_tracer, "why_unavailable", lambda: None)
    StandIn.made = []
    sampled: list = []
    said: list = []
    made = LatencyFeed(None, 1.0, sampled.append, lambda text, warning: said.append((text, warning)), StandIn)
    return made, sampled, said


def test_one_tracer_for_the_union_restarted_when_it_changes_and_stopped_when_nobody_looks(feed):
    feed, sampled, said = feed
    feed.want("members", frozenset({"sdb", "sdc"}))
    feed.want("detail", frozenset({"sdc", "sdd"}))
    first, second = StandIn.made
    assert first.stopped and second.started and not second.stopped
    assert second.names == ["sdb", "sdc", "sdd"]
    feed.want("members", frozenset({"sdc"}))  # the union shrinks to the detail's: a new tracer for it
    third = StandIn.made[-1]
    assert second.stopped and third.names == ["sdc", "sdd"]
    feed.want("detail", frozenset({"sdd", "sdc"}))  # the same set: nothing restarts
    assert StandIn.made[-1] is third and not third.stopped
    feed.release("detail")
    feed.release("members")
    assert third.stopped and feed.tracer is None and sampled[-1] is None
    # Said once, before the first start: what goes into the kernel, on which devices.
    assert len(said) == 1 and "loads a bpftrace program" in said[0][0] and "sdb, sdc" in said[0][0]


def test_stop_at_exit_ends_the_tracer_and_forgets_every_view(feed):
    feed, _sampled, _said = feed
    feed.want("detail", frozenset({"sdb"}))
    tracer = feed.tracer
    feed.stop()
    assert tracer is not None and tracer.stopped and feed.devices == frozenset()


def test_a_tracer_that_dies_says_why_as_a_warning_and_the_columns_go(feed):
    feed, sampled, said = feed
    feed.want("members", frozenset({"sdb"}))
    StandIn.made[-1].on_end("bpftrace stopped: ERROR: no BPF")
    assert said[-1] == ("Latency distributions stopped: bpftrace stopped: ERROR: no BPF", True)
    assert sampled[-1] is None


@pytest.mark.parametrize("kind", ["replay", "demo", "root"])
def test_numbers_not_of_this_machine_start_nothing_and_say_why_only_when_asked(kind):
    StandIn.made = []
    said: list = []
    feed = LatencyFeed(kind, 1.0, lambda h: None, lambda t, w: said.append(t), StandIn)
    feed.want("detail", frozenset({"sdb"}))
    assert StandIn.made == [] and said == []
    assert feed.unavailable() == NOT_LIVE[kind]


def test_without_bpftrace_nothing_starts_and_the_reason_is_said_once(monkeypatch):
    monkeypatch.setattr(latency_tracer, "why_unavailable", lambda: "bpftrace is not installed")
    StandIn.made = []
    said: list = []
    feed = LatencyFeed(None, 1.0, lambda h: None, lambda t, w: said.append(t), StandIn)
    for _ in range(2):
        feed.want("members", frozenset({"sdb"}))
        feed.release("members")
    assert StandIn.made == [] and len(said) == 1 and said[0].startswith("No latency distributions: bpftrace is not")
    assert feed.unavailable() == "bpftrace is not installed"


def test_what_the_numbers_are_decides_whether_there_is_anything_to_trace(tmp_path):
    assert not_live(Config(root=Path("/")), demo=False) is None
    assert not_live(Config(root=Path("/")), demo=True) == "demo"
    assert not_live(Config(root=tmp_path), demo=False) == "root"
    assert not_live(Config(root=Path("/"), replay=tmp_path / "r.jsonl.gz"), demo=False) == "replay"


def test_the_history_keeps_a_fixed_number_of_intervals_and_forgets_devices_gone_that_long():
    history = LatencyHistory(length=3)
    hist = from_values([100, 200])
    history.add({}, 0.0)  # attached, nothing yet: columns come, no interval is kept
    assert history.sampling and history.latest == {} and history.series("sdb") == ()
    for t in range(5):
        history.add({"sdb": hist, "sdc": hist} if t == 0 else {"sdb": hist}, float(t))
    assert [i.time for i in history.series("sdb")] == [2.0, 3.0, 4.0]
    assert history.series("sdc") == ()  # not seen for three intervals: forgotten
    assert history.latest is not None and history.latest["sdb"].requests == 2
    history.add(None, 5.0)
    assert not history.sampling and len(history.series("sdb")) == 3  # stopped: the map keeps what it saw
