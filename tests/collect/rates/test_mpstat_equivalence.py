"""raidtop's per-CPU usage equals mpstat -P ALL's on sysstat's own recorded inputs.

The method and the deliberate differences: test_sysstat_equivalence.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from raidtop.collect.cpustat import parse_stat
from raidtop.collect.rates import carry_offline_cpus, cpu_usages
from raidtop.model.snapshot import CpuUsage, StatCounters
from tests.collect.rates.sysstat_golden import (
    DATA,
    MPSTAT_RUNS,
    MpstatReport,
    MpstatRun,
    golden_mpstat,
)
from tests.collect.rates.sysstat_replay import printed, replay, trees_for


def mpstat_cases():
    for run in MPSTAT_RUNS:
        for index, report in enumerate(golden_mpstat(run)):
            label = "average" if report.label == "Average:" else f"report{index + 1}"
            yield pytest.param(run, index, report, id=f"{run.name}-{label}")


def cpu_key(cpu: str | int) -> str:
    return str(cpu)


@pytest.mark.parametrize(("run", "index", "report"), list(mpstat_cases()))
def test_mpstat_equals_sysstat(run: MpstatRun, index: int, report: MpstatReport, workdir: Path) -> None:
    """Every CPU row of one mpstat report, to the printed precision."""
    interval_reports = len([r for r in golden_mpstat(run) if r.label != "Average:"])
    if report.label == "Average:":
        rows = average_rows(run, interval_reports)
    elif run.since_boot:
        rows = replay(run, trees_for(run.start, 1), workdir)[0].cpus
    else:
        # mpstat with an interval prints no since-boot report: report k covers trees k → k+1.
        rows = replay(run, trees_for(run.start, index + 2), workdir)[-1].cpus
    by_cpu = {cpu_key(c.cpu): c for c in rows}
    if run.all_cpus:
        assert set(report.cpus) == set(by_cpu)
    problems = []
    for cpu, expected in report.cpus.items():
        usage = by_cpu.get(cpu)
        if usage is None:
            problems.append(f"CPU {cpu}: no row in raidtop")
            continue
        problems.extend(cpu_mismatches(cpu, expected, usage))
    assert not problems, "\n".join(problems)


def average_rows(run: MpstatRun, intervals: int) -> tuple[CpuUsage, ...]:
    """mpstat's Average: from the first tree to the last, where an offline CPU
    counts with the counters carried forward from when it was last seen."""
    stats: list[StatCounters] = []
    for tree in trees_for(run.start, intervals + 1):
        stat, _ = parse_stat((DATA / tree / "proc" / "stat").read_text())
        stats.append(stat)
    carried = stats[0]
    for stat in stats[1:]:
        carried = carry_offline_cpus(carried, stat)
    return cpu_usages(stats[0], carried)


def cpu_mismatches(cpu: str, expected: dict[str, str], usage: CpuUsage) -> list[str]:
    problems = []
    for column, want in expected.items():
        value = getattr(usage, column)
        # No CPU share is deliberately None on these trees: None is a failure here, not 0.00.
        got = "None" if value is None else printed(value)
        if got != want:
            problems.append(f"CPU {cpu} %{column}: expected {want}, got {got}")
    return problems
