"""raidtop's iostat -x, mpstat and vmstat numbers equal sysstat's on sysstat's own inputs.

sysstat's test suite keeps recorded /proc and /sys trees (root1 … root7) and
the exact text its tools print when stepped through them: its test build reads
``tests/root``, prints the first report from the starting tree (since boot, for
iostat and for interval-less mpstat) and moves to the next rootN at each
interval. These tests replay the same trees through raidtop's Sampler, switching
its root between reads, and compare every value sysstat printed with raidtop's
value formatted to the same number of decimals.

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

import json
import os
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from raidtop.collect.cpustat import parse_stat
from raidtop.collect.diskstats import parse_diskstats
from raidtop.collect.rates import carry_offline_cpus, cpu_usages
from raidtop.collect.sampler import Sampler
from raidtop.collect.source import Root
from raidtop.model.snapshot import CpuUsage, DiskIO, Snapshot, StatCounters

DATA = Path(__file__).resolve().parents[2] / "data" / "sysstat"
EXPECTED = DATA / "expected"
TREES = ("root1", "root2", "root3", "root4", "root5", "root6", "root7")
PROC_FILES = ("stat", "uptime", "meminfo", "vmstat", "loadavg")

# iostat -x column -> DiskIO attribute. JSON output names %rrqm "rrqm" and %util "util".
IOSTAT_COLUMNS = {
    "r/s": "r_s",
    "rkB/s": "rkb_s",
    "rrqm/s": "rrqm_s",
    "%rrqm": "rrqm_pct",
    "r_await": "r_await_ms",
    "rareq-sz": "rareq_sz_kb",
    "w/s": "w_s",
    "wkB/s": "wkb_s",
    "wrqm/s": "wrqm_s",
    "%wrqm": "wrqm_pct",
    "w_await": "w_await_ms",
    "wareq-sz": "wareq_sz_kb",
    "d/s": "d_s",
    "dkB/s": "dkb_s",
    "drqm/s": "drqm_s",
    "%drqm": "drqm_pct",
    "d_await": "d_await_ms",
    "dareq-sz": "dareq_sz_kb",
    "f/s": "f_s",
    "f_await": "f_await_ms",
    "aqu-sz": "aqu_sz",
    "%util": "util_pct",
}
JSON_IOSTAT_ALIASES = {"rrqm": "%rrqm", "wrqm": "%wrqm", "drqm": "%drqm", "util": "%util"}
MPSTAT_COLUMNS = ("usr", "nice", "sys", "iowait", "irq", "soft", "steal", "guest", "gnice", "idle")


# ----------------------------------------------------------------- what sysstat ran


@dataclass(frozen=True)
class IostatRun:
    """One golden iostat file: its command line as the manifest gives it."""

    name: str
    start: str
    reads: str
    """``diskstats`` with ``-p ALL``; otherwise iostat reads /sys/block/<dev>/stat."""
    filtered: bool
    """No device named on the command line: iostat hides never-used devices."""
    listed: tuple[str, ...] = ()
    """``-p dev,...``: only these devices and their partitions (read from sysfs)."""
    json: bool = False


IOSTAT_RUNS = (
    IostatRun("iostat-x", "root1", "sysfs", filtered=True),  # iostat -x 1 2
    IostatRun("iostat-x-0", "root1", "sysfs", filtered=True),  # iostat -x
    IostatRun("iostat-x-ALL", "root1", "sysfs", filtered=False),  # iostat -x ALL 1 2
    IostatRun("iostat-x-ALL-flush", "root3", "sysfs", filtered=False),  # iostat -x ALL 1 3
    IostatRun("iostat-x-p-ALL", "root1", "diskstats", filtered=False),  # iostat -x -p ALL 1 2
    IostatRun("iostat-x-p-ALL-JSON", "root1", "diskstats", filtered=False, json=True),
    IostatRun("iostat-x-ALL-p-ALL", "root1", "diskstats", filtered=False),  # iostat -dx ALL -p ALL 1 7
    IostatRun("iostat-x-list", "root1", "sysfs", filtered=False, listed=("sdb", "sdc")),  # -dx -p sdb,sdc
    IostatRun("iostat-x-p-sda", "root1", "sysfs", filtered=False, listed=("sda",)),  # -x -p sda 1 2
)
# Not compared: -xs (tps, await, areq-sz: columns raidtop does not show), --pretty
# and -h/-j (layout only), -g groups, -f/+f alternate directories, -N device-mapper names.


@dataclass(frozen=True)
class MpstatRun:
    """One golden mpstat file."""

    name: str
    start: str
    since_boot: bool
    """No interval on the command line: one report since boot."""
    all_cpus: bool
    """-P ALL (or -A): every online CPU has a row, so the CPU sets must match too."""
    json: bool = False


MPSTAT_RUNS = (
    MpstatRun("mpstat", "root1", since_boot=True, all_cpus=False),  # mpstat
    MpstatRun("mpstat-A", "root1", since_boot=False, all_cpus=True),  # mpstat -A 1 4
    MpstatRun("mpstat-A-JSON", "root1", since_boot=False, all_cpus=True, json=True),  # -o JSON -A 1 1
    MpstatRun("mpstat-APN", "root1", since_boot=False, all_cpus=False),  # -A -P 0,3-5 -N all 1 1
    MpstatRun("mpstat-T", "root1", since_boot=False, all_cpus=True),  # -T -P ALL 1 2
    MpstatRun("mpstat-T-JSON", "root1", since_boot=True, all_cpus=True, json=True),  # -o JSON -T -P ALL
    MpstatRun("mpstat-U", "root1", since_boot=False, all_cpus=False),  # -U 1 2
)
# Not compared: -I/--dec (interrupt tables only) and -H (re-enumerates CPUs as they
# are hot-plugged, and its run crosses into root6, another machine's recording).


# ----------------------------------------------------------------- golden parsers


@dataclass(frozen=True)
class IostatReport:
    avg_cpu: dict[str, str] | None
    """avg-cpu column -> printed value."""
    devices: dict[str, dict[str, str]]
    """device -> iostat column -> printed value."""


def parse_iostat_text(text: str) -> list[IostatReport]:
    """Split iostat's plain output into reports of printed (string) values."""
    reports: list[IostatReport] = []
    avg: dict[str, str] | None = None
    devices: dict[str, dict[str, str]] | None = None
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("avg-cpu:"):
            if devices is not None or avg is not None:
                reports.append(IostatReport(avg, devices or {}))
                devices = None
            names = line.split()[1:]
            avg = dict(zip(names, lines[i + 1].split(), strict=True))
            i += 2
            continue
        if line.startswith("Device"):
            if devices is not None:
                reports.append(IostatReport(avg, devices))
                avg = None
            columns = line.split()[1:]
            devices = {}
            i += 1
            while i < len(lines) and lines[i].strip():
                fields = lines[i].split()
                devices[fields[0]] = dict(zip(columns, fields[1:], strict=True))
                i += 1
            continue
        i += 1
    if devices is not None or avg is not None:
        reports.append(IostatReport(avg, devices or {}))
    return reports


