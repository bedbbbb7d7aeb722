"""Arrays whole by design (QNAP's [24/4]) are not alarms; real losses still are, at once."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from raidtop.collect.md.read import read_md
from raidtop.collect.md.events import AlertState, derive_events
from raidtop.collect.md.sparse import SparseMemory, judge_sparse, mark_sparse
from raidtop.collect.md.mdstat import parse_mdstat
from raidtop.collect.md.track import MdTracker
from raidtop.config import md_expected_members
from raidtop.model.snapshot import RawSample
from raidtop.model.md import MdReading

ROOTS = Path(__file__).parents[2] / "data" / "md" / "roots"


def arrays_of(root: str):
    return {a.name: a for a in read_md(ROOTS / root).arrays}


def test_qnap_system_arrays_are_whole_by_design():
    arrays = arrays_of("qnap-sparse")
    for name in ("md9", "md13"):
        assert arrays[name].health == "ok" and arrays[name].sparse_by_design
        assert arrays[name].counts_string == "[24/4]"  # md's own counts stay as md says them
    assert not arrays["md1"].sparse_by_design and not arrays["md256"].sparse_by_design
    # No DegradedArray at start-up and no standing alert.
    assert list(derive_events(None, list(arrays.values()), 0.0)) == []
    state, raised, _ = AlertState().advance(list(arrays.values()))
    assert raised == [] and not state.degraded


def test_a_populated_member_failing_alerts_at_once():
    before = list(arrays_of("qnap-sparse").values())
    after = list(arrays_of("qnap-sparse-member-failed").values())
    md9 = next(a for a in after if a.name == "md9")
    assert md9.health == "degraded" and not md9.sparse_by_design
    events = [(e.array, e.event, e.member) for e in derive_events(before, after, 1.0)]
    assert events == [("md9", "Fail", "sdc1"), ("md9", "DegradedArray", None)]
    _, raised, _ = AlertState().advance(after)
    assert raised == ["md9"]


def test_a_member_leaving_a_sparse_array_alerts_through_raidtops_memory(tmp_path):
    root = tmp_path / "root"
    shutil.copytree(ROOTS / "qnap-sparse", root, symlinks=True)
    tracker = MdTracker()

    def sample(t: float):
        raw = RawSample(time=t, uptime_s=t, md=read_md(root))
        return tracker.advance(None, raw, None)

    arrays, events, alerts, _ = sample(0.0)
    assert not alerts and not events
    # sdd1 leaves md13 (failed and removed between two samples): [24/3] [UUU___...]
    mdstat = (root / "proc/mdstat").read_text()
    (root / "proc/mdstat").write_text(
        mdstat.replace(
            "md13 : active raid1 sda4[26] sdd4[27] sdb4[24] sdc4[25]\n      458880 blocks super 1.0 [24/4] [UUUU",
            "md13 : active raid1 sda4[26] sdb4[24] sdc4[25]\n      458880 blocks super 1.0 [24/3] [UUU_",
        )
    )
    shutil.rmtree(root / "sys/block/md13/md/dev-sdd4")
    (root / "sys/block/md13/md/rd3").unlink()
    (root / "sys/block/md13/md/degraded").write_text("21\n")
    arrays, events, alerts, _ = sample(1.0)
    md13 = next(a for a in arrays if a.name == "md13")
    assert md13.health == "degraded" and not md13.sparse_by_design
    assert ("md13", "Fail", "sdd4") in [(e.array, e.event, e.member) for e in events]
    assert ("md13", "DegradedArray") in [(e.array, e.event) for e in events]
    assert alerts == frozenset({"md13"})
    assert md13.degraded_since == 1.0 and md13.degraded_since_basis == "observed"


@pytest.mark.parametrize(
    "line, counts",
    [
        ("md0 : active raid1 sdb1[1]\n      1048512 blocks super 1.2 [2/1] [_U]\n", "[2/1]"),
        ("md0 : active raid1 sda1[0] sdb1[1]\n      1048512 blocks super 1.2 [3/2] [UU_]\n", "[3/2]"),
        (
            "md0 : active raid5 sda1[0] sdb1[1]\n"
            "      2097024 blocks super 1.2 level 5, 512k chunk, algorithm 2 [3/2] [UU_]\n",
            "[3/2]",
        ),
        ("md0 : active raid1 sda1[0] sdb1[1]\n      1048512 blocks super 1.2 [4/2] [UU__]\n", "[4/2]"),
    ],
)
def test_real_losses_at_start_up_stay_alarms(line, counts):
    (array,), _ = parse_mdstat("Personalities : [raid1] [raid5]\n" + line + "unused devices: <none>\n")
    tracker = MdTracker()
    arrays, events, alerts, _ = tracker.advance(None, RawSample(time=5.0, uptime_s=5.0, md=_reading(array)), None)
    assert arrays[0].counts_string == counts and arrays[0].health == "degraded" and not arrays[0].sparse_by_design
    assert [(e.array, e.event) for e in events] == [("md0", "DegradedArray")]
    assert alerts == frozenset({"md0"})
    assert arrays[0].degraded_since == 5.0 and arrays[0].degraded_since_basis == "raidtop-start"


def _reading(array):
    return MdReading((mark_sparse(array),), None, True)


def test_the_rule_needs_a_filled_prefix_and_in_sync_members():
    arrays = arrays_of("qnap-sparse")
    md9 = arrays["md9"]
    assert judge_sparse(replace(md9, health="degraded"))
    assert not judge_sparse(replace(md9, status="U_UU" + "_" * 20))  # a hole where a disk was
    assert not judge_sparse(replace(md9, level="raid10"))
    spare = replace(md9.members[0], roles=("spare",))
    assert not judge_sparse(replace(md9, members=(spare,) + md9.members[1:]))


def test_config_states_what_the_rule_cannot_tell(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('[md.expected_members]\nmd0 = 1\nmd9 = 6\n"bad" = "four"\n')
    expected, notes = md_expected_members(config)
    assert expected == {"md0": 1, "md9": 6}
    assert len(notes) == 1 and "md.expected_members.bad must be a whole number" in notes[0]
    arrays = list(arrays_of("qnap-sparse").values())
    # md9 expected 6 members but has 4: a loss, whatever the shape says.
    judged = {a.name: a for a in SparseMemory(expected).apply(arrays)}
    assert judged["md9"].health == "degraded" and judged["md13"].sparse_by_design
    (one_bay,), _ = parse_mdstat(
        "Personalities : [raid1]\nmd0 : active raid1 sda1[0]\n"
        "      1048512 blocks super 1.2 [24/1] [U_______________________]\n"
        "unused devices: <none>\n"
    )
    assert one_bay.health == "degraded"  # one copy: the rule alone calls it a loss
    (judged_one,) = SparseMemory(expected).apply([one_bay])
    assert judged_one.health == "ok" and judged_one.sparse_by_design


def test_a_bad_config_file_is_a_sentence(tmp_path):
    bad = tmp_path / "config.toml"
    bad.write_text("[md\n")
    expected, notes = md_expected_members(bad)
    assert expected == {} and "not valid TOML" in notes[0]
    assert md_expected_members(tmp_path / "absent.toml") == ({}, [])
