# Guest half of test_smart.py: SMART on disks smartctl really reads, and a
# fault injected through qemu (issue 17, item 7).
#
# Run by run_in_guest(disks=SMART_DISKS, qmp=True) with $RAIDTOP_PYTHON set.
# Disks (guest_disks.py): two qemu NVMe controllers (serials RTNVME0 and
# RTNVME1) and one AHCI SATA disk (RTSATA0). Story: smartctl reads all
# three; raid1 md0 on the two NVMe namespaces; raidtop judges them; the
# first NVMe is failed and removed (no redundancy left); the host sets the
# survivor's smart_critical_warning to 0x4 (reliability degraded) over QMP;
# smartctl and raidtop read it again.
#
# The VM steps (smartctl, mdadm, QMP) must succeed: `set -e` ends the script
# otherwise. raidtop's own commands only have their output and exit code
# saved: the host test judges them (they come from other branches of issue 17).

set -euo pipefail
. tests/realmd/guest_lib.sh

: "${RAIDTOP_PYTHON:?set RAIDTOP_PYTHON to the interpreter that imports raidtop}"
CRITICAL_WARNING=4
mkdir -p "$RESULTS/smartctl" "$RESULTS/raidtop"

failed_disk=$(disk_by_serial RTNVME0)
survivor=$(disk_by_serial RTNVME1)
sata_disk=$(disk_by_serial RTSATA0)
declare -A disk_of=([nvme0]=$failed_disk [nvme1]=$survivor [sata0]=$sata_disk)

# smartctl_json LABEL DISK: the reader's own call (issue 17: --json=c --xall
# -n standby), output and exit status kept.
smartctl_json() {
    local rc=0
    smartctl --json=c --xall -n standby "/dev/$2" > "$RESULTS/smartctl/$1.json" || rc=$?
    echo "$rc" > "$RESULTS/smartctl/$1.rc"
}

# raidtop_run LABEL ARGS...: raidtop's output, errors and exit status, whatever they are.
raidtop_run() {
    local label=$1 rc=0; shift
    "$RAIDTOP_PYTHON" -m raidtop "$@" > "$RESULTS/raidtop/$label.json" \
        2> "$RESULTS/raidtop/$label.err" || rc=$?
    echo "$rc" > "$RESULTS/raidtop/$label.rc"
    echo "raidtop $* -> exit $rc"
}

for id in "${!disk_of[@]}"; do
    smartctl_json "$id-before" "${disk_of[$id]}"
done

# --assume-clean: the story needs md's state, not a resync of empty disks.
md_create /dev/md0 1 "/dev/$failed_disk" "/dev/$survivor" -- --assume-clean --metadata=1.2
raidtop_run smart-healthy smart --json

mdadm /dev/md0 --fail "/dev/$failed_disk"
mdadm /dev/md0 --remove "/dev/$failed_disk"
cp /proc/mdstat "$RESULTS/mdstat-degraded.txt"
md_save_attributes md0 "$RESULTS/md0-degraded"

qmp_request set-warning "{\"execute\": \"qom-set\", \"arguments\": {\"path\": \"/machine/peripheral/nvme1\",
    \"property\": \"smart_critical_warning\", \"value\": $CRITICAL_WARNING}}"
qmp_request get-warning '{"execute": "qom-get", "arguments": {"path": "/machine/peripheral/nvme1",
    "property": "smart_critical_warning"}}'

# The bridge passes only qom-get/qom-set/query-*: a request to quit qemu is
# refused (qmp_request fails) and the VM goes on.
if qmp_request refused-quit '{"execute": "quit"}'; then
    echo "the QMP bridge passed a quit" >&2
    exit 1
fi

smartctl_json nvme1-after "$survivor"
smartctl_json sata0-after "$sata_disk"
raidtop_run smart-fault smart --json
raidtop_run smart-survivor smart --json "$survivor"
raidtop_run snapshot-fault snapshot --json

cat > "$RESULTS/facts.json" <<EOF
{"disks": {"nvme0": "$failed_disk", "nvme1": "$survivor", "sata0": "$sata_disk"},
 "array": "md0", "failed": "$failed_disk", "survivor": "$survivor",
 "critical_warning": $CRITICAL_WARNING}
EOF
