"""Smoke tests: the VM boots, md works in it, and host Python runs in it.

Both checks share one boot (a module fixture): a boot is the expensive part.
"""

from __future__ import annotations

import subprocess
import tarfile
from pathlib import Path

import pytest

from .host_python import host_python
from .trace import load_trace, materialize
from .vm import GuestResult, run_in_guest

RAID1_SCRIPT = r"""
set -euo pipefail
. tests/realmd/guest_lib.sh
"$PYTHON" -c 'import sys; print(sys.version)' > "$RESULTS/version"
mapfile -t disks < <(make_loop_disks 2 16)
md_create /dev/md0 1 "${disks[@]}"
md_wait_idle md0 120
cp /proc/mdstat "$RESULTS/mdstat"
md_save_attributes md0 /tmp/md0-attributes
results_tar md0-attributes /tmp/md0-attributes
"$PYTHON" -m tests.realmd.trace /tmp/trace resynced
results_tar trace /tmp/trace
"""


def _untar(archive_path: Path, destination: Path) -> Path:
    with tarfile.open(archive_path) as archive:
        archive.extractall(destination, filter="data")
    return destination


@pytest.fixture(scope="module")
def smoke_boot(vm_image, tmp_path_factory) -> GuestResult:
    """One boot: a raid1 created and resynced, a trace step, the guest's Python version."""
    results = tmp_path_factory.mktemp("smoke") / "results"
    return run_in_guest(f"PYTHON={host_python()}\n{RAID1_SCRIPT}", timeout=180, results_dir=results, image=vm_image)


def test_raid1_resyncs_in_guest(smoke_boot, record_property, tmp_path):
    """A raid1 on two 16 MiB loop disks is created, resyncs, and reports [UU]."""
    result = smoke_boot

    # Boot timing is recorded, never asserted: this machine is shared.
    record_property("guest_init_s", result.init_at)
    record_property("guest_ready_s", result.ready_at)
    record_property("qemu_wall_s", round(result.elapsed, 2))
    print(
        f"\nboot: init at {result.init_at}s, script at {result.ready_at}s "
        f"(guest uptime); qemu wall {result.elapsed:.1f}s"
    )
    assert result.returncode == 0, result.describe_failure()

    mdstat = (result.results_dir / "mdstat").read_text()
    assert "md0 : active raid1" in mdstat, mdstat
    assert "[UU]" in mdstat, mdstat

    attributes_dir = _untar(result.results_dir / "md0-attributes.tar", tmp_path / "attributes")
    attributes = {path.name: path.read_text().strip() for path in attributes_dir.iterdir()}
    assert attributes["level"] == "raid1"
    assert attributes["raid_disks"] == "2"
    assert attributes["degraded"] == "0"
    assert attributes["sync_action"] == "idle"
    assert attributes["array_state"] in {"clean", "active", "active-idle"}
    assert "bitmap_set_bits" not in attributes  # write-only: skipped, not empty

    # The trace replays as a root with the same files the kernel showed.
    (step,) = load_trace(_untar(result.results_dir / "trace.tar", tmp_path / "trace"))
    replay_root = materialize(step, tmp_path / "replay")
    assert (replay_root / "proc/mdstat").read_text() == mdstat
    assert (replay_root / "sys/block/md0/md/level").read_text().strip() == "raid1"
    assert step["links"]["/sys/block/md0/md/rd0"].startswith("dev-")


def test_host_python_runs_in_guest(smoke_boot):
    """The host's interpreter runs unchanged inside the guest over 9p."""
    python = host_python()
    host_version = subprocess.run(
        [str(python), "-c", "import sys; print(sys.version)"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()

    result = smoke_boot
    assert result.returncode == 0, result.describe_failure()
    assert (result.results_dir / "version").read_text().strip() == host_version
    # Same interpreter, but the guest's own kernel: not the host's.
    assert "Linux version 6.1.0-" in result.dmesg