def parse_iostat_json(text: str) -> list[IostatReport]:
    """The same from ``iostat -o JSON`` (every value printed with %.2f)."""
    stats = json.loads(text)["sysstat"]["hosts"][0]["statistics"]
    avg_keys = {
        "user": "%user",
        "nice": "%nice",
        "system": "%system",
        "iowait": "%iowait",
        "steal": "%steal",
        "idle": "%idle",
    }
    reports = []
    for stat in stats:
        avg = {avg_keys[k]: f"{v:.2f}" for k, v in stat["avg-cpu"].items()} if "avg-cpu" in stat else None
        devices = {}
        for row in stat["disk"]:
            devices[row["disk_device"]] = {
                JSON_IOSTAT_ALIASES.get(key, key): f"{value:.2f}"
                for key, value in row.items()
                if key != "disk_device" and JSON_IOSTAT_ALIASES.get(key, key) in IOSTAT_COLUMNS
            }
        reports.append(IostatReport(avg, devices))
    return reports


@dataclass(frozen=True)
class MpstatReport:
    label: str
    """The row timestamp, or ``Average:``."""
    cpus: dict[str, dict[str, str]]
    """"all" or CPU number -> column -> printed value."""


def parse_mpstat_text(text: str) -> list[MpstatReport]:
    """The CPU utilisation blocks of mpstat's output, one report per timestamp.

    Other blocks (NODE, interrupts, softirqs) are skipped. With -T the CORE,
    SOCK and NODE columns are dropped (the values are the last ten fields).
    Rows are grouped by their timestamp because ``mpstat -U`` prints one block
    whose rows come from successive reports.
    """
    by_label: dict[str, dict[str, dict[str, str]]] = {}
    in_cpu_block = False
    for line in text.splitlines():
        fields = line.split()
        if len(fields) < 2:
            in_cpu_block = False
            continue
        if fields[1] in ("CPU", "NODE"):
            in_cpu_block = fields[1] == "CPU" and "%usr" in fields
            continue
        if in_cpu_block:
            values = fields[-len(MPSTAT_COLUMNS) :]
            by_label.setdefault(fields[0], {})[fields[1]] = dict(zip(MPSTAT_COLUMNS, values, strict=True))
    return [MpstatReport(label, cpus) for label, cpus in by_label.items()]


