#!/bin/sh
# How tests/data/processes/host-v1 was captured (root; cgroup v1 blkio host). It attaches a loop
# device on /tmp/i26probe.img and makes the blkio group /raidtop-probe; undo by hand:
# echo "7:0 0" > .../blkio.throttle.write_bps_device; rmdir the group; losetup -d; rm the image.
set -e
OUT=/tmp/i26cap/host
rm -rf $OUT; mkdir -p $OUT
L=$(cat /tmp/i26probe.loop 2>/dev/null || echo none)
losetup -d $L || true
truncate -s 512M /tmp/i26probe.img
L=$(losetup -f --show /tmp/i26probe.img); echo $L > /tmp/i26probe.loop
MM=$(lsblk -dno MAJ:MIN $L | tr -d ' ')
CG=/sys/fs/cgroup/blkio/raidtop-probe
mkdir -p $CG
echo "$MM 10000000000" > $CG/blkio.throttle.write_bps_device
sh -c "echo \$\$ > $CG/cgroup.procs; exec dd if=/dev/zero of=$L bs=64k count=8000 oflag=direct status=none" &
DD=$!
sleep 0.5
for t in t1 t2; do
  R=$OUT/$t
  mkdir -p $R/proc/$DD $R/proc/2 $R/sys/fs/cgroup/blkio/raidtop-probe $R/etc
  for f in io stat status cgroup comm; do cat /proc/$DD/$f > $R/proc/$DD/$f; cat /proc/2/$f > $R/proc/2/$f; done
  cat /proc/uptime > $R/proc/uptime
  grep -E " loop[0-9]+ " /proc/diskstats | grep " $(basename $L) " > $R/proc/diskstats
  for f in blkio.throttle.io_service_bytes blkio.throttle.io_serviced; do cat /sys/fs/cgroup/blkio/$f > $R/sys/fs/cgroup/blkio/$f; cat $CG/$f > $R/sys/fs/cgroup/blkio/raidtop-probe/$f; done
  grep -E "^root:" /etc/passwd > $R/etc/passwd
  sleep 1
done
echo dd=$DD loop=$L mm=$MM
wait $DD || true
