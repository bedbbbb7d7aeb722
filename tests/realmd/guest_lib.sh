# Bash helpers for scripts that run_in_guest runs inside the VM.
# Source it from a guest script (cwd is the project):  . tests/realmd/guest_lib.sh

# make_loop_disks COUNT SIZE_MIB
#   Attach COUNT sparse files in tmpfs as loop devices; prints one device a
#   line. The files fill up as md syncs onto them, so COUNT*SIZE must fit in
#   the guest's RAM (1 GiB: up to 5 x 64 MiB).
make_loop_disks() {
    local count=$1 size_mib=$2 i image
    mkdir -p /tmp/realmd-disks
    for ((i = 0; i < count; i++)); do
        image=$(mktemp /tmp/realmd-disks/disk-XXXXXX.img)
        truncate -s "${size_mib}M" "$image"
        losetup --find --show "$image"
    done
}

# md_create MD_DEVICE LEVEL DEVICE... [-- EXTRA_MDADM_ARGS...]
#   mdadm --create without questions: --run, and "yes" on stdin in case it
#   still asks (e.g. about an old superblock on a reused disk).
md_create() {
    local md=$1 level=$2; shift 2
    local devices=() extra=()
    while (($#)) && [[ $1 != -- ]]; do devices+=("$1"); shift; done
    (($#)) && shift
    extra=("$@")
    mdadm --create "$md" --run --level="$level" --raid-devices="${#devices[@]}" \
        "${extra[@]}" "${devices[@]}" < <(yes)
}

# realmd_sleep SECONDS
#   sleep without starting a process: each exec of a host binary costs
#   ~0.1 s in the guest (TCG, libraries over 9p), which adds up in polls.
realmd_sleep() {
    [[ -n ${_realmd_sleep_fd:-} ]] || exec {_realmd_sleep_fd}<> <(:)
    read -r -t "$1" -u "$_realmd_sleep_fd" || :
}

# md_wait_idle MD_NAME [TIMEOUT_SECONDS]
#   Wait until md has no sync running or pending (resync, recovery, check,
#   reshape). MD_NAME is e.g. md0. Fails after TIMEOUT_SECONDS (default 120).
md_wait_idle() {
    local md=$1 timeout=${2:-120} polls=0
    # sync_action shows a needed-but-not-started sync too, so it cannot read
    # "idle" in the gap between mdadm --create/--add and the sync starting.
    until [[ $(< "/sys/block/$md/md/sync_action") == idle \
             && $(< "/sys/block/$md/md/sync_completed") == none ]]; do
        realmd_sleep 0.1
        if ((++polls > timeout * 10)); then
            echo "md_wait_idle: $md still busy after ${timeout}s" >&2
            echo "$(< /proc/mdstat)" >&2
            return 1
        fi
    done
}

# md_save_attributes MD_NAME DEST_DIR
#   Copy every readable regular file of /sys/block/MD_NAME/md/ into DEST_DIR
#   (bash builtins only: ~40 files). Write-only attributes fail to open even
#   for root and are skipped.
md_save_attributes() {
    local md=$1 dest=$2 attribute lines
    mkdir -p "$dest"
    for attribute in "/sys/block/$md/md/"*; do
        [[ -f $attribute && ! -L $attribute ]] || continue
        # mapfile, not $(< file): a failed open inside $(< ) ends a `set -e`
        # script even when guarded with ||.
        mapfile -t lines 2>/dev/null < "$attribute" || continue
        printf '%s\n' "${lines[@]}" > "$dest/${attribute##*/}"
    done
}

# results_tar NAME SOURCE_DIR
#   Pack SOURCE_DIR (on tmpfs) into $RESULTS/NAME.tar in one write: many
#   small files straight onto the 9p share are slow.
results_tar() {
    tar -C "$2" -cf "$RESULTS/$1.tar" .
}

# disk_by_serial SERIAL
#   Print the whole-disk name (nvme0n1, sda) whose serial is SERIAL, for the
#   disks run_in_guest(disks=...) attached (guest_disks.py). NVMe keeps the
#   serial in the controller's sysfs; for SATA, sysfs has none without udev,
#   so smartctl's identify answer is asked.
disk_by_serial() {
    local serial=$1 block name line info
    for block in /sys/block/nvme*n*; do
        [[ -e $block ]] || continue
        mapfile -t line < "$block/device/serial"
        name=${block##*/}
        [[ ${line[0]%% *} == "$serial" ]] && { echo "$name"; return 0; }
    done
    for block in /sys/block/sd*; do
        [[ -e $block ]] || continue
        name=${block##*/}
        # Not a pipe into grep -q: it may close early, and smartctl's SIGPIPE
        # then fails the pipeline under pipefail.
        info=$(smartctl -i "/dev/$name") || :
        if grep -qx "Serial Number: *$serial" <<< "$info"; then
            echo "$name"; return 0
        fi
    done
    echo "disk_by_serial: no disk with serial $serial" >&2
    return 1
}

# qmp_request NAME JSON [TIMEOUT_SECONDS]
#   Ask the host to run one QMP command on this VM's qemu (run_in_guest(...,
#   qmp=True); only qom-get, qom-set and query-*). Prints qemu's reply; fails
#   if it holds an error or none comes within TIMEOUT_SECONDS (default 30).
#   NAME must be new per call (it names the request and reply files).
qmp_request() {
    local name=$1 command=$2 timeout=${3:-30} polls=0 reply
    mkdir -p "$RESULTS/qmp"
    printf '%s\n' "$command" > "$RESULTS/qmp/.$name.tmp"
    mv "$RESULTS/qmp/.$name.tmp" "$RESULTS/qmp/$name.json"
    until [[ -e $RESULTS/qmp/$name.reply ]]; do
        realmd_sleep 0.1
        if ((++polls > timeout * 10)); then
            echo "qmp_request: no reply to $name after ${timeout}s" >&2
            return 1
        fi
    done
    reply=$(< "$RESULTS/qmp/$name.reply")
    printf '%s\n' "$reply"
    [[ $reply != *'"error"'* ]]
}
