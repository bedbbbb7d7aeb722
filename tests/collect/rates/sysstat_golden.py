"""What sysstat ran on its recorded trees and what it printed: the runs, and parsers of its text and JSON reports.

Files and provenance: tests/data/sysstat/PROVENANCE.md.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

DATA = Path(__file__).resolve().parents[2] / "data" / "sysstat"


EXPECTED = DATA / "expected"


TREES = ("root1", "root2", "root3", "root4", "root5", "root6", "root7")


# iostat -x column -> DiskIO attribute. JSON output names %rrqm "rrqm" and %util "util".
IOSTAT_COLUMNS = {
    "r/s": "r_s",
    "rkB/s": "rkib_s",
    "rrqm/s": "rrqm_s",
    "%rrqm": "rrqm_pct",
    "r_await": "r_await_ms",
    "rareq-sz": "rareq_sz_kib",
    "w/s": "w_s",
    "wkB/s": "wkib_s",
    "wrqm/s": "wrqm_s",
    "%wrqm": "wrqm_pct",
    "w_await": "w_await_ms",
    "wareq-sz": "wareq_sz_kib",
    "d/s": "d_s",
    "dkB/s": "dkib_s",
    "drqm/s": "drqm_s",
    "%drqm": "drqm_pct",
    "d_await": "d_await_ms",
    "dareq-sz": "dareq_sz_kib",
    "f/s": "f_s",
    "f_await": "f_await_ms",
    "aqu-sz": "aqu_sz",
    "%util": "util_pct",
}


JSON_IOSTAT_ALIASES = {"rrqm": "%rrqm", "wrqm": "%wrqm", "drqm": "%drqm", "util": "%util"}


MPSTAT_COLUMNS = ("usr", "nice", "sys", "iowait", "irq", "soft", "steal", "guest", "gnice", "idle")


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
