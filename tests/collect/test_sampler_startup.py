"""Start-up on many devices: the identity walk is spread over the first samples (issue 14).

A real root tree on disk (sysfs-shaped directories, a udev database entry)
read by the real Sampler; nothing is mocked.
"""

from __future__ import annotations

from pathlib import Path

from raidtop.collect.blockinfo import identify
from raidtop.collect.sampler import Sampler
from raidtop.collect.source import Root

DISKS = 40


def machine(root: Path, reads: int = 100) -> Path:
    """``DISKS`` disks with a model each, sda with a partition, sdb with a udev entry; all idle."""
    (root / "proc").mkdir(parents=True, exist_ok=True)
    (root / "proc" / "uptime").write_text("100.00 0.00\n")
    lines = []
    for n in range(DISKS):
        name = f"sd{chr(ord('a') + n // 26)}{chr(ord('a') + n % 26)}" if n >= 26 else f"sd{chr(ord('a') + n)}"
        device = root / "sys" / "block" / name / "device"
        device.mkdir(parents=True, exist_ok=True)
        (device / "model").write_text(f"MODEL {n}\n")
        lines.append(f"8 {16 * n} {name} {reads} 0 800 10 0 0 0 0 0 10 10 0 0 0 0 0 0")
        if n == 0:
            part = root / "sys" / "block" / "sda" / "sda1"
            part.mkdir(parents=True, exist_ok=True)
            (part / "partition").write_text("1\n")
            link = root / "sys" / "class" / "block"
            link.mkdir(parents=True, exist_ok=True)
            (link / "sda1").symlink_to("../../block/sda/sda1")
            lines.append(f"8 1 sda1 {reads} 0 800 10 0 0 0 0 0 10 10 0 0 0 0 0 0")
    udev = root / "run" / "udev" / "data"
    udev.mkdir(parents=True, exist_ok=True)
    (udev / "b8:16").write_text("E:ID_MODEL=Udev_Model\nE:ID_SERIAL_SHORT=S123\nS:disk/by-id/ata-Udev_Model_S123\n")
    (root / "proc" / "diskstats").write_text("\n".join(lines) + "\n")
    return root


def test_the_first_snapshot_waits_for_a_few_walks_and_the_rest_follow(tmp_path):
    root = machine(tmp_path)
    sampler = Sampler(root, identify_per_sample=8)
    first = sampler.sample()
    assert len(first.disks) == DISKS + 1
    # Kind comes from a few stats for every device: the partition is one already.
    assert next(d for d in first.disks if d.name == "sda1").kind == "partition"
    # The first 8 devices in /proc/diskstats order were walked (sda1, a partition, has no model).
    assert [d.name for d in first.disks if d.model] == ["sda", "sdb", "sdc", "sdd", "sde", "sdf", "sdg"]
    snap = first
    for _ in range(DISKS // 8 + 1):
        snap = sampler.sample()
    # Every device now has what a full walk says, in its (idle, reused) row too.
    full = {d.name: identify(Root(root), d.name, d.major, d.minor) for d in snap.raw.disks}
    for disk in snap.disks:
        assert (disk.model, disk.serial, disk.by_id) == (
            full[disk.name].model,
            full[disk.name].serial,
            full[disk.name].by_id,
        ), disk.name
    sdb = next(d for d in snap.disks if d.name == "sdb")
    assert (sdb.model, sdb.serial, sdb.by_id) == ("Udev Model", "S123", "ata-Udev_Model_S123")
    # The steady state reuses the identities once all are walked.
    assert sampler.sample().raw.identities is sampler.sample().raw.identities


def test_without_a_batch_the_first_snapshot_has_every_identity(tmp_path):
    snap = Sampler(machine(tmp_path)).sample()
    assert all(d.model is not None for d in snap.disks if d.kind != "partition")
