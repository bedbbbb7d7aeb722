"""Smoke tests: the VM boots, md works in it, and host Python runs in it."""

from __future__ import annotations

import subprocess
import tarfile

from .host_python import host_python

RAID1_SCRIPT = r"""
set -euo pipefail
. tests/realmd/guest_lib.sh
mapfile -t disks < <(make_loop_disks 2 16)
md_create /dev/md0 1 "${disks[@]}"
md_wait_idle md0 120
cp /proc/mdstat "$RESULTS/mdstat"
md_save_attributes md0 /tmp/md0-attributes
results_tar md0-attributes /tmp/md0-attributes
"""


def test_raid1_resyncs_in_guest(guest, record_property):
    """A raid1 on two loop disks is created, resyncs, and reports [UU]."""
    result = guest(RAID1_SCRIPT, timeout=180)

    record_property("boot_ready_s", result.ready_at)
    record_property("vm_wall_s", round(result.elapsed, 2))
    print(f"guest: init at {result.init_at}s, script at {result.ready_at}s, "
          f"qemu wall {result.elapsed:.1f}s")
    assert result.returncode == 0, result.describe_failure()

    mdstat = (result.results_dir / "mdstat").read_text()
    assert "md0 : active raid1" in mdstat, mdstat
    assert "[UU]" in mdstat, mdstat

    with tarfile.open(result.results_dir / "md0-attributes.tar") as archive:
        attributes = {
            member.name.removeprefix("./"): archive.extractfile(member).read().decode().strip()
            for member in archive.getmembers()
            if member.isfile()
        }
    assert attributes["level"] == "raid1"
    assert attributes["raid_disks"] == "2"
    assert attributes["sync_action"] == "idle"
    assert attributes["degraded"] == "0"
    assert attributes["array_state"] in {"clean", "active", "active-idle"}


def test_host_python_runs_in_guest(guest):
    """The host's interpreter runs unchanged inside the guest over 9p."""
    python = host_python()
    host_version = subprocess.run(
        [str(python), "-c", "import sys; print(sys.version)"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()

    script = f"""
set -euo pipefail
{python} -c 'import sys; print(sys.version)' > "$RESULTS/version"
"""
    result = guest(script, timeout=120)

    assert result.returncode == 0, result.describe_failure()
    assert (result.results_dir / "version").read_text().strip() == host_version
    # The guest runs its own kernel, not the host's: the whole point.
    assert "Linux version 6.1.0-" in result.dmesg
