"""Extra disks for a guest boot that smartctl can really read: qemu's NVMe and AHCI SATA.

The loop disks most scenarios use have no SMART; these are emulated
controllers whose health log smartctl reads like a real drive's (qemu's NVMe
answers Get Log Page 02h, its IDE/AHCI disk answers SMART READ DATA). Each
disk is a sparse raw image in a temp folder that :func:`vm.run_in_guest`
removes after the boot.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Sequence

KINDS = ("nvme", "sata")
#: qemu ids become QOM paths (/machine/peripheral/ID) and option values: keep them plain.
_PLAIN = re.compile(r"^[a-z][a-z0-9_]{0,15}$")
_SERIAL = re.compile(r"^[A-Za-z0-9-]{1,20}$")


@dataclass(frozen=True)
class GuestDisk:
    """One emulated disk.

    Attributes:
        kind: ``nvme`` (its own ``-device nvme`` controller, one namespace)
            or ``sata`` (an ``ide-hd`` on one shared ``-device ahci``).
        id: the qemu device id; the QOM path is ``/machine/peripheral/<id>``.
        serial: what the guest reads in ``/sys/block/*/device/serial``
            (NVMe) or the ATA IDENTIFY serial, so a script can find the disk.
        size_mib: size of the sparse raw image.
    """

    kind: str
    id: str
    serial: str
    size_mib: int = 64

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"disk kind {self.kind!r} is not one of {', '.join(KINDS)}")
        if not _PLAIN.match(self.id) or not _SERIAL.match(self.serial):
            raise ValueError(f"disk id {self.id!r} or serial {self.serial!r} is not plain")

    @property
    def qom_path(self) -> str:
        """Where QMP's qom-get/qom-set find this device."""
        return f"/machine/peripheral/{self.id}"


def disk_arguments(disks: Sequence[GuestDisk], folder: Path) -> list[str]:
    """Create each disk's image in ``folder`` and return the qemu arguments for them all.

    Raises:
        ValueError: two disks share an id or a serial.
    """
    if len({d.id for d in disks}) < len(disks) or len({d.serial for d in disks}) < len(disks):
        raise ValueError("guest disks need distinct ids and serials")
    arguments: list[str] = []
    if any(d.kind == "sata" for d in disks):
        arguments += ["-device", "ahci,id=ahci0"]
    sata_port = 0
    for disk in disks:
        image = folder / f"{disk.id}.img"
        # O_EXCL: the folder is our own fresh temp dir; never reuse a file.
        with open(image, "xb") as handle:
            handle.truncate(disk.size_mib * 1024 * 1024)
        drive = f"drv_{disk.id}"
        arguments += ["-drive", f"file={image},if=none,id={drive},format=raw"]
        if disk.kind == "nvme":
            arguments += ["-device", f"nvme,id={disk.id},serial={disk.serial},drive={drive}"]
        else:
            arguments += ["-device", f"ide-hd,id={disk.id},drive={drive},bus=ahci0.{sata_port},serial={disk.serial}"]
            sata_port += 1
    return arguments
