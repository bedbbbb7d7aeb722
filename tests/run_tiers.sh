#!/usr/bin/env bash
# The whole suite in two processes side by side: the VM tier (tests/realmd) spends its time in
# qemu's one TCG vCPU and waiting on the guest, the rest mostly in one Python process, so on a
# 2-core machine running them together takes about the longer of the two instead of their sum.
# The VM tier's report is printed after the rest's; the exit status fails if either failed.
set -u
cd "$(dirname "$0")/.."
python=${PYTHON:-.venv/bin/python}
vm_log=$(mktemp -t raidtop-realmd.XXXXXX)
"$python" -m pytest -q -rs -p no:cacheprovider --durations=10 tests/realmd >"$vm_log" 2>&1 &
vm=$!
trap 'kill -TERM "$vm" 2>/dev/null; wait "$vm" 2>/dev/null; rm -f "$vm_log"' EXIT
trap 'exit 130' INT TERM HUP
"$python" -m pytest -q -rs --durations=15 -m "not realmd" "$@"
rest=$?
wait "$vm"
vm_rc=$?
echo
echo "==================== VM tier (tests/realmd), run beside the rest ===================="
cat "$vm_log"
if ((rest != 0 || vm_rc != 0)); then
    echo "make test: failed (rest exit $rest, VM tier exit $vm_rc)"
    exit 1
fi
