"""``raidtop lab faults-course``: its refusal on this host (no md, no device-mapper: the real refusal), its
dry-run outline, its plans through the lab's fault planner, the slow step's measurement judged by the
member grid's own rule, and its result in the lab history.

The steps themselves run on the real kernel in tests/realmd/test_lab_faults.py.
"""

from __future__ import annotations

import csv
import io
from dataclasses import MISSING, fields
from pathlib import Path

import pytest

from raidtop.actions.experiments.course_results import COURSE_STEPS, CourseRow
from raidtop.actions.experiments.course_session import UNREADABLE_INTO, unreadable_spec
from raidtop.actions.experiments.course_trace import Measured
from raidtop.actions.experiments.faults_course import parse_steps
from raidtop.actions.experiments.results import (
    ExperimentResult,
    csv_text,
    result_table,
    store_result,
    stored_results,
)
from raidtop.actions.lab.dmfault import plan_fault
from raidtop.actions.lab.dmtables import FaultSpec
from raidtop.actions.lab.spec import SpecError
from raidtop.actions.lab.store import LabStore
from raidtop.cli.lab import main as lab_main
from raidtop.latency.histogram import from_values, merged
from raidtop.latency.summary import summarize
from raidtop.model.md import MdArray, MdMember
from raidtop.model.snapshot import DiskIO
from raidtop.presentation.member_latency import BASIS_AWAIT, BASIS_P99, slow_members_judged

from tests.actions.lab.lab_tree import LabTree

ROWS = (
    CourseRow(
        "1",
        "slow disk",
        "loop22 behind dm-delay 100 ms (as dm-0); fio randwrite 4K for 5 s on md100",
        "marked slow: dm-0, by p99 latency (raidtop's bpftrace tracer): dm-0 p50 101ms p99 118ms",
        "dm-0",
        "dm-0",
        "p99",
        "in_sync",
        lesson=COURSE_STEPS[0].lesson,
    ),
    CourseRow("2", "flakey disk", "loop21 behind dm-flakey", "md failed dm-1", "dm-1", state="faulty", errors_before=0,
              errors_after=0, lesson=COURSE_STEPS[1].lesson),
    CourseRow("3a", "unreadable sectors, a check", "echo check", "mismatch_cnt 128", "dm-2", mismatch_cnt=128,
              unreadable_left=0, lesson=COURSE_STEPS[2].lesson),
    CourseRow("3b", "unreadable sectors, a read", "dd iflag=direct", "errors 0 → 16", "dm-2", errors_before=0,
              errors_after=16, unreadable_left=0, lesson=COURSE_STEPS[2].lesson),
)  # fmt: skip


@pytest.mark.skipif(Path("/proc/mdstat").exists(), reason="this host has md")
def test_the_course_refuses_on_this_host_with_the_labs_sentences_and_makes_nothing(capsys, tmp_path: Path):
    code = lab_main(["--lab-dir", str(tmp_path / "lab"), "faults-course"])
    err = capsys.readouterr().err
    assert code == 3 and "Traceback" not in err
    assert "the faults course cannot run here" in err and "has no md driver" in err
    # This kernel has no device-mapper either: said too, not only the first thing missing.
    if not any(line.split()[1:2] == ["device-mapper"] for line in Path("/proc/misc").read_text().splitlines()):
        assert "has no device-mapper" in err
    assert not (tmp_path / "lab" / "images").exists() or not any((tmp_path / "lab" / "images").iterdir())


def test_the_dry_run_prints_each_numbered_step_with_its_commands_and_lesson(capsys, tmp_path: Path):
    argv = ["--lab-dir", str(tmp_path / "lab"), "faults-course", "--dry-run", "--delay", "40", "--flakey", "2,4"]
    assert lab_main(argv) == 0
    out = capsys.readouterr().out
    assert "--level=1 --raid-devices=3 --bitmap=internal" in out
    headings = [line for line in out.splitlines() if line.startswith("# step")]
    assert [h.split(":")[0] for h in headings] == ["# step 1", "# step 2", "# step 3"]
    assert all(step.lesson in heading for step, heading in zip(COURSE_STEPS, headings))
    assert "raidtop lab fault md1NN loopC --delay 40" in out and "--flakey 2,4" in out
    assert "echo check > /sys/block/md1NN/md/sync_action" in out
    assert out.rstrip().endswith("raidtop lab teardown md1NN")
    assert lab_main(["--lab-dir", str(tmp_path / "lab"), "faults-course", "--dry-run", "--steps", "unreadable"]) == 0
    only = capsys.readouterr().out
    assert "# step 3" in only and "# step 1" not in only and "--delay" not in only
    assert not (tmp_path / "lab" / "images").exists() or not any((tmp_path / "lab" / "images").iterdir())


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--steps", "slow,fast"], "not fast"),
        (["--flakey", "0,3"], "flakey needs up and down times"),
        (["--flakey", "3"], "flakey takes UP,DOWN"),
        (["--delay", "0"], "expected milliseconds"),
        (["--delay", "70000"], "a delay is 1 to 60000 ms"),
    ],
)
def test_bad_parameters_are_a_usage_error_in_one_sentence(capsys, tmp_path: Path, argv, said):
    assert lab_main(["--lab-dir", str(tmp_path / "lab"), "faults-course", "--dry-run", *argv]) == 2
    assert said in capsys.readouterr().err


def test_steps_run_in_course_order_whatever_order_they_are_asked_in():
    assert parse_steps("unreadable, SLOW") == ("slow", "unreadable")
    with pytest.raises(SpecError):
        parse_steps(",")


