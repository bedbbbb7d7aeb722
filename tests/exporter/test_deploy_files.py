"""The shipped deployment files agree with each other and systemd accepts the unit."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from raidtop.exporter.listen import DEFAULT_LISTEN

REPO = Path(__file__).resolve().parents[2]
UNIT = REPO / "deploy" / "systemd" / "raidtop-exporter.service"
EXAMPLE = REPO / "deploy" / "prometheus" / "prometheus-example.yml"


def test_the_unit_listens_where_the_example_scrapes() -> None:
    listen = re.search(r"^ExecStart=.* --listen (\S+)", UNIT.read_text(), re.M).group(1)
    targets = re.findall(r'"([^"]+:\d+)"', EXAMPLE.read_text())
    assert listen == DEFAULT_LISTEN and targets == [listen]


def test_no_made_up_addresses_in_the_deployment_files() -> None:
    for path in (UNIT, EXAMPLE):
        assert not re.search(r"https?://", path.read_text()), path
    assert "Documentation=" not in UNIT.read_text()


def test_the_unit_keeps_only_what_smartctl_needs() -> None:
    text = UNIT.read_text()
    assert re.search(r"^CapabilityBoundingSet=CAP_SYS_RAWIO CAP_SYS_ADMIN$", text, re.M)
    assert "DynamicUser" not in text and re.search(r"^PrivateDevices=no$", text, re.M)
    assert re.findall(r"^DeviceAllow=(.*)$", text, re.M) == ["block-sd r", "block-blkext r"]
    assert re.search(r"^DevicePolicy=closed$", text, re.M) and re.search(r"^NoNewPrivileges=yes$", text, re.M)


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="needs systemd-analyze")
def test_systemd_accepts_the_unit_and_rates_it_ok(tmp_path) -> None:
    # verify checks that ExecStart exists: the same unit with a binary that does.
    unit = tmp_path / "raidtop-exporter.service"
    unit.write_text(UNIT.read_text().replace("/usr/local/bin/raidtop", "/bin/true"))
    verify = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True, text=True)
    assert verify.returncode == 0 and not verify.stderr.strip(), verify.stderr
    security = subprocess.run(
        ["systemd-analyze", "security", "--offline=yes", str(unit)], capture_output=True, text=True
    )
    level = float(re.search(r"Overall exposure level for \S+: ([0-9.]+)", security.stdout).group(1))
    assert level < 5.0, security.stdout[-2000:]
