"""A real Prometheus scrapes two real exporters: a recorded md rebuild and a clean host.

Checks through Prometheus's HTTP API that the series carry the recording's
values, that MdArrayDegraded goes pending -> firing and clears when the
rebuild ends, that every PromQL expression raidtop ships runs (and the ones
that must return data do), and that the fleet view lists both hosts with
their states, then says in words when one exporter is down.
"""

from __future__ import annotations

import re
import shutil
import time

import pytest

from raidtop.collect.recording.roots import read_recording
from raidtop.collect.recording.replayer import Replayer
from raidtop.collect.sampler import Sampler
from raidtop.exporter.states import array_state
from raidtop.fleet.prometheus import PrometheusSource
from tests.exporter import procs
from tests.exporter.expressions import RULES, dashboard_expressions, fleet_expressions, rule_expressions

pytestmark = pytest.mark.skipif(
    shutil.which("prometheus") is None, reason="needs Debian's prometheus (.ci/run installs it)"
)

MUST_HAVE_DATA_DURING_REBUILD = (
    "Arrays by state (worst first) #A",
    "Degraded disks #A",
    "Rebuild progress #A",
    "Time to finish #A",
    "Time to finish #B",
    "Sync speed against its limits #A",
    "Member roles #A",
    "md events #A",
    "Exporter health #A",
    "Exporter health #B",
    "fleet #0",
    "fleet #1",
    "fleet #2",
    "fleet #3",
)


def recorded_values():
    """What the recording says, frame by frame, computed by the ordinary Sampler (not by the exporter)."""
    replayer = Replayer(read_recording(procs.RECORDING))
    done, totals, states = set(), set(), set()
    for i in range(len(replayer)):
        (array,) = replayer.snapshot_at(i).arrays
        states.add(array_state(array))
        if array.sync is not None and array.sync.done_kib is not None:
            done.add(array.sync.done_kib * 1024)
            totals.add(array.sync.total_kib * 1024)
    return array.name, done, totals, states


