"""Issue 24's attacks on ``raidtop fleet``, each with its exact input.

A real Prometheus scrapes hostile exporters (escapes in labels, ``+Inf``)
beside a real raidtop exporter, and ``raidtop fleet`` runs in a real tmux
pane with every byte it writes recorded; a fake Prometheus API answers what a
real one cannot (``[``×200000), and a real server dribbles one byte every 2 s.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import time
from pathlib import Path

import pytest

from raidtop.fleet.prometheus import PrometheusSource, build_hosts
from raidtop.untrusted import has_controls
from tests.exporter import hostile_servers, procs
from tests.fleet.fleet_terminal import FleetPane

needs_prometheus = pytest.mark.skipif(shutil.which("prometheus") is None, reason="needs Debian's prometheus")
needs_tmux = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux (.ci/run installs it)")

TITLE_ATTACK = "recovering\x1b]0;PWNED\x07\x1b[2J"
"""The label value of the issue: retitles the pane and clears the screen when printed raw."""
C1_AND_BIDI = "md\x9b2J\u202eevil"
"""A C1 CSI (0x9b, as UTF-8) and a right-to-left override, in an array name."""


def exposition(*lines: str) -> bytes:
    """Exposition text of a raidtop-looking host, fresh at each scrape."""
    head = [
        "raidtop_exporter_build_info{version=\"hostile\"} 1",
        f"raidtop_exporter_last_sample_timestamp_seconds {time.time():.3f}",
    ]
    return ("\n".join(head + list(lines)) + "\n").encode()


def escapes_host() -> bytes:
    return exposition(
        'raidtop_exporter_node_info{nodename="db\x1b]0;PWNED\x07"} 1',
        f'raidtop_md_state{{array="md0",state="{TITLE_ATTACK}"}} 1',
        'raidtop_md_info{array="md0",level="raid1\x1b[31m"} 1',
        'raidtop_md_raid_disks{array="md0"} 2',
        f'raidtop_md_state{{array="{C1_AND_BIDI}",state="clean"}} 1',
        'raidtop_md_member_role{array="md0",member="sdb1\x1b]2;PWNED\x07",role="in_sync"} 1',
    )


def infinite_host() -> bytes:
    return exposition('raidtop_md_state{array="md1",state="clean"} 1', 'raidtop_md_raid_disks{array="md1"} +Inf')


@needs_prometheus
@needs_tmux
def test_hostile_labels_and_values_through_a_real_prometheus_reach_no_terminal(tmp_path) -> None:
    hostile = hostile_servers.answering(escapes_host)
    infinite = hostile_servers.answering(infinite_host)
    clean_root = procs.clean_root(tmp_path)
    clean_port = procs.free_port()
    clean = procs.raidtop(
        "--root",
        str(clean_root),
        "exporter",
        "--interval",
        "1",
        "--smart-interval",
        "0",
        "--listen",
        f"127.0.0.1:{clean_port}",
    )
    prometheus = procs.Prometheus(tmp_path, [hostile.address, infinite.address, f"127.0.0.1:{clean_port}"])
    pane = None
    try:
        source = PrometheusSource(prometheus.url)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            reading = source.read()
            hosts = {h.name: h for h in reading.hosts}
            if len(hosts) == 3 and hosts[hostile.address].arrays and hosts[f"127.0.0.1:{clean_port}"].arrays:
                break
            time.sleep(0.5)
        # Prometheus stored the escapes as they were sent: the attack reaches raidtop intact.
        raw = prometheus.query(f'raidtop_md_state{{instance="{hostile.address}",array="md0"}} == 1')
        assert raw[0]["metric"]["state"] == TITLE_ATTACK
        # The reading holds no control character anywhere; +Inf makes its one host unreadable, in words.
        texts = [reading.problem or ""] + [t for h in reading.hosts for t in _texts(h)]
        assert not any(has_controls(t) for t in texts), [t for t in texts if has_controls(t)]
        assert "+Inf" in hosts[infinite.address].problem and "raidtop_md_raid_disks" in hosts[infinite.address].problem
        assert hosts[f"127.0.0.1:{clean_port}"].problem is None
        # Hosts are named by their exporter's nodename (cleaned), else by the target's host.
        assert hosts[f"127.0.0.1:{clean_port}"].label == os.uname().nodename
        assert hosts[hostile.address].label == "db\ufffd]0;PWNED\ufffd"
        assert hosts[infinite.address].label == "127.0.0.1"
        assert {a.name for a in hosts[hostile.address].arrays} == {"md0", "md\ufffd2J\ufffdevil"}

        pane = FleetPane(tmp_path, "--prometheus", prometheus.url, "--refresh", "1")
        screen = pane.wait_for("sent a value raidtop cannot")  # the host list cuts a long reason at a word
        assert "recovering\ufffd]0;PWNED" in screen and "md\ufffd2J\ufffdevil" in screen
        assert "PWNED" not in pane.show("#{pane_title}")
        written = pane.raw
        # Textual's own OSC is 22 (the pointer shape, ended by BEL); any other OSC or BEL came from a label.
        assert set(re.findall(rb"\x1b\]([0-9]+);", written)) <= {b"22"}
        assert written.count(b"\x07") == written.count(b"\x1b]22;")
        # PWNED is only ever shown as text, after the U+FFFD that replaced its ESC.
        shown = [written[m.start() - 6 : m.start()] for m in re.finditer(b"PWNED", written)]
        assert shown and set(shown) <= {"\ufffd]0;".encode(), "\ufffd]2;".encode()}, set(shown)
        for attack in ("\x9b".encode(), "\u202e".encode(), b"\x1b[31m", b"\x1b[2J"):
            at = written.find(attack)
            assert at < 0, (attack, written[max(0, at - 80) : at + 20])
        # The hostile host's own screen: its member's OSC 2 title attack shown as text too.
        pane.keys("Down", "Enter")
        pane.wait_for("sdb1\ufffd]2;PWNED")
        written = pane.raw
        assert set(re.findall(rb"\x1b\]([0-9]+);", written)) <= {b"22"}
        assert written.count(b"\x07") == written.count(b"\x1b]22;")
        assert "PWNED" not in pane.show("#{pane_title}")
        pane.keys("Escape")
        pane.wait_for("sent a value raidtop cannot")
        pane.keys("q")
        took = pane.wait_exit(30)
        assert took is not None, "raidtop fleet did not exit after q"
        print(f"exit after q: {took:.2f} s, load {Path('/proc/loadavg').read_text().split()[:3]}")
        assert "Traceback" not in pane.screen()
    finally:
        if pane is not None:
            pane.close()
        procs.stop(clean)
        prometheus.close()
        hostile.close()
        infinite.close()


def _texts(host) -> list[str]:
    out = [host.name, host.label, host.problem or "", *host.alerts]
    for array in host.arrays:
        out += [array.name, array.state, array.level or "", array.action or ""]
        out += [t for m in array.members for t in (m.name, m.role)]
    return out


@pytest.mark.parametrize("raw", ["+Inf", "NaN", "-3", "1e400", "2.5"])
def test_one_unusable_value_marks_one_host_unreadable_the_others_stay(raw) -> None:
    def series(instance: str, disks: str) -> list[dict]:
        return [
            {
                "metric": {"__name__": "raidtop_md_state", "instance": instance, "array": "md0", "state": "clean"},
                "value": [0, "1"],
            },
            {
                "metric": {"__name__": "raidtop_md_raid_disks", "instance": instance, "array": "md0"},
                "value": [0, disks],
            },
        ]

    hosts = {
        h.name: h
        for h in build_hosts({"a:1", "b:1"}, {"a:1": 1.0, "b:1": 1.0}, {}, series("a:1", raw) + series("b:1", "2"))
    }
    assert hosts["a:1"].problem.startswith("sent a value raidtop cannot use") and raw in hosts["a:1"].problem
    assert hosts["b:1"].problem is None and hosts["b:1"].arrays[0].raid_disks == 2


def test_json_200000_deep_from_prometheus_is_a_sentence() -> None:
    server = hostile_servers.answering(lambda: b"[" * 200000, "application/json")
    try:
        reading = PrometheusSource(server.url).read()
    finally:
        server.close()
    assert reading.problem == f"Prometheus at {server.url} sent no usable answer" and not reading.hosts


def test_a_prometheus_sending_one_byte_every_2_s_is_cut_off_at_the_total_deadline() -> None:
    server = hostile_servers.dribbling(2.0)
    try:
        start = time.monotonic()
        reading = PrometheusSource(server.url, timeout_s=3.0).read()
        took = time.monotonic() - start
    finally:
        server.close()
    assert reading.problem == f"Prometheus at {server.url} is unreachable: no complete answer within 3 s"
    print(f"cut off after {took:.2f} s (deadline 3 s), load {Path('/proc/loadavg').read_text().split()[:3]}")


@needs_tmux
@pytest.mark.parametrize("how", ["q", "C-c", "SIGINT", "SIGTERM", "SIGHUP"])
def test_the_fleet_view_exits_whatever_its_worker_waits_on(tmp_path, how) -> None:
    """The worker is blocked reading a server that dribbles; every way out still ends the process."""
    server = hostile_servers.dribbling(2.0)
    pane = FleetPane(tmp_path, "--prometheus", server.url)
    try:
        pane.wait_for("waiting for the first answer")
        time.sleep(1.0)  # the refresh worker is inside its read now
        start = time.monotonic()
        if how.startswith("SIG"):
            os.kill(pane.pid, getattr(signal, how))
        else:
            pane.keys(how)
        took = pane.wait_exit(30)
        assert took is not None, f"still running 30 s after {how}"
        print(
            f"exit after {how}: {time.monotonic() - start:.2f} s, load {Path('/proc/loadavg').read_text().split()[:3]}"
        )
        status = pane.exit_status()
        if how != "SIGHUP":
            assert "Traceback" not in pane.screen() and "KeyboardInterrupt" not in pane.screen()
        expected = {"q": "0", "C-c": "0", "SIGINT": "130", "SIGTERM": "143", "SIGHUP": "129"}[how]
        assert status == expected, status
    finally:
        pane.close()
        server.close()
