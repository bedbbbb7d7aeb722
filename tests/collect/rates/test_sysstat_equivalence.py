"""raidtop's iostat -x, mpstat and vmstat numbers equal sysstat's on sysstat's own inputs.

sysstat's test suite keeps recorded /proc and /sys trees (root1 … root7) and
the exact text its tools print when stepped through them: its test build reads
``tests/root``, prints the first report from the starting tree (since boot, for
iostat and for interval-less mpstat) and moves to the next rootN at each
interval. These tests replay the same trees through raidtop's Sampler, switching
its root between reads, and compare every value sysstat printed with raidtop's
value formatted to the same number of decimals. iostat -x is checked here,
mpstat in test_mpstat_equivalence.py, vmstat's fields (via sar -A) in
test_vmstat_equivalence.py; sysstat_golden.py reads what sysstat printed and
sysstat_replay.py feeds its trees to raidtop.

Where raidtop deliberately differs, the test asserts raidtop's documented
behaviour instead, decided from the input trees and never from raidtop's output:

* A device whose counters went backwards, or that was absent from the previous
  tree, has every rate ``None`` ("—"). iostat measures such a device from zero
  (its "removed then inserted again" rule) and prints since-reset averages as if
  they were the interval's rates.
* A discard or flush column whose fields the previous tree's line lacked (root3
  adds flush counters to sdc) is ``None``; iostat counts them from zero.
* When /proc/uptime goes backwards between two trees (root5 → root6 is another
  machine's recording) raidtop gives no rates; iostat's unsigned interval wraps
  to ~2**64 and it prints 0.00.
* When a field of the kernel's ``cpu`` line went backwards (root3 → root4 loses
  idle and iowait ticks), raidtop's vmstat CPU shares are ``None``; iostat's
  avg-cpu prints 0.00 because its jiffies total wraps.

Files and provenance: tests/data/sysstat/PROVENANCE.md.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from raidtop.collect.cpustat import parse_stat
from raidtop.collect.diskstats import parse_diskstats
from raidtop.model.snapshot import DiskIO, Snapshot
from tests.collect.rates.sysstat_golden import (
    IOSTAT_COLUMNS,
    IOSTAT_RUNS,
    MPSTAT_RUNS,
    IostatReport,
    IostatRun,
    golden_iostat,
    golden_mpstat,
)
from tests.collect.rates.sysstat_replay import input_tree, printed, replay, trees_for

# Both ways of reading disks: the compiled parse and rates, and their Python twin alone.
pytestmark = pytest.mark.usefixtures("disk_code")


def disk_mismatches(expected: dict[str, str], row: DiskIO) -> list[str]:
    problems = []
    for column, want in expected.items():
        got = printed(getattr(row, IOSTAT_COLUMNS[column]))
        if got != want:
            problems.append(f"{row.name} {column}: expected {want}, got {got}")
    return problems


COUNTER_FIELDS = (
    "rd_ios",
    "rd_merges",
    "rd_sectors",
    "rd_ticks",
    "wr_ios",
    "wr_merges",
    "wr_sectors",
    "wr_ticks",
    "tot_ticks",
    "rq_ticks",
    "dc_ios",
    "dc_merges",
    "dc_sectors",
    "dc_ticks",
    "fl_ios",
    "fl_ticks",
)
# The iostat columns computed from the discard and flush fields, which older kernels lack.
COLUMNS_OF_OPTIONAL_FIELDS = {
    "dc_ios": ("d/s", "dkB/s", "drqm/s", "%drqm", "d_await", "dareq-sz"),
    "fl_ios": ("f/s", "f_await"),
}


def counters_by_name(tree: Path) -> dict[str, dict[str, int | None]]:
    """Every counter of every device in a tree's diskstats (the rule's input)."""
    disks, _ = parse_diskstats((tree / "proc" / "diskstats").read_text())
    return {d.name: {f: getattr(d, f) for f in COUNTER_FIELDS} for d in disks}


def went_backwards(now: dict[str, int | None], before: dict[str, int | None]) -> bool:
    """Any counter smaller than before (no millisecond field in these trees is near its 2**32 wrap)."""
    return any(now[f] is not None and before[f] is not None and now[f] < before[f] for f in COUNTER_FIELDS)


def uptime(tree: Path) -> float:
    return float((tree / "proc" / "uptime").read_text().split()[0])


def iostat_cases():
    for run in IOSTAT_RUNS:
        for index, report in enumerate(golden_iostat(run)):
            yield pytest.param(run, index, report, id=f"{run.name}-report{index + 1}")


@pytest.mark.parametrize(("run", "index", "report"), list(iostat_cases()))
def test_iostat_x_equals_sysstat(run: IostatRun, index: int, report: IostatReport, workdir: Path) -> None:
    """Every value of one iostat -x report, to the printed precision."""
    trees = trees_for(run.start, index + 1)
    snapshot = replay(run, trees, workdir)[-1]
    rows = {d.name: d for d in snapshot.disks}
    now = input_tree(run, trees[-1], workdir)
    before = input_tree(run, trees[-2], workdir) if index else None

    # The devices iostat printed are the ones raidtop's filters would show.
    if run.filtered:
        shown = {name for name, d in rows.items() if d.ever_used and not d.is_partition}
    else:
        shown = set(rows)
    assert set(report.devices) == shown

    if run.listed:
        # -p dev: every row other than the named devices is one of their partitions.
        for name in set(report.devices) - set(run.listed):
            assert rows[name].is_partition and rows[name].parent in run.listed, name

    counters_now = counters_by_name(now)
    counters_before = counters_by_name(before) if before else {}
    uptime_went_back = before is not None and uptime(now) < uptime(before)
    problems = []
    for name, expected in report.devices.items():
        row = rows[name]
        old = counters_before.get(name)
        reset = old is not None and went_backwards(counters_now[name], old)
        appeared = before is not None and old is None
        if uptime_went_back or reset or appeared:
            # Deliberate difference (module docstring): no rate rather than a since-reset average.
            unknown = [c for c in IOSTAT_COLUMNS.values() if getattr(row, c) is not None]
            if unknown:
                problems.append(
                    f"{name}: expected every rate None (reset={reset}, appeared={appeared}, "
                    f"uptime back={uptime_went_back}), got values for {unknown}"
                )
            continue
        if old is not None:
            for field, columns in COLUMNS_OF_OPTIONAL_FIELDS.items():
                if old[field] is None and counters_now[name][field] is not None:
                    # Deliberate difference: the previous tree's line lacked these
                    # fields (root2 → root3 adds sdc's flush counters). iostat counts
                    # from zero; raidtop has no earlier value, so no rate.
                    for column in columns:
                        if getattr(row, IOSTAT_COLUMNS[column]) is not None:
                            problems.append(f"{name} {column}: expected None (field new in this tree)")
                    expected = {k: v for k, v in expected.items() if k not in columns}
        problems.extend(disk_mismatches(expected, row))
    assert not problems, "\n".join(problems)

    if report.avg_cpu is not None:
        check_avg_cpu(report.avg_cpu, snapshot, now, before)


def cpu_line_went_backwards(now: Path, before: Path) -> bool:
    """The kernel's ``cpu`` line lost ticks (iowait re-accounted as idle excepted)."""
    cur = parse_stat((now / "proc" / "stat").read_text())[0].cpus[0]
    old = parse_stat((before / "proc" / "stat").read_text())[0].cpus[0]
    fields = ("user", "nice", "system", "idle", "irq", "softirq", "steal")
    if cur.iowait < old.iowait and cur.idle <= old.idle:
        return True
    return any(getattr(cur, f) < getattr(old, f) for f in fields)


