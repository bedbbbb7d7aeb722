set -x
source tests/realmd/guest_lib.sh
K=$(uname -r)
MOD=/work/realmd-cache/$K/root/lib/modules/$K/kernel/drivers/md
ls $MOD | head -3
for m in dm-mod dm-region-hash dm-log dm-mirror dm-raid; do insmod $MOD/$m.ko 2>&1; done; mkdir -p /run/lock/lvm /run/lvm
ls /sys/module | grep -i "dm_\|raid" 
mkdir -p /dev/mapper; [ -e /dev/mapper/control ] || mknod /dev/mapper/control c 10 $(awk '$2=="device-mapper"{print $1}' /proc/misc)
dmsetup version
mapfile -t D < <(make_loop_disks 4 48)
md_create /dev/md0 1 ${D[0]} ${D[1]}
md_wait_idle md0 || true
mdadm --detail --export /dev/md0 > $RESULTS/md0.detail.export
mdadm --detail /dev/md0 > $RESULTS/md0.detail
mdadm --examine --export ${D[0]} > $RESULTS/md0.examine.export.0
mdadm --examine --export ${D[1]} > $RESULTS/md0.examine.export.1
C='devices{obtain_device_list_from_udev=0 external_device_info_source="none" scan_lvs=0} activation{udev_sync=0 udev_rules=0 monitoring=0} global{use_lvmetad=0 locking_type=1}'
export LVM_SUPPRESS_FD_WARNINGS=1
lvm pvcreate -y --config "$C" /dev/md0 ${D[2]} ${D[3]} 2>&1
lvm vgcreate --config "$C" vgmd /dev/md0 2>&1
lvm lvcreate -y --config "$C" -n root -L 16M vgmd 2>&1
lvm vgcreate --config "$C" vgr ${D[2]} ${D[3]} 2>&1
lvm lvcreate -y --config "$C" --type raid1 -m1 -n mirror -L 16M vgr 2>&1
dmsetup status > $RESULTS/dmsetup.status.0
dmsetup status --target raid > $RESULTS/dmsetup.status.raid.0
lvm lvs -a --config "$C" --reportformat json -o lv_name,vg_name,lv_health_status,raid_sync_action,raid_mismatch_count,copy_percent,lv_attr > $RESULTS/lvs.0.json 2>&1
ls /dev/mapper
mkfs.ext4 -q /dev/mapper/vgmd-root 2>&1 || mke2fs -q -t ext4 /dev/mapper/vgmd-root 2>&1
mkdir -p /mnt/root && mount -t ext4 /dev/mapper/vgmd-root /mnt/root 2>&1
cp /proc/self/mountinfo $RESULTS/mountinfo
lsblk --json -o NAME,KNAME,TYPE,SIZE,MOUNTPOINTS -b > $RESULTS/lsblk.json 2>&1
# sysfs capture of what the stack needs
python3 - <<'P' > $RESULTS/sysfs.txt 2>&1
import os
for n in sorted(os.listdir('/sys/class/block')):
    b='/sys/class/block/'+n
    if n.startswith('loop') and open(b+'/size').read().strip()=='0': continue
    def r(p):
        try: return open(b+'/'+p).read().strip()
        except OSError: return None
    print(n, os.readlink(b), r('dev'), r('size'), r('partition'), r('start'), r('dm/name'), r('dm/uuid'), sorted(os.listdir(b+'/holders')), sorted(os.listdir(b+'/slaves')), os.path.isdir(b+'/md'))
P
umount /mnt/root
# fail one leg of the LVM mirror with the error target
for i in 0 1; do dmsetup table vgr-mirror_rimage_$i; done > $RESULTS/rimage.tables
dmsetup suspend vgr-mirror_rimage_1
dmsetup load vgr-mirror_rimage_1 --table "0 $(blockdev --getsz /dev/mapper/vgr-mirror_rimage_1) error"
dmsetup resume vgr-mirror_rimage_1
dd if=/dev/zero of=/dev/mapper/vgr-mirror bs=64k count=8 oflag=direct 2>&1
sleep 1
dmsetup status --target raid > $RESULTS/dmsetup.status.raid.1
lvm lvs -a --config "$C" --reportformat json -o lv_name,vg_name,lv_health_status,raid_sync_action,raid_mismatch_count,copy_percent,lv_attr > $RESULTS/lvs.1.json 2>&1
# repair: put the linear table back and refresh
dmsetup suspend vgr-mirror_rimage_1
dmsetup load vgr-mirror_rimage_1 --table "$(sed -n 2p $RESULTS/rimage.tables)"
dmsetup resume vgr-mirror_rimage_1
lvm lvchange --config "$C" --refresh vgr/mirror 2>&1
for i in 1 2 3 4 5 6; do dmsetup status --target raid > $RESULTS/dmsetup.status.raid.2.$i; lvm lvs --config "$C" --reportformat json -o lv_name,lv_health_status,raid_sync_action,copy_percent vgr > $RESULTS/lvs.2.$i.json 2>&1; sleep 1; done
dmsetup status --target raid > $RESULTS/dmsetup.status.raid.3
lvm vgchange -an --config "$C" vgr vgmd 2>&1
mdadm --stop /dev/md0
echo DONE
