# Guest half of test_unit_sandbox.py: smartctl (and raidtop smart) with exactly
# the capability set of deploy/systemd/raidtop-exporter.service, on the qemu
# NVMe and AHCI SATA disks; then with each capability taken away.
#
# The guest has no systemd, so the unit's CapabilityBoundingSet= is applied
# with setpriv (uid 0 with that bounding set and no_new_privs: what systemd
# gives a root service with those settings). DeviceAllow= needs systemd's
# cgroup device program and is not applied here; the open modes smartctl uses
# are traced instead, so the host test can check that "r" is enough.
#
# Environment: $UNIT_CAPS (comma-separated, e.g. sys_rawio,sys_admin) and
# $RAIDTOP_PYTHON.

set -euo pipefail
. tests/realmd/guest_lib.sh

: "${UNIT_CAPS:?}" "${RAIDTOP_PYTHON:?}"
OUT=$RESULTS/sandbox
mkdir -p "$OUT"

sata=$(disk_by_serial RTSATA0)
nvme=$(disk_by_serial RTNVME0)
printf '{"sata": "%s", "nvme": "%s"}\n' "$sata" "$nvme" > "$OUT/disks.json"

# confined LABEL CAPS CMD...: CMD as root whose bounding set is only CAPS.
confined() {
    local label=$1 caps=$2 set="-all" c rc=0; shift 2
    for c in ${caps//,/ }; do set+=",+$c"; done
    setpriv --bounding-set="$set" --inh-caps=-all --no-new-privs -- "$@" \
        > "$OUT/$label.out" 2> "$OUT/$label.err" || rc=$?
    echo "$rc" > "$OUT/$label.rc"
}

smart() { echo smartctl --json=c --xall -n standby "/dev/$1"; }

# as_root LABEL CMD...: the baseline, root with every capability.
as_root() {
    local label=$1 rc=0; shift
    "$@" > "$OUT/$label.out" 2> "$OUT/$label.err" || rc=$?
    echo "$rc" > "$OUT/$label.rc"
}

confined status-unit "$UNIT_CAPS" grep '^Cap' /proc/self/status
as_root sata-root $(smart "$sata")
as_root nvme-root $(smart "$nvme")
confined sata-unit "$UNIT_CAPS" $(smart "$sata")
confined nvme-unit "$UNIT_CAPS" $(smart "$nvme")
confined raidtop-unit "$UNIT_CAPS" "$RAIDTOP_PYTHON" -m raidtop smart --json "$sata" "$nvme"
for cap in ${UNIT_CAPS//,/ }; do
    rest=$(tr ',' '\n' <<< "$UNIT_CAPS" | grep -vx "$cap" | paste -sd, -)
    confined "sata-without-$cap" "$rest" $(smart "$sata")
    confined "nvme-without-$cap" "$rest" $(smart "$nvme")
done
# How smartctl opens the devices (the unit allows reading only).
for disk in "$sata" "$nvme"; do
    strace -f -e trace=openat -o "$OUT/open-$disk.txt" $(smart "$disk") > /dev/null || true
done
