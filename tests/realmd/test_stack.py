"""The storage stack on the real kernel: ext4 on LVM on md raid5, an LV made misaligned, and mdadm's creation time.

Two raid5 arrays (64 KiB chunk, 3 disks: a 128 KiB stripe) each carry one
PV: md0's made as LVM makes it (its data start aligned to md's
optimal_io_size), md1's with ``pvcreate --dataalignmentoffset 3s`` (data
1.5 KiB past a chunk boundary). raidtop's stack reader, alignment check and
Stack screen run in the guest (guest_stack.py); the host compares them with
the guest's ``lsblk --json``, ``pvs``, ``dmsetup table`` and the kernel's
``alignment_offset``, and mdadm's creation time with the guest's clock.
"""

from __future__ import annotations

import json
import shutil

import pytest

from raidtop.collect.md.mdadm_detail import parse_creation_time

from .host_python import host_python
from .test_dmraid import _lsblk, _tree
from .vm import run_in_guest

CHUNK = 64 * 1024
SCRIPT = r"""
set -euo pipefail
. tests/realmd/guest_lib.sh
KM=__MODULES__
for m in drivers/md/dm-mod lib/crc16 fs/mbcache fs/jbd2/jbd2 fs/ext4/ext4; do
    insmod "$KM/$m.ko"
done
mkdir -p /run/lock/lvm /run/lvm /dev/mapper
[ -e /dev/mapper/control ] || mknod /dev/mapper/control c 10 "$(awk '$2=="device-mapper"{print $1}' /proc/misc)"
mapfile -t D < <(make_loop_disks 6 40)
date -u +%s > "$RESULTS/created-after"
md_create /dev/md0 5 "${D[@]:0:3}" -- --chunk=64 --assume-clean
md_create /dev/md1 5 "${D[@]:3:3}" -- --chunk=64 --assume-clean
date -u +%s > "$RESULTS/created-before"
C='devices{obtain_device_list_from_udev=0 external_device_info_source="none" scan_lvs=0}'
C+=' activation{udev_sync=0 udev_rules=0 monitoring=0}'
export LVM_SUPPRESS_FD_WARNINGS=1
lvm pvcreate -y --config "$C" /dev/md0
lvm pvcreate -y --config "$C" --dataalignmentoffset 3s /dev/md1
lvm vgcreate --config "$C" vga /dev/md0
lvm vgcreate --config "$C" vgb /dev/md1
lvm lvcreate -y --config "$C" -n good -L 16M vga
lvm lvcreate -y --config "$C" -n bad -L 16M vgb
mkfs.ext4 -q /dev/mapper/vga-good
mkdir -p /mnt/good && mount -t ext4 /dev/mapper/vga-good /mnt/good
lsblk --json -o NAME,KNAME,TYPE,SIZE,MOUNTPOINTS -b > "$RESULTS/lsblk.json"
lvm pvs --config "$C" --reportformat json --units s -o pv_name,pe_start > "$RESULTS/pvs.json"
dmsetup table > "$RESULTS/dmtable"
for d in /sys/block/dm-*; do echo "$(< "$d/dm/name") $(< "$d/alignment_offset")"; done > "$RESULTS/offsets"
mdadm --detail /dev/md0 > "$RESULTS/md0.detail"
"$PYTHON" -m tests.realmd.guest_stack
umount /mnt/good
lvm vgchange -an --config "$C" vga vgb
"""


def test_ext4_on_lvm_on_md_and_a_misaligned_lv_as_the_kernel_and_lvm_see_them(vm_image, tmp_path) -> None:
    if shutil.which("lvm", path="/usr/sbin:/sbin") is None or shutil.which("dmsetup", path="/usr/sbin:/sbin") is None:
        pytest.skip("lvm2 and dmsetup are needed on the host (the guest runs them over 9p): apt-get install lvm2")
    modules = vm_image.kernel.parent / "root/lib/modules" / vm_image.kernel_version / "kernel"
    script = f"PYTHON={host_python()}\n" + SCRIPT.replace("__MODULES__", str(modules))
    result = run_in_guest(script, timeout=420, results_dir=tmp_path, image=vm_image)
    assert result.returncode == 0, result.console_log[-3000:]
    got = json.loads((tmp_path / "stack.json").read_text())
    nodes = got["nodes"]
    by_label = {n["label"]: n for n in nodes.values()}

    # The tree, against the guest's lsblk: each member of md0 and md1 up to the LVs and the mount.
    oracle = {d["kname"]: _lsblk(d) for d in json.loads((tmp_path / "lsblk.json").read_text())["blockdevices"]}
    members = [k for k, tree in oracle.items() if any(c[0] in ("md0", "md1") for c in tree[4])]
    assert len(members) == 6
    for member in members:
        assert _tree(nodes, member) == oracle[member]
    good, bad = by_label["vga-good"], by_label["vgb-bad"]
    assert (good["kind"], good["fstype"], good["mountpoints"], good["under"]) == ("lvm", "ext4", ["/mnt/good"], ["md0"])

    # The LV's data start is its PV's pe_start (the first extent), as LVM and the dm table say.
    pe_start = {
        pv["pv_name"]: int(pv["pe_start"].rstrip("sS"))
        for pv in json.loads((tmp_path / "pvs.json").read_text())["report"][0]["pv"]
    }
    table = dict(line.split(": ", 1) for line in (tmp_path / "dmtable").read_text().splitlines())
    assert table["vgb-bad"].split()[2:] == ["linear", "9:1", str(pe_start["/dev/md1"])]
    assert (pe_start["/dev/md0"] * 512) % CHUNK == 0 and (pe_start["/dev/md1"] * 512) % CHUNK == 1536
    kernel = dict(line.split() for line in (tmp_path / "offsets").read_text().splitlines())
    assert good["alignment_offset"] == int(kernel["vga-good"]) == 0
    assert bad["alignment_offset"] == int(kernel["vgb-bad"]) != 0
    # Flagged: the misaligned LV only, in the words the kernel's number allows.
    assert got["arrays"]["md1"] == ["raid5", 64, 3]
    # One segment: the kernel's number is (chunk − start mod chunk) mod chunk, not its -1 "misaligned".
    assert bad["alignment_offset"] == CHUNK - 1536
    said = "LV starts 1.5 KiB past a 64 KiB chunk of md1, so off its 128 KiB stripe"
    # The ext4 mkfs made on vga-good (1 KiB blocks on 16 MiB, stripe= from md0's optimal_io_size) is not flagged.
    assert got["misaligned"] == {next(k for k, n in nodes.items() if n["label"] == "vgb-bad"): said}

    # The Stack screen (u) in the real app on the guest's root: the same layers, the note on the bad LV.
    rows = {r[0].lstrip("│├└─ "): r for r in got["rows"]}
    assert rows["vgb-bad"][7] == "! " + said and rows["vga-good"][7] == ""
    assert rows["vga-good"][4] == "ext4" and rows["vga-good"][6].strip() == "/mnt/good"
    assert rows["md1"][3].startswith("raid5 ")

    # mdadm's creation time: read from plain --detail, between the guest's clock before and after --create.
    mdadm = got["mdadm"]
    assert mdadm["unavailable"] is None, mdadm
    after, before = (int((tmp_path / f).read_text()) for f in ("created-after", "created-before"))
    assert after <= mdadm["creation_time"] <= before
    assert parse_creation_time((tmp_path / "md0.detail").read_text()) == mdadm["creation_time"]