def test_prometheus_scrapes_a_rebuild_and_a_clean_host(tmp_path) -> None:
    md, done_values, total_values, recorded_states = recorded_values()
    clean = procs.clean_root(tmp_path)
    clean_states = {a.name: array_state(a) for a in _sample(clean).arrays}
    port_rebuild, port_clean = procs.free_port(), procs.free_port()
    rebuild_host, clean_host = f"127.0.0.1:{port_rebuild}", f"127.0.0.1:{port_clean}"
    # The shipped rules with their hold times cut to 2 s: the same expressions, a test-sized wait.
    rules = tmp_path / "rules.yml"
    rules.write_text(re.sub(r"for: \d+m", "for: 2s", RULES.read_text()))
    prometheus = procs.Prometheus(tmp_path, [rebuild_host, clean_host], rules)
    exporters = []
    try:
        # Nothing scraped yet: the fleet view says so in words.
        reading = PrometheusSource(prometheus.url).read()
        assert reading.problem is not None and "no raidtop metrics" in reading.problem
        exporters.append(
            procs.raidtop(
                "exporter",
                "--replay",
                str(procs.RECORDING),
                "--replay-speed",
                "2",
                "--interval",
                "0.5",
                "--listen",
                rebuild_host,
            )
        )
        exporters.append(procs.raidtop("--root", str(clean), "exporter", "--interval", "1", "--listen", clean_host))
        seen_states, alert_states, checked_mid_rebuild = set(), [], False
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            for r in prometheus.query(f'raidtop_md_state{{instance="{rebuild_host}"}} == 1'):
                seen_states.add(r["metric"]["state"])
            alert = [
                a["state"]
                for a in prometheus.alerts()
                if a["labels"]["alertname"] == "MdArrayDegraded" and a["labels"]["instance"] == rebuild_host
            ]
            if alert and (not alert_states or alert_states[-1] != alert[0]):
                alert_states.append(alert[0])
            if not checked_mid_rebuild and "recovering" in seen_states:
                _check_mid_rebuild(prometheus, rebuild_host, md, done_values, total_values)
                checked_mid_rebuild = True
            if alert_states[-1:] == ["firing"] and not alert and seen_states >= {"recovering"}:
                alert_states.append("cleared")
            if alert_states[-1:] == ["cleared"]:
                break
            time.sleep(0.5)
        assert checked_mid_rebuild
        assert alert_states == ["pending", "firing", "cleared"]
        assert seen_states <= recorded_states and {"recovering", "clean"} <= seen_states | {"clean"}
        # The rebuilt array is whole again; the clean host's arrays are what the Sampler says.
        assert _value(prometheus, f'raidtop_md_degraded_disks{{instance="{rebuild_host}",array="{md}"}}') == 0
        got_clean = {
            r["metric"]["array"]: r["metric"]["state"]
            for r in prometheus.query(f'raidtop_md_state{{instance="{clean_host}"}} == 1')
        }
        assert got_clean == clean_states and set(got_clean.values()) <= {"clean", "active"}
        assert not [a for a in prometheus.alerts() if a["labels"].get("instance") == clean_host]

        # Both hosts in the fleet view's data, then one exporter down, said in words.
        reading = PrometheusSource(prometheus.url).read()
        assert reading.problem is None
        hosts = {h.name: h for h in reading.hosts}
        assert set(hosts) == {rebuild_host, clean_host}
        assert {a.name: a.state for a in hosts[clean_host].arrays} == clean_states
        assert [a.name for a in hosts[rebuild_host].arrays] == [md]
        procs.stop(exporters[1])
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            host = {h.name: h for h in PrometheusSource(prometheus.url).read().hosts}.get(clean_host)
            if host is not None and host.problem is not None:
                break
            time.sleep(0.5)
        assert host.problem.startswith("exporter down")
    finally:
        for proc in exporters:
            procs.stop(proc)
        prometheus.close()
    # Prometheus unreachable (its port closed now): one sentence.
    gone = PrometheusSource(prometheus.url).read()
    assert gone.problem.startswith(f"Prometheus at {prometheus.url} is unreachable")


def _check_mid_rebuild(prometheus, host, md, done_values, total_values) -> None:
    """During the recovery: exact byte counts from the recording, and every shipped expression runs."""
    time.sleep(1.5)  # a few more scrapes so rate() and the dashboard's windows have two points
    done = _value(prometheus, f'raidtop_md_sync_completed_bytes{{instance="{host}",array="{md}",action="recover"}}')
    total = _value(prometheus, f'raidtop_md_sync_total_bytes{{instance="{host}",array="{md}",action="recover"}}')
    assert done in done_values and total in total_values
    roles = {
        r["metric"]["member"]: r["metric"]["role"]
        for r in prometheus.query(f'raidtop_md_member_role{{instance="{host}"}} == 1')
    }
    assert "rebuilding" in roles.values() and "in_sync" in roles.values()
    expressions = {**rule_expressions(), **dashboard_expressions(), **fleet_expressions()}
    # 10 md and exporter rules (MdSyncStalled: issue 23), SmartFailing, MdRebuildAtRisk,
    # MdAuditBadBlocks, MdAuditTimeoutMismatch (issue 28)
    assert len(rule_expressions()) == 14
    empty = []
    for name, expr in expressions.items():
        result = prometheus.query(expr)  # asserts Prometheus accepted it
        if name in MUST_HAVE_DATA_DURING_REBUILD and not result:
            empty.append(name)
    assert not empty, empty
    assert prometheus.query(rule_expressions()["MdArrayDegraded"])


def _value(prometheus, expr: str) -> float:
    (result,) = prometheus.query(expr)
    return float(result["value"][1])


def _sample(root):
    sampler = Sampler(root)
    sampler.sample()
    return sampler.sample()
