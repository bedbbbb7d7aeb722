"""Write the ``md-lvm`` fixture root: a sysfs and mountinfo tree shaped as the kernel writes it.

Run once (``python3 make_tree.py``); the tree it writes is committed. See PROVENANCE.md:
the layout follows util-linux's ``simple-lvm`` lsblk dump, the dm uuid is the
real one from that dump, and ``lsblk --sysroot`` over the result is the oracle
(``lsblk.json``).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

HERE = Path(__file__).resolve().parent / "md-lvm"
PCI = "devices/pci0000:00/0000:00:1f.2"
VIRT = "devices/virtual/block"
LVM_UUID = "LVM-8Bwyu3HKhVe4Vkg6PsbYBfDf9e2QG9K8dVvuB4kSxMFqQO7rvmEoVq5S9YBEPnd4"

# name: (dev, size in sectors, sysfs dir, slaves, extra files)
DEVICES = {
    "sda": ("8:0", 468862128, f"{PCI}/ata1/host0/target0:0:0/0:0:0:0/block/sda", (), {}),
    "sda1": ("8:1", 409600, None, (), {"partition": "1", "start": "2048"}),
    "sda2": ("8:2", 468450304, None, (), {"partition": "2", "start": "411648"}),
    "sdb": ("8:16", 468862128, f"{PCI}/ata2/host1/target1:0:0/1:0:0:0/block/sdb", (), {}),
    "sdb1": ("8:17", 468860080, None, (), {"partition": "1", "start": "2048"}),
    "sdc": ("8:32", 1953525168, f"{PCI}/ata3/host2/target2:0:0/2:0:0:0/block/sdc", (), {}),
    "sdd": ("8:48", 1953525168, f"{PCI}/ata4/host3/target3:0:0/3:0:0:0/block/sdd", (), {}),
    "sde": ("8:64", 1953525168, f"{PCI}/ata5/host4/target4:0:0/4:0:0:0/block/sde", (), {}),
    "md0": ("9:0", 468318208, f"{VIRT}/md0", ("sda2", "sdb1"),
            {"md/level": "raid1", "md/array_state": "clean", "md/chunk_size": "0", "md/raid_disks": "2"}),
    "md1": ("9:1", 3906764800, f"{VIRT}/md1", ("sdc", "sdd", "sde"),
            {"md/level": "raid5", "md/array_state": "clean", "md/chunk_size": "524288", "md/raid_disks": "3"}),
    "md1p1": ("259:0", 2097152, None, (), {"partition": "1", "start": "2048"}),
    "md1p2": ("259:1", 3904000000, None, (), {"partition": "2", "start": "2099201"}),
    "dm-0": ("253:0", 104857600, f"{VIRT}/dm-0", ("md0",), {"dm/name": "vg0-root", "dm/uuid": LVM_UUID}),
    "dm-1": ("253:1", 209715200, f"{VIRT}/dm-1", ("md0",),
             {"dm/name": "vg0-secret", "dm/uuid": LVM_UUID[:-4] + "Xq1z"}),
    "dm-2": ("253:2", 209682432, f"{VIRT}/dm-2", ("dm-1",),
             {"dm/name": "secret", "dm/uuid": "CRYPT-LUKS2-3f6a1c0e9b2d4c7e8a1f0b2c3d4e5f60-secret"}),
}
PARTS_OF = {"sda1": "sda", "sda2": "sda", "sdb1": "sdb", "md1p1": "md1", "md1p2": "md1"}
MOUNTINFO = """\
22 1 253:0 / / rw,relatime shared:1 - ext4 /dev/mapper/vg0-root rw
23 22 0:21 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw
24 22 0:22 / /sys rw,nosuid,nodev,noexec,relatime shared:2 - sysfs sysfs rw
30 22 8:1 / /boot/efi rw,relatime shared:28 - vfat /dev/sda1 rw,fmask=0077,dmask=0077
31 22 253:2 / /srv/secret\\040files rw,relatime shared:29 - xfs /dev/mapper/secret rw,attr2,inode64,sunit=1024,swidth=2048
32 22 259:0 / /data rw,relatime shared:30 - ext4 /dev/md1p1 rw,stripe=256
33 22 259:0 /www /var/www rw,relatime shared:30 - ext4 /dev/md1p1 rw,stripe=256
"""


def _dev_dir(name: str) -> str:
    if name in PARTS_OF:
        return f"{DEVICES[PARTS_OF[name]][2]}/{name}"
    return DEVICES[name][2]


def main() -> None:
    shutil.rmtree(HERE, ignore_errors=True)
    sys_dir = HERE / "sys"
    for sub in ("block", "class/block", "dev/block"):
        (sys_dir / sub).mkdir(parents=True)
    holders: dict[str, list[str]] = {}
    for name, (_, _, _, slaves, _) in DEVICES.items():
        for slave in slaves:
            holders.setdefault(slave, []).append(name)
    for name, (dev, size, _, slaves, extra) in DEVICES.items():
        d = sys_dir / _dev_dir(name)
        (d / "holders").mkdir(parents=True, exist_ok=True)
        (d / "slaves").mkdir(exist_ok=True)
        for fname, text in {"dev": dev, "size": str(size), "ro": "0", "removable": "0", **extra}.items():
            (d / fname).parent.mkdir(parents=True, exist_ok=True)
            (d / fname).write_text(text + "\n")
        for slave in slaves:
            os.symlink(os.path.relpath(sys_dir / _dev_dir(slave), d / "slaves"), d / "slaves" / slave)
        for holder in holders.get(name, ()):
            os.symlink(os.path.relpath(sys_dir / _dev_dir(holder), d / "holders"), d / "holders" / holder)
        rel = "../../" + _dev_dir(name)
        os.symlink(rel, sys_dir / "class/block" / name)
        os.symlink(rel, sys_dir / "dev/block" / dev)
        if name not in PARTS_OF:
            os.symlink("../" + _dev_dir(name), sys_dir / "block" / name)
    # git keeps no empty directory: an empty holders/ or slaves/ is left out, as a clone would have it.
    for d in sorted(sys_dir.rglob("*"), reverse=True):
        if d.is_dir() and not d.is_symlink() and d.name in ("holders", "slaves") and not any(d.iterdir()):
            d.rmdir()
    (HERE / "proc/self").mkdir(parents=True)
    (HERE / "proc/self/mountinfo").write_text(MOUNTINFO)


if __name__ == "__main__":
    main()