def test_the_courses_faults_are_plans_the_lab_accepts_with_the_unreadable_range_in_the_data_area(tmp_path: Path):
    tree = LabTree(tmp_path)
    loops = tree.lab_raid("md100", "raid1", 3)
    (tree.root / "sys" / "module" / "dm_dust").mkdir(parents=True)
    md = tree.root / "sys" / "block" / "md100" / "md"
    (md / "bitmap").mkdir()
    (md / "bitmap" / "location").write_text("+8\n")
    for loop in loops:
        (tree.root / "sys" / "block" / loop / "size").write_text("65536\n")  # 32 MiB
        (md / f"dev-{loop}" / "offset").write_text("2050\n")  # not on a 4 KiB boundary
    spec = unreadable_spec(2050)
    assert spec.start % 8 == 0 and 2050 + UNREADABLE_INTO <= spec.start < 2050 + UNREADABLE_INTO + 8
    plan = plan_fault(tree.lab, "md100", loops[0], spec)
    blocks = [argv[-1] for argv in plan.commands if argv[3:5] == ("0", "addbadblock")]
    assert blocks == [str(spec.start // 8), str(spec.start // 8 + 1)]
    for kind in (FaultSpec("delay", delay_ms=100), FaultSpec("flakey", up_s=3, down_s=3)):
        table = next(argv[3] for argv in plan_fault(tree.lab, "md100", loops[2], kind).commands if "create" in argv)
        assert f" {kind.kind} /dev/{loops[2]} 0 " in table
    assert tree.runner.commands == []  # planned, nothing run


def disk_io(name: str, await_ms: float | None) -> DiskIO:
    unknown = {f.name: None for f in fields(DiskIO) if f.default is MISSING and f.name not in ("name", "kind")}
    return DiskIO(**(unknown | {"name": name, "kind": "loop", "w_await_ms": await_ms}))


ARRAY = MdArray(
    "md100",
    "raid1",
    "clean",
    "ok",
    3,
    0,
    members=tuple(MdMember(n, slot=i, roles=("in_sync",)) for i, n in enumerate(("loop20", "loop21", "dm-0"))),
)


def test_the_slow_leg_is_named_by_the_grids_rule_on_the_traced_distributions_and_said_so():
    # Intervals as the tracer hands them: the delayed leg's writes wait 100 ms, its siblings' under 1 ms.
    intervals = {
        "dm-0": [from_values([100_000 + i for i in range(300)]), from_values([100_500 + i for i in range(300)])],
        "loop20": [from_values([300 + i for i in range(300)])] * 2,
        "loop21": [from_values([250 + i for i in range(300)])] * 2,
    }
    measured = Measured({n: summarize(merged(h)) for n, h in intervals.items()}, {}, None)
    slow, basis = slow_members_judged(ARRAY, measured.disks, measured.latencies)
    assert (slow, basis) == ({"dm-0"}, BASIS_P99)
    text = measured.describe(ARRAY, basis)
    assert text.startswith("p99 latency (raidtop's bpftrace tracer): ") and "dm-0 p50 " in text


def test_without_a_distribution_the_average_await_names_it_and_the_reason_is_given():
    disks = {"loop20": disk_io("loop20", 0.4), "loop21": disk_io("loop21", 0.5), "dm-0": disk_io("dm-0", 104.0)}
    measured = Measured({}, disks, "bpftrace is not installed")
    slow, basis = slow_members_judged(ARRAY, measured.disks, measured.latencies)
    assert (slow, basis) == ({"dm-0"}, BASIS_AWAIT)
    assert measured.describe(ARRAY, basis) == (
        "average await (diskstats; no distribution: bpftrace is not installed): loop20 400µs; loop21 500µs; dm-0 104ms"
    )


def test_the_course_is_kept_in_the_history_and_shown_as_a_table(tmp_path: Path, capsys):
    store = LabStore(tmp_path / "lab" / "lab.sqlite")
    kept = store_result(store, ExperimentResult("faults-course", {"steps": "slow,flakey,unreadable"}, ROWS))
    back = stored_results(store)
    assert back[0].rows == ROWS and back[0].experiment_id == kept.experiment_id
    table = result_table(back[0])
    lines = table.splitlines()
    assert lines[:2] == ["Step  What was done", "      → what md / raidtop showed"]
    assert lines[5:7] == ["2     flakey disk: loop21 behind dm-flakey", "      → md failed dm-1"]
    assert "md failed dm-1" in table and "mismatch_cnt 128" in table
    assert table.count(COURSE_STEPS[2].lesson) == 1  # one lesson per step, not per row
    rows = list(csv.DictReader(io.StringIO(csv_text(back[0]))))
    assert [r["step"] for r in rows] == ["1", "2", "3a", "3b"] and rows[0]["slow"] == "dm-0"
    assert lab_main(["--lab-dir", str(tmp_path / "lab"), "results", str(kept.experiment_id)]) == 0
    assert "marked slow: dm-0" in capsys.readouterr().out


def test_a_tracer_that_ended_on_its_own_leaves_the_slow_step_to_the_awaits() -> None:
    from raidtop.actions.experiments.course_trace import ended_early

    assert ended_early([]) is None and ended_early([""]) is None  # raidtop stopped it: the p99 stands
    why = ended_early(["bpftrace: probes stalled for 5 s\x1b[2J\nsecond line"])
    assert why == "bpftrace ended during the run (bpftrace: probes stalled for 5 s\ufffd[2J)"
    assert "no distribution: bpftrace ended during the run" in Measured({}, {}, why).describe(ARRAY, BASIS_AWAIT)
