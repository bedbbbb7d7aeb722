#!/bin/sh
# PID 1 of the realmd guest (busybox sh, runs from the initramfs).
#
# Loads md/loop/virtio/9p/overlay modules, mounts the host's root (9p, read
# only) under a tmpfs overlay so the host's Python and the project run
# unchanged, runs the job the host left in the writable share inside a
# chroot, reports its exit code and powers off. PID 1 stays here (chroot,
# not switch_root) so it can always report and power off, whatever the job
# does to its own root.

export PATH=/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev

seconds_up() { cut -d' ' -f1 /proc/uptime; }

fail() {
    # No REALMD-EXIT line: the host reports the job as never finished.
    echo "REALMD-INIT-FAILED: $*"
    dmesg | tail -n 40
    poweroff -f
}

echo "REALMD-INIT $(seconds_up)"

while read -r module args; do
    # $args unquoted on purpose: it holds zero or more key=value parameters.
    insmod "$module" $args || fail "insmod $module $args"
done < /etc/realmd/modules

NINEP=trans=virtio,version=9p2000.L,msize=512000
mount -t 9p -o "$NINEP,ro,cache=loose" hostroot /host || fail "mount host root over 9p"
mount -t tmpfs -o mode=0755 overlay-rw /rw || fail "mount tmpfs for the overlay"
mkdir -p /rw/upper /rw/work
mount -t overlay -o lowerdir=/host,upperdir=/rw/upper,workdir=/rw/work overlay /newroot \
    || fail "mount overlay"

# The guest's own kernel interfaces hide the host's, which 9p would expose.
mount -t proc proc /newroot/proc || fail "mount /proc"
mount -t sysfs sysfs /newroot/sys || fail "mount /sys"
mount -t devtmpfs devtmpfs /newroot/dev || fail "mount /dev"
# udev would add these links; bash process substitution needs /dev/fd.
ln -s /proc/self/fd /newroot/dev/fd
ln -s /proc/self/fd/0 /newroot/dev/stdin
ln -s /proc/self/fd/1 /newroot/dev/stdout
ln -s /proc/self/fd/2 /newroot/dev/stderr
mkdir -p /newroot/dev/pts /newroot/dev/shm
mount -t devpts devpts /newroot/dev/pts
mount -t tmpfs -o mode=1777 shm /newroot/dev/shm
# No separate tmpfs on /tmp: the overlay already makes it writable, and a
# repo or venv cloned under the host's /tmp (as CI may do) must stay visible.
mount -t tmpfs -o mode=0755 run /newroot/run || fail "mount /run"

SHARE=/run/realmd/share
mkdir -p "/newroot$SHARE"
mount -t 9p -o "$NINEP" share "/newroot$SHARE" || fail "mount the results share"

# The host has no mdadm; this one came from Debian's package, with the
# libraries ldd listed on the host, so it also runs inside the chroot.
mkdir -p /newroot/usr/local/sbin /newroot/run/realmd
cp /sbin/mdadm /newroot/usr/local/sbin/mdadm
cp /bin/busybox /newroot/run/realmd/busybox

echo "REALMD-READY $(seconds_up)"
chroot /newroot /bin/sh "$SHARE/job.sh"
rc=$?
echo "REALMD-EXIT $rc"

echo "$rc" > "/newroot$SHARE/exitcode"
dmesg > "/newroot$SHARE/dmesg.txt"
# md's reboot notifier sleeps 1 s if any array exists; stopping the unused
# ones first saves that second on every boot. Busy arrays just stay.
for state in /sys/block/md*/md/array_state; do
    [ -e "$state" ] && echo clear > "$state" 2>/dev/null
done
sync
echo "REALMD-POWEROFF $(seconds_up)"
poweroff -f
