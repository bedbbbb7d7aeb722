"""Events mdadm --monitor would send, derived from successive readings.

The sequences are written in the exact formats md_seq_show() and the md
sysfs attributes use (compare tests/data/md/mdstat/libstorage-ng__proc-mdstat-cc_parse1,
a raid1 resyncing with a bitmap): a raid1 resyncs, a member fails, a new
disk is added and recovered onto, and the array is clean again.
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

from raidtop.collect.md.read import read_md
from raidtop.collect.md.events import BELL_EVENTS, AlertState, derive_events, mismatch_verdict
from raidtop.output.md_json import event_to_json
from raidtop.model.md import MdArray, MdEvent, MdMember, MdSync

HEAD = "Personalities : [raid1] \n"
TAIL = "\nunused devices: <none>\n"
BITMAP = "      bitmap: 1/1 pages [4KB], 65536KB chunk\n"

MDSTAT_SEQUENCE = [
    # 0: resync after creation
    HEAD + "md0 : active raid1 sdb1[1] sda1[0]\n"
    "      8387520 blocks super 1.2 [2/2] [UU]\n"
    "      [====>................]  resync = 23.4% (1963200/8387520) finish=4.6min speed=23178K/sec\n" + BITMAP + TAIL,
    # 1: sdb1 fails; md aborts the resync
    HEAD + "md0 : active raid1 sdb1[1](F) sda1[0]\n      8387520 blocks super 1.2 [2/1] [U_]\n" + BITMAP + TAIL,
    # 2: sdb1 removed, sdc1 added: recovery onto it
    HEAD + "md0 : active raid1 sdc1[2] sda1[0]\n"
    "      8387520 blocks super 1.2 [2/1] [U_]\n"
    "      [=>...................]  recovery =  5.0% (419376/8387520) finish=5.7min speed=23178K/sec\n" + BITMAP + TAIL,
    # 3: further on
    HEAD + "md0 : active raid1 sdc1[2] sda1[0]\n"
    "      8387520 blocks super 1.2 [2/1] [U_]\n"
    "      [=========>...........]  recovery = 45.1% (3782771/8387520) finish=3.3min speed=23178K/sec\n"
    + BITMAP
    + TAIL,
    # 4: clean
    HEAD + "md0 : active raid1 sdc1[2] sda1[0]\n      8387520 blocks super 1.2 [2/2] [UU]\n" + BITMAP + TAIL,
]


def write_root(path: Path, files: dict[str, str], links: dict[str, str] | None = None) -> Path:
    for rel, content in files.items():
        target = path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content if content.endswith("\n") else content + "\n")
    for rel, dest in (links or {}).items():
        os.symlink(dest, path / rel)
    return path


def sysfs_step(state, degraded, action, completed, speed, members):
    """sys/block/md0/md files for one step; members: name -> (state, slot)."""
    base = "sys/block/md0/md"
    files = {
        f"{base}/level": "raid1",
        f"{base}/array_state": state,
        f"{base}/raid_disks": "2",
        f"{base}/degraded": str(degraded),
        f"{base}/sync_action": action,
        f"{base}/sync_completed": completed,
        f"{base}/sync_speed": speed,
        f"{base}/mismatch_cnt": "0",
        f"{base}/metadata_version": "1.2",
        f"{base}/bitmap/location": "+8",
        "sys/block/md0/size": "16775040",
    }
    links = {}
    for name, (member_state, slot) in members.items():
        files[f"{base}/dev-{name}/state"] = member_state
        files[f"{base}/dev-{name}/slot"] = slot
        files[f"{base}/dev-{name}/errors"] = "0"
        if slot != "none":
            links[f"{base}/rd{slot}"] = f"dev-{name}"
    return files, links


SYSFS_SEQUENCE = [
    sysfs_step(
        "active", 0, "resync", "3926400 / 16775040", "23178", {"sda1": ("in_sync", "0"), "sdb1": ("in_sync", "1")}
    ),
    sysfs_step("clean", 1, "idle", "none", "none", {"sda1": ("in_sync", "0"), "sdb1": ("faulty", "none")}),
    sysfs_step(
        "active", 1, "recover", "838752 / 16775040", "23178", {"sda1": ("in_sync", "0"), "sdc1": ("spare", "1")}
    ),
    sysfs_step(
        "active", 1, "recover", "7565542 / 16775040", "23178", {"sda1": ("in_sync", "0"), "sdc1": ("spare", "1")}
    ),
    sysfs_step("clean", 0, "idle", "none", "none", {"sda1": ("in_sync", "0"), "sdc1": ("in_sync", "1")}),
]


def run_sequence(roots: list[Path]):
    """Read each root in turn as the sampler would; collect events and alert changes."""
    prev = None
    alerts = AlertState()
    events: list[MdEvent] = []
    alert_log = []
    for step, root in enumerate(roots):
        arrays = list(read_md(root).arrays)
        events += derive_events(prev, arrays, time=float(step))
        alerts, raised, cleared = alerts.advance(arrays)
        alert_log.append((raised, cleared))
        prev = arrays
    return events, alerts, alert_log


def check_failure_story(events, alerts, alert_log):
    counts = Counter(e.event for e in events)
    for name in ("Fail", "DegradedArray", "RebuildStarted", "RebuildFinished"):
        assert counts[name] == 1, (name, [event_to_json(e) for e in events])
    fail = next(e for e in events if e.event == "Fail")
    assert (fail.array, fail.member, fail.time) == ("md0", "sdb1", 1.0)
    degraded = next(e for e in events if e.event == "DegradedArray")
    assert degraded.time == 1.0
    assert next(e for e in events if e.event == "RebuildStarted").time == 2.0
    assert next(e for e in events if e.event == "RebuildFinished").time == 4.0
    assert [e.event for e in events if e.time == 3.0] == ["Rebuild40"]
    assert alert_log[1] == (["md0"], [])
    assert alert_log[4] == ([], ["md0"])
    assert "md0" not in alerts.degraded


def test_resync_fail_recovery_clean_from_mdstat(tmp_path):
    roots = [write_root(tmp_path / str(i), {"proc/mdstat": text}) for i, text in enumerate(MDSTAT_SEQUENCE)]
    events, alerts, alert_log = run_sequence(roots)
    check_failure_story(events, alerts, alert_log)
    # mdstat cannot say sdc1 was the spare being rebuilt, so no SpareActive.
    assert "SpareActive" not in {e.event for e in events}


def test_resync_fail_recovery_clean_from_sysfs(tmp_path):
    roots = []
    for i, (files, links) in enumerate(SYSFS_SEQUENCE):
        files = dict(files, **{"proc/mdstat": MDSTAT_SEQUENCE[i]})
        roots.append(write_root(tmp_path / str(i), files, links))
    events, alerts, alert_log = run_sequence(roots)
    check_failure_story(events, alerts, alert_log)
    assert [(e.event, e.member, e.time) for e in events if e.event == "SpareActive"] == [("SpareActive", "sdc1", 4.0)]
    assert {"Fail", "DegradedArray"} <= BELL_EVENTS


# ---------------------------------------------------------------- unit cases on models


def raid1(members, sync=None, degraded=0, health="ok", mismatch=None, name="md0", level="raid1"):
    status = "".join("_" if i < degraded else "U" for i in range(2))[::-1]
    return MdArray(
        name=name,
        level=level,
        state="clean",
        health=health,
        raid_disks=2,
        degraded=degraded,
        members=tuple(members),
        sync=sync,
        status=status,
        mismatch_cnt=mismatch,
    )


A = MdMember("sda", 0, ("in_sync",))
B = MdMember("sdb", 1, ("in_sync",))
SPARE = MdMember("sdc", None, ("spare",))


def names(events):
    return [(e.event, e.member) for e in events]


def test_first_reading_is_a_baseline():
    running = raid1([A, B], MdSync("resync", 50.0, 1, 2))
    assert derive_events(None, [running], 0.0) == []
    degraded = raid1([A], degraded=1, health="degraded", name="md1")
    assert names(derive_events(None, [running, degraded], 0.0)) == [("DegradedArray", None)]


def test_new_and_disappeared_arrays():
    old = [raid1([A, B], name="md1")]
    new = [raid1([A], degraded=1, health="degraded", name="md2")]
    events = derive_events(old, new, 5.0)
    assert [(e.array, e.event) for e in events] == [
        ("md1", "DeviceDisappeared"),
        ("md2", "NewArray"),
        ("md2", "DegradedArray"),
    ]


def test_fail_spare_and_spare_active():
    rebuilding = MdMember("sdc", 1, ("spare",))
    before = raid1([A, rebuilding], MdSync("recover", 10.0, 10, 100), degraded=1, health="degraded")
    failed = raid1([A, MdMember("sdc", None, ("faulty",))], degraded=1, health="degraded")
    assert names(derive_events([before], [failed], 1.0)) == [("FailSpare", "sdc")]  # interrupted: no RebuildFinished
    done = raid1([A, MdMember("sdc", 1, ("in_sync",))])
    assert names(derive_events([before], [done], 1.0)) == [("RebuildFinished", None), ("SpareActive", "sdc")]


def test_member_vanishing_while_in_sync_is_a_fail():
    assert names(derive_events([raid1([A, B])], [raid1([A], degraded=1, health="degraded")], 1.0)) == [
        ("Fail", "sdb"),
        ("DegradedArray", None),
    ]


def test_spare_removed_is_spares_missing():
    assert names(derive_events([raid1([A, B, SPARE])], [raid1([A, B])], 1.0)) == [("SparesMissing", "sdc")]


def test_rebuild_milestones_and_a_big_jump():
    def at(percent):
        return raid1([A, B], MdSync("resync", percent, int(percent * 10), 1000))

    steps = [at(p) for p in (1.0, 19.9, 20.0, 39.0, 85.0, 99.9)]
    events = [e for i in range(1, len(steps)) for e in derive_events([steps[i - 1]], [steps[i]], float(i))]
    assert names(events) == [("Rebuild20", None), ("Rebuild80", None)]


def test_check_start_and_finish_with_mismatches():
    idle = raid1([A, B])
    checking = raid1([A, B], MdSync("check", 0.5, 5, 1000))
    checked = raid1([A, B], mismatch=128)
    assert names(derive_events([idle], [checking], 1.0)) == [("CheckStarted", None)]
    finished = derive_events([checking], [checked], 2.0)
    assert names(finished) == [("CheckFinished", None)]
    assert finished[0].detail == "mismatches found: 128 (on raid level raid1)"


def test_restarted_or_changed_sync():
    first = raid1([A, B], MdSync("resync", 60.0, 600, 1000))
    restarted = raid1([A, B], MdSync("resync", 1.0, 10, 1000))
    assert names(derive_events([first], [restarted], 1.0)) == [("RebuildStarted", None)]
    repair = raid1([A, B], MdSync("repair", 1.0, 10, 1000))
    assert names(derive_events([first], [repair], 1.0)) == [("RebuildFinished", None), ("CheckStarted", None)]


def test_delayed_becoming_active_starts_a_rebuild():
    waiting = raid1([A, B], MdSync("delayed"))
    running = raid1([A, B], MdSync("resync", 0.1, 1, 1000))
    assert names(derive_events([waiting], [running], 1.0)) == [("RebuildStarted", None)]
    assert derive_events([running], [waiting], 2.0) == []


def test_unknown_roles_raise_nothing_but_faults():
    unknown = [MdMember("sda", None, ()), MdMember("sdb", None, ())]
    before = raid1(unknown, degraded=1, health="degraded")
    after_ok = raid1([MdMember("sda", None, ("in_sync",)), MdMember("sdb", None, ("in_sync",))])
    assert derive_events([before], [after_ok], 1.0) == []
    after_fault = raid1([MdMember("sda", None, ()), MdMember("sdb", None, ("faulty",))], degraded=1, health="degraded")
    assert names(derive_events([before], [after_fault], 1.0)) == [("Fail", "sdb")]


def test_event_json():
    assert event_to_json(MdEvent(12.5, "md0", "Fail", "sdb1", "ignored")) == {
        "time": 12.5,
        "array": "md0",
        "event": "Fail",
        "member": "sdb1",
        "expected": False,
    }


def test_mismatch_verdicts():
    raid1_small = mismatch_verdict("raid1", 256, size_kib=8387520, last_sync_action="check")
    assert raid1_small.severity == "info" and "normal" in raid1_small.text and "swap" in raid1_small.text
    raid1_large = mismatch_verdict("raid1", 2_000_000, size_kib=8387520, last_sync_action="check")
    assert raid1_large.severity == "warning"
    raid5 = mismatch_verdict("raid5", 8, last_sync_action="check")
    assert raid5.severity == "warning" and "parity" in raid5.text
    assert mismatch_verdict("raid10", 0).severity == "ok"
    assert mismatch_verdict("raid0", 0) is None
    assert mismatch_verdict("raid1", None) is None
    assert "a check gives" in mismatch_verdict("raid1", 8, last_sync_action="resync").text