def check_avg_cpu(expected: dict[str, str], snapshot: Snapshot, now: Path, before: Path | None) -> None:
    """iostat's avg-cpu line against raidtop's vmstat CPU shares (same divisor, same kernel line).

    vmstat's ``us`` is %user + %nice; the golden file prints those two rounded
    separately, so their sum is known only to ±0.01.
    """
    vm = snapshot.vm
    assert vm is not None
    if before is not None and cpu_line_went_backwards(now, before):
        # Deliberate difference: root3 → root4's cpu line loses idle and iowait
        # ticks; iostat's unsigned jiffies difference wraps and prints 0.00
        # everywhere, raidtop shows no share.
        assert (vm.us, vm.sy, vm.id, vm.wa, vm.st) == (None,) * 5
        return
    got = {"%system": printed(vm.sy), "%iowait": printed(vm.wa), "%steal": printed(vm.st), "%idle": printed(vm.id)}
    want = {k: expected[k] for k in got}
    assert got == want
    user_nice = float(expected["%user"]) + float(expected["%nice"])
    assert vm.us is not None and abs(vm.us - user_nice) <= 0.01 + 1e-9, (vm.us, user_nice)


def test_every_golden_file_has_reports() -> None:
    """Guards the parsers: an empty parse would make the parametrized tests vacuous."""
    counts = {run.name: len(golden_iostat(run)) for run in IOSTAT_RUNS}
    counts |= {run.name: len(golden_mpstat(run)) for run in MPSTAT_RUNS}
    assert counts == {
        "iostat-x": 2,
        "iostat-x-0": 1,
        "iostat-x-ALL": 2,
        "iostat-x-ALL-flush": 3,
        "iostat-x-p-ALL": 2,
        "iostat-x-p-ALL-JSON": 2,
        "iostat-x-ALL-p-ALL": 7,
        "iostat-x-list": 1,
        "iostat-x-p-sda": 2,
        "mpstat": 1,
        "mpstat-A": 5,
        "mpstat-A-JSON": 1,
        "mpstat-APN": 2,
        "mpstat-T": 3,
        "mpstat-T-JSON": 1,
        "mpstat-U": 3,
    }
