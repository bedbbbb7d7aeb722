"""A fleet built from real fixture data, for the UI test and the screenshot."""

from __future__ import annotations

from pathlib import Path

from raidtop.collect.recording.roots import read_recording
from raidtop.collect.recording.replayer import Replayer
from raidtop.collect.sampler import Sampler
from raidtop.fleet.model import FleetHost, FleetReading, worst_first
from raidtop.fleet.ssh import arrays_from_snapshot
from raidtop.output.snapshot_json import snapshot_json

REPO = Path(__file__).resolve().parents[2]


class StaticSource:
    """A source that answers the same reading every time."""

    def __init__(self, reading: FleetReading) -> None:
        self.reading = reading

    def read(self) -> FleetReading:
        return self.reading


def sample_fleet() -> FleetReading:
    """Three hosts: the real recorded rebuild 40 % in, procfs's fixture arrays, one host whose exporter is down."""
    replayer = Replayer(read_recording(REPO / "raidtop" / "demo" / "data" / "rebuild.xz"))
    rebuilding = replayer.snapshot_at(36)
    sampler = Sampler(REPO / "tests" / "data" / "md" / "roots" / "prometheus-procfs")
    sampler.sample()
    many = sampler.sample()
    hosts = [
        FleetHost("db1:10719", tuple(arrays_from_snapshot(snapshot_json(rebuilding)))),
        FleetHost(
            "store7:10719",
            tuple(
                a for a in arrays_from_snapshot(snapshot_json(many)) if a.name in ("md0", "md1", "md5", "md201", "md10")
            ),
        ),
        FleetHost("web3:10719", problem="exporter down: Prometheus's last scrape of it failed"),
    ]
    return FleetReading(hosts=worst_first(hosts), time=1_600_000_000.0)
