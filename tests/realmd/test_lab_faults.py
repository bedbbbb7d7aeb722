"""The lab's dm faults on the real kernel: bad blocks the audit reports, a slow leg raidtop's tracer measures.

One boot: the guest loads dm-mod and the delay/flakey targets from the VM kernel's own
modules (the cached Debian 6.1 tree, seen over the 9p root), creates a lab raid1 with a
bitmap through ``raidtop lab``, puts one leg behind an ``error`` range, writes into that
range, and saves md's bad-block log, ``raidtop audit --json``, the dm table, and the log
again after a ``repair``; then clears the fault, loads dm-dust (built for this kernel by
tests/realmd/dust_module.py: Debian's config leaves it out), puts the leg behind
``unreadable``, runs a check and then a read that md sends to that leg; then clears it,
puts the same leg behind ``flakey`` under direct I/O through the array, clears it, puts the
error leg behind ``delay``, and runs tests/realmd/guest_latency.py: raidtop's
own tracer (bpftrace in the guest, tracefs mounted here) beside fio on that leg and on
the array; then tears everything down, and runs ``raidtop lab faults-course`` on its own array.
The boot runs once for the module's tests.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from raidtop.presentation.md import SLOW_FACTOR

from .host_python import host_python

GUEST_SCRIPT = r"""
set -uo pipefail
. tests/realmd/guest_lib.sh
export RAIDTOP_LAB_DIR=/run/lab XDG_STATE_HOME=/run/lab-state XDG_DATA_HOME=/run/lab-data
PY={python}
MODS={modules}/kernel/drivers/md
for m in dm-mod dm-delay dm-flakey; do
    insmod "$MODS/$m.ko" 2> "$RESULTS/insmod-$m.err"; echo $? > "$RESULTS/insmod-$m.rc"
