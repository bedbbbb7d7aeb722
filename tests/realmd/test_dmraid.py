"""LVM RAID on the real kernel: raidtop's sampler beside lvs while a leg fails (dm error target) and recovers.

The guest loads dm-mod and dm-raid from the cached kernel tree (the initramfs
carries only md), runs lvm2 and dmsetup from the host over 9p, and
raidtop's own Sampler on the live guest root (tests/realmd/guest_dmraid.py).
"""

from __future__ import annotations

import json
import shutil

import pytest

from .host_python import host_python
from .vm import run_in_guest

SCRIPT = r"""
set -euo pipefail
. tests/realmd/guest_lib.sh
KM=__MODULES__
# dm-raid needs only dm-mod beside md's modules
for m in drivers/md/dm-mod drivers/md/dm-raid lib/crc16 fs/mbcache fs/jbd2/jbd2 fs/ext4/ext4; do
    insmod "$KM/$m.ko"
done
mkdir -p /run/lock/lvm /run/lvm /dev/mapper
[ -e /dev/mapper/control ] || mknod /dev/mapper/control c 10 "$(awk '$2=="device-mapper"{print $1}' /proc/misc)"
mapfile -t D < <(make_loop_disks 2 96)
mapfile -t M < <(make_loop_disks 2 48)
md_create /dev/md0 1 "${M[@]}"
C='devices{obtain_device_list_from_udev=0 external_device_info_source="none" scan_lvs=0}'
C+=' activation{udev_sync=0 udev_rules=0 monitoring=0}'
export LVM_SUPPRESS_FD_WARNINGS=1
lvm pvcreate -y --config "$C" "${D[@]}"
lvm vgcreate --config "$C" vgr "${D[@]}"
lvm lvcreate -y --config "$C" --type raid1 -m1 -n mirror -L 64M vgr
lvm pvcreate -y --config "$C" /dev/md0
lvm vgcreate --config "$C" vgmd /dev/md0
lvm lvcreate -y --config "$C" -n root -L 32M vgmd
mkfs.ext4 -q /dev/mapper/vgmd-root
mkdir -p /mnt/root && mount -t ext4 /dev/mapper/vgmd-root /mnt/root
dd if=/dev/zero of=/mnt/root/fill bs=1M count=8 2>/dev/null
lsblk --json -o NAME,KNAME,TYPE,SIZE,MOUNTPOINTS -b > "$RESULTS/lsblk.json"
df -B1 --output=used,avail /mnt/root | tail -1 > "$RESULTS/df"
for i in $(seq 1 60); do case "$(dmsetup status --target raid)" in *" AA "*idle*) break;; esac; sleep 1; done
echo 2000 > /proc/sys/dev/raid/speed_limit_max
echo 1000 > /proc/sys/dev/raid/speed_limit_min
"$PYTHON" -m tests.realmd.guest_dmraid
umount /mnt/root
lvm vgchange -an --config "$C" vgr vgmd
"""


def test_an_lvm_raid1_leg_fails_and_recovers_as_clearly_as_md(vm_image, tmp_path) -> None:
    if shutil.which("lvm", path="/usr/sbin:/sbin") is None or shutil.which("dmsetup", path="/usr/sbin:/sbin") is None:
        pytest.skip("lvm2 and dmsetup are needed on the host (the guest runs them over 9p): apt-get install lvm2")
    modules = vm_image.kernel.parent / "root/lib/modules" / vm_image.kernel_version / "kernel"
    script = f"PYTHON={host_python()}\n" + SCRIPT.replace("__MODULES__", str(modules))
    result = run_in_guest(script, timeout=420, results_dir=tmp_path, image=vm_image)
    assert result.returncode == 0, result.console_log[-3000:]
    steps = json.loads((tmp_path / "dmraid.json").read_text())
    healthy, failed, *recovery = steps
    assert healthy["array"]["health"] == "ok" and healthy["lvs"]["lv_health_status"] == ""
    # The leg on the error target: the kernel says D, raidtop a faulty leg, lvs "refresh needed".
    assert failed["array"]["faulty"] == ["vgr-mirror_rimage_1"] and failed["array"]["status"] == "U_"
    assert failed["lvs"]["lv_health_status"] == "refresh needed"
    assert failed["events"] == [["Fail", "vgr-mirror_rimage_1"], ["DegradedArray", None]]
    events = [e[0] for s in recovery for e in s["events"]]
    assert events[0] == "RebuildStarted" and events[-2:] == ["RebuildFinished", "SpareActive"]
    running = [s for s in recovery if s["array"]["sync"] is not None]
    assert running, "the recovery was never seen running"
    for i, s in enumerate(recovery[:-1]):
        sync = s["array"]["sync"]
        if sync is None:
            continue
        nxt = recovery[i + 1]["array"]["sync"]
        # lvs ran right after raidtop's sample: its percent lies between raidtop's and the next one.
        assert sync[1] <= float(s["lvs"]["copy_percent"]) <= (100.0 if nxt is None else nxt[1])
        assert s["array"]["health"] == "degraded" and s["lvs"]["raid_sync_action"] in (sync[0], "idle")
    assert recovery[-1]["array"]["health"] == "ok" and recovery[-1]["lvs"]["copy_percent"] == "100.00"
    _ext4_on_lvm_on_md(tmp_path)


def _lsblk(node: dict) -> tuple:
    kind = "raid" if node["type"].startswith("raid") else node["type"]
    mounts = tuple(sorted(m for m in node.get("mountpoints", ()) if m))
    return (node["kname"], kind, node["size"], mounts, tuple(sorted(_lsblk(c) for c in node.get("children", ()))))


def _ext4_on_lvm_on_md(results) -> None:
    """raidtop's stack read live in the guest (guest_dmraid.py) against the guest's lsblk and df."""
    ours = json.loads((results / "stack.json").read_text())
    oracle = {d["kname"]: _lsblk(d) for d in json.loads((results / "lsblk.json").read_text())["blockdevices"]}
    md_members = [k for k, tree in oracle.items() if any(c[0] == "md0" for c in tree[4])]
    assert len(md_members) == 2
    for member in md_members:
        assert _tree(ours, member) == oracle[member]
    used, avail = (int(v) for v in (results / "df").read_text().split())
    root = next(n for n in ours.values() if n["label"] == "vgmd-root")
    assert (root["fstype"], root["mountpoints"], root["under"]) == ("ext4", ["/mnt/root"], ["md0"])
    # statvfs a moment apart from df: the same filesystem, nothing writing to it.
    assert (root["usage"]["used_bytes"], root["usage"]["avail_bytes"]) == (used, avail)


def _tree(nodes: dict, name: str) -> tuple:
    n = nodes[name]
    return (
        n["name"],
        n["kind"],
        n["size_bytes"],
        tuple(sorted(n["mountpoints"])),
        tuple(sorted(_tree(nodes, h) for h in n["holders"])),
    )
