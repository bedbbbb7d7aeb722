"""The qemu arguments and images for run_in_guest(disks=...), without booting (guest_disks.py)."""

from __future__ import annotations

import os

import pytest

from .guest_disks import GuestDisk, disk_arguments


def test_nvme_and_sata_disks_become_sparse_images_and_devices(tmp_path):
    disks = (
        GuestDisk("nvme", "nvme0", "RTNVME0", 8),
        GuestDisk("sata", "sata0", "RTSATA0", 4),
        GuestDisk("sata", "sata1", "RTSATA1", 4),
    )
    arguments = disk_arguments(disks, tmp_path)
    devices = [arguments[i + 1] for i, arg in enumerate(arguments) if arg == "-device"]
    assert devices == [
        "ahci,id=ahci0",
        "nvme,id=nvme0,serial=RTNVME0,drive=drv_nvme0",
        "ide-hd,id=sata0,drive=drv_sata0,bus=ahci0.0,serial=RTSATA0",
        "ide-hd,id=sata1,drive=drv_sata1,bus=ahci0.1,serial=RTSATA1",
    ]
    image = tmp_path / "nvme0.img"
    assert f"file={image},if=none,id=drv_nvme0,format=raw" in arguments
    assert image.stat().st_size == 8 * 1024 * 1024
    assert image.stat().st_blocks == 0  # sparse: nothing written on the host


def test_no_ahci_controller_without_sata_disks(tmp_path):
    assert "ahci,id=ahci0" not in disk_arguments((GuestDisk("nvme", "nvme0", "S0"),), tmp_path)


def test_an_existing_file_or_link_at_an_image_path_is_never_reused(tmp_path):
    sentinel = tmp_path / "sentinel"
    sentinel.write_bytes(b"keep me")
    os.symlink(sentinel, tmp_path / "nvme0.img")
    with pytest.raises(FileExistsError):
        disk_arguments((GuestDisk("nvme", "nvme0", "S0"),), tmp_path)
    assert sentinel.read_bytes() == b"keep me"  # not truncated through the link


@pytest.mark.parametrize(
    "kind, disk_id, serial",
    [
        ("scsi", "d0", "S0"),  # not a kind we attach
        ("nvme", "nvme0,bus=x", "S0"),  # would inject a qemu option
        ("nvme", "nvme0", "S0,drive=y"),
        ("nvme", "../x", "S0"),
    ],
)
def test_ids_and_serials_that_are_not_plain_are_refused(kind, disk_id, serial):
    with pytest.raises(ValueError):
        GuestDisk(kind, disk_id, serial)


def test_duplicate_ids_or_serials_are_refused(tmp_path):
    with pytest.raises(ValueError):
        disk_arguments((GuestDisk("nvme", "a", "S0"), GuestDisk("nvme", "a", "S1")), tmp_path)
    with pytest.raises(ValueError):
        disk_arguments((GuestDisk("nvme", "a", "S0"), GuestDisk("sata", "b", "S0")), tmp_path)
    assert list(tmp_path.iterdir()) == []  # refused before any image was made