done
# The guest's init mounts /sys but not tracefs, where bpftrace finds the block tracepoints.
mount -t tracefs nodev /sys/kernel/tracing 2> "$RESULTS/tracefs.err"
lab() {{ "$PY" -m raidtop lab "$@"; }}
lab create --level 1 --disks 2 --size 64M --bitmap --wait > "$RESULTS/create.log" 2>&1
lab list --json > "$RESULTS/list.json" 2>/dev/null
md=$(ls /sys/block | grep '^md' | head -1)
leg=$(ls /sys/block/$md/md | grep '^dev-loop' | tail -1); leg=${{leg#dev-}}
offset=$(< /sys/block/$md/md/dev-$leg/offset)
echo "$md $leg $offset" > "$RESULTS/geometry.txt"
start=$((offset + 4096))
lab fault "$md" "$leg" --error "$start+64" > "$RESULTS/fault-error.log" 2>&1; echo $? > "$RESULTS/fault-error.rc"
md_wait_idle "$md" 120
dmsetup table > "$RESULTS/dm-table.txt" 2>&1
ls /sys/block/$md/md > "$RESULTS/md-entries-faulted.txt"
dd if=/dev/urandom of=/dev/$md bs=512 seek=4096 count=64 oflag=direct 2> "$RESULTS/dd-write.err"
echo $? > "$RESULTS/dd-write.rc"
dd if=/dev/$md of=/dev/null bs=512 skip=4096 count=64 iflag=direct 2> "$RESULTS/dd-read.err"
echo $? > "$RESULTS/dd-read.rc"
cat /proc/mdstat > "$RESULTS/mdstat-after-write.txt"
for f in /sys/block/$md/md/dev-*/bad_blocks /sys/block/$md/md/dev-*/unacknowledged_bad_blocks \
         /sys/block/$md/md/dev-*/state; do
    echo "$f: $(tr '\n' ' ' < "$f")"; done > "$RESULTS/bad-blocks.txt"
"$PY" -m raidtop audit --json --smart-wait 0 > "$RESULTS/audit.json" 2> "$RESULTS/audit.err"
echo $? > "$RESULTS/audit.rc"
dm=$(ls /sys/block/$md/md | grep '^dev-dm-' | head -1); dm=${{dm#dev-}}
# A repair does not clear what dm-error made md record: md writes no more into a range it logged.
echo repair > /sys/block/$md/md/sync_action
md_wait_idle "$md" 120
echo "$(< /sys/block/$md/md/dev-$dm/bad_blocks) | $(< /sys/block/$md/md/dev-$dm/state)" \
    > "$RESULTS/bad-blocks-after-repair.txt"
lab clear "$md" "$dm" > "$RESULTS/clear.log" 2>&1; echo $? > "$RESULTS/clear.rc"
md_wait_idle "$md" 120
if [[ -n "{dust_ko}" ]]; then
    insmod "{dust_ko}" 2> "$RESULTS/insmod-dm-dust.err"; echo $? > "$RESULTS/insmod-dm-dust.rc"
    # The other leg: md keeps its bad-block log in the member's superblock, so the error leg still has its
    # entry. 4 KiB dust blocks: the range starts on one, 8192 sectors into the data area (a 64 KiB-aligned
    # resync window), two blocks long.
    dleg=$(ls /sys/block/$md/md | grep '^dev-loop' | grep -v "^dev-$leg\$" | head -1); dleg=${{dleg#dev-}}
    offset=$(< /sys/block/$md/md/dev-$dleg/offset)
    ustart=$(( (offset + 8192 + 7) / 8 * 8 ))
    echo "$dleg $offset $ustart" > "$RESULTS/unreadable-geometry.txt"
    lab fault "$md" "$dleg" --unreadable "$ustart+16" > "$RESULTS/fault-unreadable.log" 2>&1
    echo $? > "$RESULTS/fault-unreadable.rc"
    md_wait_idle "$md" 120
    dust=$(ls /sys/block/$md/md | grep '^dev-dm-' | head -1); dust=${{dust#dev-}}
    good=$leg
    dname="raidtop-lab-$md-$dleg"
    dmsetup table "$dname" > "$RESULTS/dust-table.txt" 2>&1
    dust_state() {{  # label: md's errors, bad_blocks, state for the dust leg; mismatch_cnt; dust's count
        echo "$1 errors=$(< /sys/block/$md/md/dev-$dust/errors)" \
            "bad_blocks=[$(tr '\n' ' ' < /sys/block/$md/md/dev-$dust/bad_blocks)]" \
            "state=$(< /sys/block/$md/md/dev-$dust/state)" \
            "mismatch_cnt=$(< /sys/block/$md/md/mismatch_cnt)" \
            "dust=[$(dmsetup message "$dname" 0 countbadblocks 2>&1)]"
    }}
    {{
        dust_state before-check
        echo check > /sys/block/$md/md/sync_action
        md_wait_idle "$md" 120
        dust_state after-check
        # A read the array sends to the dust leg: the other leg write-mostly, so md reads this one.
        for b in $((ustart / 8)) $((ustart / 8 + 1)); do dmsetup message "$dname" 0 addbadblock $b; done
        echo writemostly > /sys/block/$md/md/dev-$good/state
        dust_state before-read
        dd if=/dev/$md of=/dev/null bs=4096 skip=$(( (ustart - offset) / 8 )) count=2 iflag=direct \
            2> "$RESULTS/dust-read.err"
        echo "dd-rc=$?"
        dust_state after-read
    }} > "$RESULTS/dust.txt" 2>&1
    "$PY" -m raidtop snapshot --json --interval 0.5 --smart-wait 0 > "$RESULTS/dust-snapshot.json" \
        2> "$RESULTS/dust-snapshot.err"
    echo "$dust $(< /sys/block/$md/md/dev-$dust/errors)" > "$RESULTS/dust-errors-sysfs.txt"
    echo -writemostly > /sys/block/$md/md/dev-$good/state
    dmesg | grep -i -E 'dust|md/raid1|read error|corrected' | tail -40 > "$RESULTS/dust-dmesg.txt"
    lab clear "$md" "$dust" > "$RESULTS/clear-unreadable.log" 2>&1; echo $? > "$RESULTS/clear-unreadable.rc"
    md_wait_idle "$md" 120
fi
# flakey: up 3 s, down 3 s; direct writes and reads through the array across several down intervals.
fleg=$(ls /sys/block/$md/md | grep '^dev-loop' | grep -v "^dev-$leg\$" | head -1); fleg=${{fleg#dev-}}
lab fault "$md" "$fleg" --flakey 3,3 > "$RESULTS/fault-flakey.log" 2>&1; echo $? > "$RESULTS/fault-flakey.rc"
md_wait_idle "$md" 60
flk=$(ls /sys/block/$md/md | grep '^dev-dm-' | head -1); flk=${{flk#dev-}}
{{
    echo "start errors=$(< /sys/block/$md/md/dev-$flk/errors) state=$(< /sys/block/$md/md/dev-$flk/state)"
    rcs=""
    for i in 1 2 3 4 5 6 7 8 9 10; do
        dd if=/dev/urandom of=/dev/$md bs=4096 count=16 seek=$((i * 64)) oflag=direct 2>/dev/null; rcs+="w$? "
        dd if=/dev/$md of=/dev/null bs=4096 count=16 skip=$((i * 64 + 2048)) iflag=direct 2>/dev/null; rcs+="r$? "
        realmd_sleep 1
    done
    echo "dd $rcs"
    echo "end errors=$(< /sys/block/$md/md/dev-$flk/errors) state=$(< /sys/block/$md/md/dev-$flk/state)" \
        "bad_blocks=[$(tr '\n' ' ' < /sys/block/$md/md/dev-$flk/bad_blocks)]" \
        "degraded=$(< /sys/block/$md/md/degraded)"
}} > "$RESULTS/flakey.txt" 2>&1
cat /proc/mdstat > "$RESULTS/mdstat-flakey.txt"
dmesg | grep -E 'md/raid1|flakey|Disk failure' | tail -30 > "$RESULTS/flakey-dmesg.txt"
lab clear "$md" "$flk" > "$RESULTS/clear-flakey.log" 2>&1; echo $? > "$RESULTS/clear-flakey.rc"
md_wait_idle "$md" 120
lab fault "$md" "$leg" --delay {delay_ms} > "$RESULTS/fault-delay.log" 2>&1; echo $? > "$RESULTS/fault-delay.rc"
md_wait_idle "$md" 120
dmsetup table >> "$RESULTS/dm-table.txt" 2>&1
slow=$(ls /sys/block/$md/md | grep '^dev-dm-' | head -1); slow=${{slow#dev-}}
other=$(ls /sys/block/$md/md | grep '^dev-loop' | head -1); other=${{other#dev-}}
"$PY" -m tests.realmd.guest_latency "$md" "$slow" "$other" {delay_ms} > "$RESULTS/latency.log" 2>&1
lab teardown > "$RESULTS/teardown.log" 2>&1; echo $? > "$RESULTS/teardown.rc"
dmsetup ls > "$RESULTS/dm-after.txt" 2>&1
cat /proc/mdstat > "$RESULTS/mdstat-end.txt"
# The faults course, as a teacher runs it: its own raid1, every step, its own teardown.
steps=slow,flakey,unreadable; [[ -n "{dust_ko}" ]] || steps=slow,flakey
lab faults-course --steps "$steps" --delay {delay_ms} --json > "$RESULTS/course.json" 2> "$RESULTS/course.err"
echo $? > "$RESULTS/course.rc"
dmsetup ls > "$RESULTS/course-dm-after.txt" 2>&1
cat /proc/mdstat > "$RESULTS/course-mdstat-end.txt"
exit 0
"""


DELAY_MS = 150
"""The slow leg's dm-delay. Under TCG the guest's timers run late (measured in this VM at 25 ms: fio's own
p50 33 ms, p99 43-57 ms); at 150 ms the typical read's lateness is under 10 %, so the set delay is a fair
reference for the median; the tail stays the VM's (fio's p99: 112-203 ms), so p99 is judged against fio's."""


@pytest.fixture(scope="module")
def faults_boot(vm_image, tmp_path_factory) -> Path:
    """The one boot of this module; its results folder."""
    from .vm import run_in_guest

    from .dust_module import dust_module
    from .fetch import GuestTree, PrepareError

    modules = vm_image.kernel.parent / "root/lib/modules" / vm_image.kernel_version
    results = tmp_path_factory.mktemp("faults") / "results"
    try:
        dust_ko = str(dust_module(GuestTree(vm_image.kernel_version, vm_image.kernel.parent / "root")))
    except PrepareError as error:
        dust_ko = ""
        results.mkdir(parents=True)
        (results / "dust-unavailable.txt").write_text(str(error))
    script = GUEST_SCRIPT.format(python=host_python(), modules=modules.resolve(), delay_ms=DELAY_MS, dust_ko=dust_ko)
    outcome = run_in_guest(script, timeout=1200, results_dir=results, image=vm_image)
    assert outcome.returncode == 0, outcome.console_log[-3000:]
    return results


def test_error_range_bad_blocks_audit_and_teardown(faults_boot):
    results = faults_boot
    read = lambda name: (results / name).read_text()  # noqa: E731
    for m in ("dm-mod", "dm-delay", "dm-flakey"):
        assert read(f"insmod-{m}.rc").strip() == "0", read(f"insmod-{m}.err")
    assert read("fault-error.rc").strip() == "0", read("fault-error.log")
    md, leg, offset = read("geometry.txt").split()
    # md records exactly the range the error target covers (member sectors: data offset + 4096).
    assert f"/dev-dm-0/bad_blocks: {int(offset) + 4096} 64 " in read("bad-blocks.txt"), read("bad-blocks.txt")
    assert read("dd-write.rc").strip() == "0"  # raid1 wrote the other leg; the array stays whole
    assert f"raidtop-lab-{md}-{leg}" in read("dm-table.txt") and " error" in read("dm-table.txt")
    assert any(e.startswith("dev-dm-") for e in read("md-entries-faulted.txt").split())
    audit = json.loads(read("audit.json"))
    bad = [f for f in audit["findings"] if f["rule"] == "bad-blocks"]
    assert bad and bad[0]["member"].startswith("dm-"), read("bad-blocks.txt")
    # The audit's fix is a replacement: md writes nothing more into a range it logged after a write error
    # (WriteErrorSeen), so a repair leaves the entry, as the next line shows on the real kernel.
    assert "--replace" in bad[0]["fix"] and "repair" not in bad[0]["fix"], bad[0]
    after_repair = read("bad-blocks-after-repair.txt")
    assert after_repair.startswith(f"{int(offset) + 4096} 64") and "write_error" in after_repair, after_repair
    assert read("clear.rc").strip() == "0", read("clear.log")
    assert read("fault-delay.rc").strip() == "0", read("fault-delay.log")
    assert " delay " in read("dm-table.txt")
    assert read("teardown.rc").strip() == "0", read("teardown.log")
    assert "raidtop-lab-" not in read("dm-after.txt")


def labelled(text: str) -> dict[str, dict[str, str]]:
    """``label key=value ... key=[a b]`` lines (dust.txt, flakey.txt), by label."""
    import re

    return {
        label: dict(re.findall(r"(\w+)=(\[[^\]]*\]|\S+)", rest))
        for label, _, rest in (line.partition(" ") for line in text.splitlines())
    }


def dust_count(state: dict[str, str]) -> int:
    """dm-dust's answer to countbadblocks: ``countbadblocks: N badblock(s) found``."""
    return int(state["dust"].strip("[]").split()[1])


def test_unreadable_sectors_are_rewritten_by_md_and_counted_as_the_kernel_counts_them(faults_boot):
    results = faults_boot
    read = lambda name: (results / name).read_text()  # noqa: E731
    if not (results / "dust.txt").exists():
        reason = read("dust-unavailable.txt") if (results / "dust-unavailable.txt").exists() else "not run"
        if os.environ.get("CI") == "true":
            pytest.fail(f"dm-dust.ko could not be built for the guest: {reason}", pytrace=False)
        pytest.skip(f"dm-dust.ko could not be built for the guest: {reason}")
    assert read("insmod-dm-dust.rc").strip() == "0", read("insmod-dm-dust.err")
    assert read("fault-unreadable.rc").strip() == "0", read("fault-unreadable.log")
    assert " dust " in read("dust-table.txt") and read("dust-table.txt").split()[-1] == "4096", read("dust-table.txt")
    md = read("geometry.txt").split()[0]
    states = labelled(read("dust.txt"))
    before, checked = states["before-check"], states["after-check"]
    # Armed: two 4 KiB blocks unreadable; the bitmap re-add wrote none of them; md has logged nothing.
    assert dust_count(before) == 2 and before["bad_blocks"] == "[]", read("dust.txt")
    # A check reads both legs; the dust leg's read fails, and raid1's check (process_checks) copies the good
    # leg's 64 KiB window over it: dust drops both blocks, md logs no bad block, the leg stays in_sync. That
    # path counts the window as a mismatch (128 sectors), not as a corrected read error: errors stays put.
    assert dust_count(checked) == 0, read("dust.txt")
    assert checked["bad_blocks"] == "[]" and checked["state"] == "in_sync", read("dust.txt")
    assert int(checked["mismatch_cnt"]) == 128, read("dust.txt")
    assert checked["errors"] == before["errors"], read("dust.txt")
    # A read the array sends to the dust leg (its sibling write-mostly): md reads the good copy, rewrites the
    # sector range (fix_read_error, a page at a time), reads it back, and counts the corrected sectors.
    armed, fixed = states["before-read"], states["after-read"]
    assert "dd-rc=0" in read("dust.txt"), read("dust.txt") + read("dust-read.err")
    assert dust_count(armed) == 2 and dust_count(fixed) == 0, read("dust.txt")
    assert int(fixed["errors"]) - int(armed["errors"]) == 16, read("dust.txt")
    assert fixed["bad_blocks"] == "[]" and fixed["state"].startswith("in_sync"), read("dust.txt")
    assert "faulty" not in fixed["state"], read("dust.txt")
    # raidtop's snapshot shows the member's corrected read errors as the kernel's file says.
    member, errors = read("dust-errors-sysfs.txt").split()
    snapshot = json.loads(read("dust-snapshot.json"))
    shown = [m["errors"] for a in snapshot["arrays"] for m in a["members"] if m["name"] == member]
    assert shown == [int(errors)], (shown, errors, read("dust-snapshot.err"))
    audit = {(f["rule"], f["member"]): f for f in snapshot["audit"]}
    assert audit[("read-errors", member)]["evidence"] == [f"/sys/block/{md}/md/dev-{member}/errors: {errors}"]
    # The error leg, cleared and back on its own loop, still carries its bad-block range: md keeps the log in
    # the member's superblock, so taking the fault away does not clear it either.
    _, leg, offset = read("geometry.txt").split()
    assert audit[("bad-blocks", leg)]["evidence"] == [
        f"/sys/block/{md}/md/dev-{leg}/bad_blocks: {int(offset) + 4096} 64"
    ]
    assert read("clear-unreadable.rc").strip() == "0", read("clear-unreadable.log")
    # md keeps the count in the member's v1 superblock: the same loop, back behind flakey, starts with it.
    assert read("flakey.txt").startswith(f"start errors={fixed['errors']} "), read("flakey.txt")


def test_a_flakey_leg_is_failed_by_md_and_the_array_keeps_serving(faults_boot):
    results = faults_boot
    read = lambda name: (results / name).read_text()  # noqa: E731
    assert read("fault-flakey.rc").strip() == "0", read("fault-flakey.log")
    lines = labelled(read("flakey.txt"))
    start, end = lines["start"], lines["end"]
    # Every direct write and read through the array succeeded (the other leg served them) ...
    assert set(read("flakey.txt").splitlines()[1].split()[1:]) == {"w0", "r0"}, read("flakey.txt")
    # ... while md failed the flakey leg in a down interval (a read it could not rewrite, or its superblock
    # write): faulty, degraded, no read error counted as corrected (errors is what the leg carried in).
    # Whether a failed data write was logged in bad_blocks first depends on what the down interval hit
    # (measured both: [] and "19968 8" with state faulty,write_error), so it is not asserted.
    assert "faulty" in end["state"].split(",") and end["degraded"] == "1", read("flakey.txt")
    assert end["errors"] == start["errors"], read("flakey.txt") + read("flakey-dmesg.txt")
    assert "Disk failure on dm-" in read("flakey-dmesg.txt")
    assert read("clear-flakey.rc").strip() == "0", read("clear-flakey.log")


def test_raidtops_tracer_measures_the_delayed_leg_as_fio_does_and_marks_it_only_under_md_io(faults_boot):
    results = faults_boot
    latency = json.loads((results / "latency.json").read_text())
    assert "error" not in latency, latency.get("error")
    # bpftrace runs in the guest's 6.1 kernel (BTF, tracefs) and says when its probes are on.
    assert latency["unavailable"] is None and latency["attached"], latency
    assert latency["ended"] == ""  # stopped on request
    ours, theirs, dm = latency["raidtop_leg"], latency["fio_leg"], latency["dm"]
    # Every read fio completed on the leg is in raidtop's histogram (dm is bio-based: traced by its bios),
    # and raidtop's p99 is fio's own completion-latency p99 within 20 %.
    assert ours["requests"] >= theirs["ios"] > 20, (ours, theirs)
    # raidtop also counts what md itself wrote to the leg meanwhile (its superblock or bitmap, a write to
    # every member: the fast leg's requests in the same phase say how many). Behind dm-delay such a write
    # waits longer than any read, and with ~64 reads the p99 is the slowest request: then it is md's.
    md_own = ours["requests"] - theirs["ios"]
    fast = latency["other"]
    assert md_own <= sum(j["requests"].get(fast, 0) for j in latency["judged"] if j["phase"] == "leg"), latency
    if md_own == 0:
        assert abs(ours["p99_ms"] - theirs["p99_ms"]) <= 0.2 * theirs["p99_ms"], (ours, theirs)
    # Against the delay set: no read is faster, and the typical one waits it (within 20 %). The tail is the
    # VM's: TCG's timers fire late on a loaded host, and fio's own p99 was 35 % over 150 ms in one run.
    assert ours["p99_ms"] >= DELAY_MS, (ours, theirs)
    assert abs(ours["p50_ms"] - DELAY_MS) <= 0.2 * DELAY_MS, (ours, theirs)
    judged = latency["judged"]
    # Reading the leg alone (md idle): the sibling has no distribution to compare, so no mark.
    assert all(j["slow"] == [] for j in judged if j["phase"] == "leg"), judged
    # Writing to the array: every write goes to both legs, and the delayed one is marked by its p99, alone.
    under_md = [j for j in judged if j["phase"] == "array" and j["basis"] == "p99"]
    assert len(under_md) >= 3, judged
    assert all(j["slow"] in ([dm], []) for j in under_md), judged  # the fast leg is never marked
    # On a loaded host TCG delays the fast leg too: one interval in eleven (CI, 2026-11-27) had its p99
    # within 3x of the delayed leg's, and the rule rightly held the mark back. Most intervals mark it, and
    # an unmarked one is one where the fast leg's own tail says why.
    marked = [j for j in under_md if j["slow"] == [dm]]
    assert len(marked) >= max(3, 0.8 * len(under_md)), judged
    held_back = [j for j in under_md if not j["slow"]]
    assert all(SLOW_FACTOR * (j["p99_ms"][fast] or 0.0) >= j["p99_ms"][dm] for j in held_back), judged


def test_the_faults_course_names_the_delayed_leg_sees_md_fail_the_flakey_one_and_a_check_repair_the_range(
    faults_boot,
):
    results = faults_boot
    read = lambda name: (results / name).read_text()  # noqa: E731
    assert read("course.rc").strip() == "0", read("course.err")[-4000:]
    course = json.loads(read("course.json"))
    assert course["kind"] == "faults-course" and not course["stopped"] and course["id"], course
    rows = {row["step"]: row for row in course["rows"]}
    # 1: the leg behind dm-delay, and only it, is marked slow by the member grid's rule, on the distributions
    # raidtop's tracer measured (bpftrace runs in this guest: the latency test above shows it).
    slow = rows["1"]
    assert slow["member"].startswith("dm-") and slow["slow"] == slow["member"], slow
    assert slow["basis"] == "p99" and "bpftrace" in slow["shown"], slow
    # 2: md failed the flakey leg; a failed write is no corrected read error, so errors did not move.
    flakey = rows["2"]
    assert "faulty" in flakey["state"].split(","), flakey
    assert flakey["errors_before"] is not None and flakey["errors_after"] == flakey["errors_before"], flakey
    if "unreadable" in course["params"]["steps"]:
        # 3a: the check found the unreadable window (a mismatch) and rewrote it: dust's list is empty.
        check, reread = rows["3a"], rows["3b"]
        assert check["mismatch_cnt"] and check["mismatch_cnt"] > 0 and check["unreadable_left"] == 0, check
        # 3b: the direct read md sent to that leg was repaired and counted: 8 per 4 KiB page, two pages.
        assert reread["errors_after"] - reread["errors_before"] == 16 and reread["unreadable_left"] == 0, reread
        assert "faulty" not in reread["state"], reread
    elif os.environ.get("CI") == "true":
        pytest.fail("the course ran without its unreadable step: dm-dust.ko could not be built", pytrace=False)
    # Torn down: no dm device and no array of the course's left.
    assert "raidtop-lab-" not in read("course-dm-after.txt"), read("course-dm-after.txt")
    assert "active" not in read("course-mdstat-end.txt"), read("course-mdstat-end.txt")


BITMAP_SCRIPT = r"""
set -uo pipefail
. tests/realmd/guest_lib.sh
PY={python}
mkdir -p /run/big
disks=()
for i in 0 1 2 3; do truncate -s 101G /run/big/d$i.img; disks+=("$(losetup --find --show /run/big/d$i.img)"); done
# --assume-clean: nothing to resync on sparse images; the audit looks at the bitmap, not the data.
md_create /dev/md10 1 "${{disks[0]}}" "${{disks[1]}}" -- --bitmap=none --assume-clean > "$RESULTS/md10.log" 2>&1
md_create /dev/md11 1 "${{disks[2]}}" "${{disks[3]}}" -- --bitmap=internal --assume-clean > "$RESULTS/md11.log" 2>&1
cat /sys/block/md10/md/bitmap/location /sys/block/md11/md/bitmap/location > "$RESULTS/locations.txt" 2>&1
"$PY" -m raidtop audit --json --smart-wait 0 > "$RESULTS/audit.json" 2> "$RESULTS/audit.err"
mdadm --stop /dev/md10 /dev/md11 > /dev/null 2>&1
exit 0
"""


def test_an_array_without_a_bitmap_is_a_finding_and_with_one_it_is_not(vm_image, tmp_path):
    from .vm import run_in_guest

    results = tmp_path / "results"
    outcome = run_in_guest(BITMAP_SCRIPT.format(python=host_python()), timeout=300, results_dir=results, image=vm_image)
    assert outcome.returncode == 0, outcome.console_log[-3000:]
    assert (results / "locations.txt").read_text().split() == ["none", "+8"]
    findings = json.loads((results / "audit.json").read_text())["findings"]
    assert [f["array"] for f in findings if f["rule"] == "no-bitmap"] == ["md10"]