def parse_mpstat_json(text: str) -> list[MpstatReport]:
    """The ``cpu-load`` lists of ``mpstat -o JSON``."""
    stats = json.loads(text)["sysstat"]["hosts"][0]["statistics"]
    return [
        MpstatReport(
            stat["timestamp"],
            {row["cpu"]: {k: f"{row[k]:.2f}" for k in MPSTAT_COLUMNS} for row in stat["cpu-load"]},
        )
        for stat in stats
    ]


def golden_iostat(run: IostatRun) -> list[IostatReport]:
    text = (EXPECTED / f"expected.{run.name}").read_text()
    return parse_iostat_json(text) if run.json else parse_iostat_text(text)


def golden_mpstat(run: MpstatRun) -> list[MpstatReport]:
    text = (EXPECTED / f"expected.{run.name}").read_text()
    return parse_mpstat_json(text) if run.json else parse_mpstat_text(text)


# ----------------------------------------------------------------- feeding raidtop


def trees_for(start: str, count: int) -> list[str]:
    """The trees sysstat's test mode visits: the starting one, then one per interval."""
    first = TREES.index(start)
    return list(TREES[first : first + count])


def sysfs_diskstats(tree: Path, listed: tuple[str, ...]) -> str:
    """A /proc/diskstats holding exactly what iostat read from /sys/block in ``tree``.

    Without ``-p ALL``, iostat reads /sys/block/<dev>/stat (and with ``-p dev``
    the partitions' stat files under it), not /proc/diskstats; in root3 to
    root5 the two disagree for sdc and sdd (flush counters), and sdb's
    partitions exist only in sysfs. Major and minor come from /proc/diskstats
    where the device is there.
    """
    numbers = {}
    for line in (tree / "proc" / "diskstats").read_text().splitlines():
        major, minor, name = line.split()[:3]
        numbers[name] = (major, minor)
    block = tree / "sys" / "block"
    lines = []
    for entry in sorted(os.listdir(block)):
        stat = block / entry / "stat"
        name = entry.replace("!", "/")
        if listed and name not in listed:
            continue
        if stat.is_file():
            lines.append((name, stat.read_text().split()))
        if name in listed:
            for part in sorted(os.listdir(block / entry)):
                part_stat = block / entry / part / "stat"
                if part_stat.is_file():
                    lines.append((part.replace("!", "/"), part_stat.read_text().split()))
    return "".join(
        f"{numbers.get(name, ('0', '0'))[0]:>4} {numbers.get(name, ('0', '0'))[1]:>7} {name} {' '.join(fields)}\n"
        for name, fields in lines
    )


