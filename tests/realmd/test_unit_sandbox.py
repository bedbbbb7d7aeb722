"""The shipped systemd unit's sandbox lets smartctl read real NVMe and SATA disks (and needs all it keeps).

One boot with a qemu NVMe controller and an AHCI SATA disk runs
tests/realmd/guest_unit_sandbox.sh: smartctl and ``raidtop smart`` run as
root with exactly the unit's ``CapabilityBoundingSet=`` (setpriv; the guest
has no systemd), then with each of its capabilities removed. Proven here:
that set reads SMART from both disks; each capability is needed by one of
them; smartctl opens the devices read-only, which is what ``DeviceAllow=
... r`` grants. Not proven here: systemd's own enforcement of
``DevicePolicy=closed``/``DeviceAllow=`` (needs systemd's cgroup device
program; no systemd runs in the guest or on this host).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from .guest_disks import GuestDisk
from .guest_python import raidtop_python, reach_interpreter_script

REPO = Path(__file__).resolve().parents[2]
UNIT = REPO / "deploy" / "systemd" / "raidtop-exporter.service"
DISKS = (GuestDisk("nvme", "nvme0", "RTNVME0"), GuestDisk("sata", "sata0", "RTSATA0"))


def unit_caps() -> list[str]:
    found = re.search(r"^CapabilityBoundingSet=(.+)$", UNIT.read_text(), re.M).group(1).split()
    return [c.lower().removeprefix("cap_") for c in found]


@pytest.fixture(scope="module")
def sandbox(vm_image, tmp_path_factory) -> dict:
    from .vm import run_in_guest

    python = raidtop_python()
    results = tmp_path_factory.mktemp("sandbox") / "results"
    script = (
        reach_interpreter_script(python) + f"UNIT_CAPS={','.join(unit_caps())} RAIDTOP_PYTHON={python} "
        "exec bash tests/realmd/guest_unit_sandbox.sh\n"
    )
    guest = run_in_guest(script, timeout=240, results_dir=results, image=vm_image, disks=DISKS)
    assert guest.returncode == 0, guest.describe_failure()
    out = results / "sandbox"
    return {"out": out, "disks": json.loads((out / "disks.json").read_text())}


def ran(run: dict, label: str) -> tuple[int, str]:
    return int((run["out"] / f"{label}.rc").read_text()), (run["out"] / f"{label}.out").read_text(errors="replace")


def test_the_unit_keeps_two_capabilities() -> None:
    assert unit_caps() == ["sys_rawio", "sys_admin"]


def test_inside_the_set_only_those_capabilities_are_effective(sandbox) -> None:
    rc, status = ran(sandbox, "status-unit")
    effective = int(re.search(r"^CapEff:\s*([0-9a-f]+)$", status, re.M).group(1), 16)
    cap_sys_rawio, cap_sys_admin = 17, 21  # linux/capability.h
    assert rc == 0 and effective == (1 << cap_sys_rawio) | (1 << cap_sys_admin)


def smart_data(out: str) -> dict:
    """What SMART said, without what changes between two reads (times, argv)."""
    doc = json.loads(out)
    for key in ("local_time", "smartctl", "power_on_time"):
        doc.pop(key, None)
    return doc


def test_the_unit_set_reads_smart_as_full_root_does(sandbox) -> None:
    for kind, table in (("sata", "ata_smart_attributes"), ("nvme", "nvme_smart_health_information_log")):
        root_rc, root_out = ran(sandbox, f"{kind}-root")
        rc, out = ran(sandbox, f"{kind}-unit")
        # qemu's SATA disk has no SMART log directory: --xall says so in bit 2 even as full root.
        assert rc == root_rc and rc & 0b11 == 0, (kind, rc, root_rc)
        assert table in json.loads(out) and json.loads(out)["smart_status"]["passed"] is True
        assert smart_data(out).keys() == smart_data(root_out).keys()


def test_raidtop_smart_reads_both_disks_inside_the_set(sandbox) -> None:
    rc, out = ran(sandbox, "raidtop-unit")
    states = {d["disk"]: d["state"] for d in json.loads(out)["disks"]}
    assert states == {sandbox["disks"]["sata"]: "read", sandbox["disks"]["nvme"]: "read"}, (rc, out[:800])


def test_sata_needs_sys_rawio_and_nvme_needs_sys_admin(sandbox) -> None:
    rc, out = ran(sandbox, "sata-without-sys_rawio")
    assert "ata_smart_attributes" not in json.loads(out or "{}"), rc
    rc, out = ran(sandbox, "nvme-without-sys_admin")
    assert "nvme_smart_health_information_log" not in json.loads(out or "{}"), rc
    # ... and each is enough on its own for its kind of disk.
    assert ran(sandbox, "sata-without-sys_admin")[0] == ran(sandbox, "sata-root")[0]
    assert ran(sandbox, "nvme-without-sys_rawio")[0] == ran(sandbox, "nvme-root")[0]


def test_smartctl_opens_the_disks_read_only(sandbox) -> None:
    for disk in sandbox["disks"].values():
        opens = [
            line for line in (sandbox["out"] / f"open-{disk}.txt").read_text().splitlines() if f'"/dev/{disk}"' in line
        ]
        assert opens, f"smartctl never opened /dev/{disk}"
        assert all("O_RDONLY" in line and "O_RDWR" not in line and "O_WRONLY" not in line for line in opens), opens
