set -x
source tests/realmd/guest_lib.sh
K=$(uname -r)
KM=/work/realmd-cache/$K/root/lib/modules/$K/kernel
for m in drivers/md/dm-mod drivers/md/dm-region-hash drivers/md/dm-log drivers/md/dm-mirror drivers/md/dm-raid lib/crc16 fs/mbcache fs/jbd2/jbd2 fs/ext4/ext4; do insmod $KM/$m.ko 2>&1; done
mkdir -p /run/lock/lvm /run/lvm /dev/mapper
[ -e /dev/mapper/control ] || mknod /dev/mapper/control c 10 $(awk '$2=="device-mapper"{print $1}' /proc/misc)
mapfile -t D < <(make_loop_disks 4 96)
md_create /dev/md0 1 ${D[0]} ${D[1]}
C='devices{obtain_device_list_from_udev=0 external_device_info_source="none" scan_lvs=0} activation{udev_sync=0 udev_rules=0 monitoring=0}'
export LVM_SUPPRESS_FD_WARNINGS=1
lvm pvcreate -y --config "$C" /dev/md0 ${D[2]} ${D[3]} 2>&1
lvm vgcreate --config "$C" vgmd /dev/md0 2>&1
lvm lvcreate -y --config "$C" -n root -L 32M vgmd 2>&1
mkfs.ext4 -q -E stride=16,stripe-width=16 /dev/mapper/vgmd-root 2>&1
mkdir -p /mnt/root && mount -t ext4 /dev/mapper/vgmd-root /mnt/root 2>&1
dd if=/dev/zero of=/mnt/root/fill bs=1M count=20 2>&1
cp /proc/self/mountinfo $RESULTS/mountinfo
df -B1 /mnt/root > $RESULTS/df 2>&1
lsblk --json -o NAME,KNAME,TYPE,SIZE,FSTYPE,MOUNTPOINTS -b > $RESULTS/lsblk.json 2>&1
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
lvm vgcreate --config "$C" vgr ${D[2]} ${D[3]} 2>&1
lvm lvcreate -y --config "$C" --type raid1 -m1 -n mirror -L 64M vgr 2>&1
for i in $(seq 1 40); do s=$(dmsetup status --target raid); echo "$s" >> $RESULTS/initial.status; case "$s" in *" AA "*idle*) break;; esac; sleep 1; done
echo 2000 > /proc/sys/dev/raid/speed_limit_max
echo 1000 > /proc/sys/dev/raid/speed_limit_min
step() { dmsetup status --target raid > $RESULTS/status.$1; lvm lvs --config "$C" --reportformat json -o lv_name,lv_health_status,raid_sync_action,raid_mismatch_count,copy_percent,lv_attr vgr/mirror > $RESULTS/lvs.$1.json 2>/dev/null; }
step 00
dmsetup table vgr-mirror_rimage_1 > $RESULTS/rimage1.table
dmsetup suspend vgr-mirror_rimage_1
dmsetup load vgr-mirror_rimage_1 --table "0 $(blockdev --getsz /dev/mapper/vgr-mirror_rimage_1) error"
dmsetup resume vgr-mirror_rimage_1
dd if=/dev/urandom of=/dev/mapper/vgr-mirror bs=1M count=48 oflag=direct 2>&1
step 01
dmsetup suspend vgr-mirror_rimage_1
dmsetup load vgr-mirror_rimage_1 --table "$(cat $RESULTS/rimage1.table)"
dmsetup resume vgr-mirror_rimage_1
lvm lvchange --config "$C" --refresh vgr/mirror 2>&1
for i in $(seq 10 70); do step $i; case "$(cat $RESULTS/status.$i)" in *" AA "*idle*) break;; esac; sleep 2; done
lvm lvchange --config "$C" --syncaction check vgr/mirror 2>&1
for i in $(seq 80 120); do step $i; case "$(cat $RESULTS/status.$i)" in *" AA "*idle*) break;; esac; sleep 2; done
umount /mnt/root
lvm vgchange -an --config "$C" vgr vgmd 2>&1
mdadm --stop /dev/md0
echo DONE