def input_tree(run: IostatRun | MpstatRun, tree: str, workdir: Path) -> Path:
    """The directory raidtop reads for ``tree`` in ``run``: the recording itself,
    or a copy whose /proc/diskstats holds what iostat read from sysfs."""
    source = DATA / tree
    if not isinstance(run, IostatRun) or run.reads == "diskstats":
        return source
    target = workdir / run.name / tree
    if not target.exists():
        (target / "proc").mkdir(parents=True)
        for name in PROC_FILES:
            if (source / "proc" / name).exists():
                shutil.copy(source / "proc" / name, target / "proc" / name)
        (target / "proc" / "diskstats").write_text(sysfs_diskstats(source, run.listed))
        (target / "sys").symlink_to(source / "sys", target_is_directory=True)
    return target


def replay(run: IostatRun | MpstatRun, trees: list[str], workdir: Path) -> list[Snapshot]:
    """Snapshots from one Sampler whose root moves to the next tree at each read."""
    sampler = Sampler(input_tree(run, trees[0], workdir))
    snapshots = []
    for tree in trees:
        sampler.root = Root(input_tree(run, tree, workdir))
        snapshots.append(sampler.sample())
    return snapshots


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("sysstat-trees")


# ----------------------------------------------------------------- formatting


def printed(value: float | None, decimals: int = 2) -> str:
    """raidtop's value as sysstat prints it; ``None`` is iostat's 0.00 for an
    average over no requests (r_await with no reads)."""
    return f"{0.0 if value is None else value:.{decimals}f}"


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


# ----------------------------------------------------------------- iostat -x


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


# ----------------------------------------------------------------- mpstat -P ALL


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


# ----------------------------------------------------------------- vmstat fields via sar -A


def parse_sar_blocks(text: str) -> dict[str, list[dict[str, str]]]:
    """sar's text output: header's first column name -> one dict per interval row."""
    blocks: dict[str, list[dict[str, str]]] = {}
    columns: list[str] | None = None
    for line in text.splitlines():
        fields = line.split()
        if not fields:
            columns = None
            continue
        if columns is None:
            if re.fullmatch(r"\d\d:\d\d:\d\d", fields[0]) and not re.fullmatch(r"[\d.]+", fields[1]):
                columns = fields[1:]
                blocks.setdefault(columns[0], [])
            continue
        if fields[0] != "Average:" and len(fields) == len(columns) + 1:
            blocks[columns[0]].append(dict(zip(columns, fields[1:], strict=True)))
    return blocks


def test_vmstat_fields_equal_sar() -> None:
    """vmstat's cs, si, so, bi, bo, free and buff against ``sar -A`` on the same trees.

    sar's -w, -W, -B and -r reports share their sources and interval with vmstat:
    cswch/s is vmstat's cs, pswpin/s and pswpout/s are si and so in pages,
    pgpgin/s and pgpgout/s are bi and bo, kbmemfree and kbbuffers are free and buff.
    """
    blocks = parse_sar_blocks((EXPECTED / "expected.sar-A").read_text())
    page_kb = os.sysconf("SC_PAGE_SIZE") / 1024.0
    sampler = Sampler(DATA / "root1")
    sampler.sample()
    checked = 0
    for index, tree in enumerate(("root2", "root3")):
        sampler.root = Root(DATA / tree)
        vm = sampler.sample().vm
        assert vm is not None
        got = {
            "cswch/s": printed(vm.cs_s),
            "pswpin/s": printed(vm.si_kb_s / page_kb),
            "pswpout/s": printed(vm.so_kb_s / page_kb),
            "pgpgin/s": printed(vm.bi_kb_s),
            "pgpgout/s": printed(vm.bo_kb_s),
            "kbmemfree": str(vm.free_kb),
            "kbbuffers": str(vm.buff_kb),
        }
        want = {
            "cswch/s": blocks["proc/s"][index]["cswch/s"],
            "pswpin/s": blocks["pswpin/s"][index]["pswpin/s"],
            "pswpout/s": blocks["pswpin/s"][index]["pswpout/s"],
            "pgpgin/s": blocks["pgpgin/s"][index]["pgpgin/s"],
            "pgpgout/s": blocks["pgpgin/s"][index]["pgpgout/s"],
            "kbmemfree": blocks["kbmemfree"][index]["kbmemfree"],
            "kbbuffers": blocks["kbmemfree"][index]["kbbuffers"],
        }
        assert got == want, tree
        checked += 1
    assert checked == 2


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
