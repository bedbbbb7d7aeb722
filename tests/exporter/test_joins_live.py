"""The README's join queries on a real Prometheus: raidtop + node_exporter + smartctl_exporter series.

A real raidtop exporter and a real node_exporter (Debian's) read the same
fixture root (sysstat's recorded /proc and /sys, pymdstat's mdstat: md0, md1
and md2 have a member on sda), so their ``device`` labels meet as on one
host. smartctl_exporter is not packaged in Debian 12: its series are served
as its own EXAMPLE.md writes them (``smartctl_device_smart_status{device="/dev/sda"}``,
1 passed, 0 failed; prometheus-community/smartctl_exporter), sda failed.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import time

import pytest

from tests.exporter import hostile_servers, procs

NODE_EXPORTER = "prometheus-node-exporter"
pytestmark = pytest.mark.skipif(
    shutil.which("prometheus") is None or shutil.which(NODE_EXPORTER) is None,
    reason="needs Debian's prometheus and prometheus-node-exporter (.ci/run installs them)",
)


def readme_queries() -> list[str]:
    text = (procs.REPO / "README.md").read_text()
    section = text[text.index("### Joining raidtop to node_exporter and smartctl_exporter") :]
    section = section[: section.index("\n## ")]
    return [q.strip() for q in re.findall(r"```promql\n(.*?)```", section, re.S)]


def smartctl_exporter_text() -> bytes:
    return b'smartctl_device_smart_status{device="/dev/sda"} 0\nsmartctl_device_smart_status{device="/dev/sdb"} 1\n'


def root(tmp):
    path = tmp / "root"
    shutil.copytree(procs.UI_ROOT1, path, symlinks=True)
    shutil.copy(procs.MD_DATA / "mdstat" / "nicolargo-pymdstat__mdstat.04", path / "proc" / "mdstat")
    return path


def test_the_readme_joins_give_each_members_disk_series(tmp_path) -> None:
    busy, smart, failing = readme_queries()
    fixture = root(tmp_path)
    raidtop_port, node_port = procs.free_port(), procs.free_port()
    smartctl = hostile_servers.answering(smartctl_exporter_text)
    raidtop = procs.raidtop(
        "--root",
        str(fixture),
        "exporter",
        "--interval",
        "1",
        "--smart-interval",
        "0",
        "--listen",
        f"127.0.0.1:{raidtop_port}",
    )
    node = subprocess.Popen(
        [
            NODE_EXPORTER,
            f"--path.procfs={fixture / 'proc'}",
            f"--path.sysfs={fixture / 'sys'}",
            "--collector.disable-defaults",
            "--collector.diskstats",
            f"--web.listen-address=127.0.0.1:{node_port}",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    prometheus = procs.Prometheus(tmp_path, [f"127.0.0.1:{raidtop_port}", f"127.0.0.1:{node_port}", smartctl.address])
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(prometheus.query(busy)) < 3:
            time.sleep(0.5)
        members = {(r["metric"]["array"], r["metric"]["member"], r["metric"]["device"]) for r in prometheus.query(busy)}
        assert members == {("md0", "sda1", "sda"), ("md1", "sda2", "sda"), ("md2", "sda3", "sda")}
        status = {(r["metric"]["array"], r["metric"]["device"]): r["value"][1] for r in prometheus.query(smart)}
        assert status == {("md0", "sda"): "0", ("md1", "sda"): "0", ("md2", "sda"): "0"}
        assert {r["metric"]["array"]: r["value"][1] for r in prometheus.query(failing)} == {
            "md0": "1",
            "md1": "1",
            "md2": "1",
        }
        # node_exporter's own value arrives unchanged on raidtop's labels (the fixture's counters are static).
        assert {r["value"][1] for r in prometheus.query(busy)} == {"0"}
    finally:
        procs.stop(raidtop)
        procs.stop(node)
        prometheus.close()
        smartctl.close()
