"""The RAID-level study (issue 31) end to end on a real md kernel, in one boot.

``raidtop lab study`` runs as a real process with its defaults scaled down
(16 MiB disks instead of 64, 1 s fio runs instead of 5; three runs, three
disks per level, the fill and the during-rebuild load as by default: the
same code path), then reads its result back through ``raidtop lab
results``. The same boot checks that ``lab list`` shows a removed disk as
removed, and that the study's fio runs are labelled in the Benchmarks
history.

With ``REALMD_STUDY_DEFAULTS=1`` the boot runs the study with its real
defaults instead (64 MiB disks, 5 s runs: the README's table); expect
about 25 minutes under TCG.
"""

from __future__ import annotations

import csv
import json
import os
import re
from pathlib import Path

import pytest

from raidtop.actions.experiments.study_results import CSV_FIELDS

from .host_python import host_python

README = Path(__file__).resolve().parents[2] / "README.md"
DEFAULTS = os.environ.get("REALMD_STUDY_DEFAULTS") == "1"
SCALED_DOWN = "--size 16M --runtime 1"

GUEST_SCRIPT = r"""
set -uo pipefail
. tests/realmd/guest_lib.sh
export RAIDTOP_LAB_DIR=/run/lab XDG_STATE_HOME=/run/lab-state XDG_DATA_HOME=/run/lab-data
PY={python}
lab() {{ PYTHONPATH="$PWD" "$PY" -m raidtop.cli.lab "$@"; }}
start=$EPOCHREALTIME
lab study --levels 0,1,5 {scale} --json --csv "$RESULTS/study.csv" > "$RESULTS/study.out" 2> "$RESULTS/study.err"
echo $? > "$RESULTS/study.rc"
awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN {{ printf "%.1f\n", b - a }}' > "$RESULTS/study.seconds"
cat /proc/loadavg > "$RESULTS/study.loadavg"
id=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$RESULTS/study.out" 2>/dev/null)
lab results > "$RESULTS/results-list.out" 2>&1
lab results "$id" --json > "$RESULTS/results-id.json" 2> "$RESULTS/results-id.err"
lab results "$id" > "$RESULTS/results-id.txt" 2>&1
lab results "$id" --csv "$RESULTS/results-id.csv" > /dev/null 2>&1
{{ grep -E '^md[0-9]+ :' /proc/mdstat || :
   for f in /sys/block/loop*/loop/backing_file; do [[ -f $f ]] && grep -H /run/lab "$f"; done
   ls -A /run/lab/images 2>/dev/null; }} > "$RESULTS/study.leftovers" 2>&1
PYTHONPATH="$PWD" "$PY" - > "$RESULTS/history.json" 2>&1 <<'HISTORY'
import json, sqlite3
db = sqlite3.connect("/run/lab-data/raidtop/bench.sqlite")
query = "SELECT preset, target, group_kind, pass_no, label, command FROM runs ORDER BY id"
print(json.dumps(db.execute(query).fetchall()))
HISTORY

# A removed disk shows as removed in lab list until teardown.
lab create --level 1 --disks 2 --size 16M --wait > "$RESULTS/list-create.out" 2>&1
md=$(grep -o 'created /dev/md[0-9]*' "$RESULTS/list-create.out" | cut -d/ -f3)
victim=$(ls /sys/block/$md/slaves | head -n 1)
lab fail "$md" "$victim" >> "$RESULTS/list-create.out" 2>&1
lab remove "$md" "$victim" >> "$RESULTS/list-create.out" 2>&1
echo "$victim" > "$RESULTS/list-victim"
lab list > "$RESULTS/list.out" 2>&1
lab list --json > "$RESULTS/list.json" 2>&1
lab teardown > /dev/null 2>&1
exit 0
"""


@pytest.fixture(scope="module")
def runs(vm_image, tmp_path_factory) -> Path:
    """Boot once, run the study and the list check, return the results folder."""
    from .vm import run_in_guest

    script = GUEST_SCRIPT.format(python=host_python(), scale="" if DEFAULTS else SCALED_DOWN)
    results = tmp_path_factory.mktemp("lab-study") / "results"
    outcome = run_in_guest(script, timeout=3600 if DEFAULTS else 1500, results_dir=results, image=vm_image)
    print(
        f"\nlab study boot: qemu wall {outcome.elapsed:.1f}s; study {_text(results, 'study.seconds')} s, "
        f"guest load {_text(results, 'study.loadavg')}"
    )
    print(_text(results, "results-id.txt"))
    assert outcome.returncode == 0, outcome.describe_failure()
    return results


def _text(results: Path, name: str) -> str:
    try:
        return (results / name).read_text().strip()
    except OSError:
        return "?"


def _study(runs: Path) -> dict:
    assert _text(runs, "study.rc") == "0", _text(runs, "study.err")
    return json.loads((runs / "study.out").read_text())


def test_three_runs_of_raid0_1_5_with_mean_and_sd(runs: Path):
    study = _study(runs)
    assert study["kind"] == "study" and not study["stopped"]
    rows = study["rows"]
    assert [(r["run"], r["level"]) for r in rows] == [
        (n, level) for n in (1, 2, 3) for level in ("raid0", "raid1", "raid5")
    ]
    # The same member count for every level by default.
    assert {r["disks"] for r in rows} == {3}
    for row in rows:
        for key in (
            "read_iops",
            "write_iops",
            "read_mib_s",
            "write_mib_s",
            "read_lat_avg_us",
            "read_lat_p99_us",
            "write_lat_avg_us",
            "write_lat_p99_us",
        ):
            assert row[key] and row[key] > 0, (row["level"], key, row)
        if row["level"] == "raid0":
            assert row["rebuild_s"] is None and row["rebuilding_write_iops"] is None
        else:
            assert row["rebuild_s"] > 0 and row["rebuild_resolution_s"] > 0
            assert row["rebuilding_write_iops"] > 0 and row["rebuilding_load_s"] > 0
    summary = {s["level"]: s for s in study["summary"]}
    assert list(summary) == ["raid0", "raid1", "raid5"]
    for level, stats in summary.items():
        values = [r["write_iops"] for r in rows if r["level"] == level]
        assert stats["runs"] == 3 and stats["mean"]["write_iops"] == pytest.approx(sum(values) / 3, abs=0.01)
        assert stats["sd"]["write_iops"] is not None and stats["sd"]["write_iops"] >= 0
    # Capacity on three disks: raid0 all three, raid5 two, raid1 (a 3-way mirror) one.
    assert summary["raid0"]["usable_bytes"] > 2.8 * summary["raid1"]["usable_bytes"]
    assert summary["raid5"]["usable_bytes"] > 1.8 * summary["raid1"]["usable_bytes"]
    assert summary["raid1"]["failures_tolerated"] == "2"
    params = study["params"]
    assert params["runs"] == "3" and params["fill"] == "yes" and params["kernel"].startswith("6.1")
    assert params["bs"] == "4k" and params["engine"] in ("libaio", "psync") and params["speed_limit_max"]
    assert _text(runs, "study.leftovers") == ""


def test_each_fio_command_is_printed_before_it_runs_and_stored_with_its_result(runs: Path):
    study = _study(runs)
    err = (runs / "study.err").read_text()  # with --json the commands go to stderr
    printed = [line[2:] for line in err.splitlines() if line.startswith("$ ") and " --name=rand-" in line]
    stored = [c for r in study["rows"] for c in (r["read_command"], r["write_command"], r["rebuilding_command"]) if c]
    assert printed == stored and len(stored) == 3 * (2 + 3 + 3)
    # Printed before fio ran: the first read command comes before the progress line of the write that follows it.
    first = err.index("$ " + study["rows"][0]["read_command"])
    assert first < err.index("fio rand-write for")
    assert all("--name=rand-" in c and "--filename=/dev/md" in c for c in stored)


def test_stored_study_reads_back_identically(runs: Path):
    study = _study(runs)
    assert json.loads((runs / "results-id.json").read_text()) == study
    assert re.search(
        rf"^\s*{study['id']}\s.*study\s+levels=raid0,raid1,raid5 .*runs=3",
        _text(runs, "results-list.out"),
        re.MULTILINE,
    ), _text(runs, "results-list.out")
    table = _text(runs, "results-id.txt")
    assert "Write IOPS rebuilding" in table and " ± " in table and "over 3 runs" in table


def test_csv_header_is_the_readmes_and_its_figures_the_stored_ones(runs: Path):
    study = _study(runs)
    documented = [line.strip() for line in README.read_text().splitlines() if line.strip().startswith("level,disks,")]
    for name in ("study.csv", "results-id.csv"):
        with open(runs / name, newline="") as handle:
            reader = csv.reader(handle)
            header = next(reader)
            lines = list(reader)
        assert documented == [",".join(header)] and tuple(header) == CSV_FIELDS
        by_level = {line[0]: dict(zip(header, line)) for line in lines}
        for stats in study["summary"]:
            assert float(by_level[stats["level"]]["write_iops_mean"]) == pytest.approx(
                stats["mean"]["write_iops"], abs=0.001
            )
    assert (runs / "study.csv").read_text() == (runs / "results-id.csv").read_text()


def test_every_array_is_filled_over_its_whole_size_before_its_first_fio(runs: Path):
    study = _study(runs)
    err = (runs / "study.err").read_text()
    # One segment per array, in the order the rows ran: a dd over the whole array before its first fio.
    segments = err.split("$ mdadm --create /dev/")[1:]
    assert len(segments) == len(study["rows"])
    for segment, row in zip(segments, study["rows"]):
        name = segment.split()[0]
        fill = f"$ dd if=/dev/urandom of=/dev/{name} bs=1M seek=0 count={row['usable_bytes'] >> 20} conv=fsync"
        assert fill in segment and segment.index(fill) < segment.index("--name=rand-read"), (
            row["level"],
            segment[:2000],
        )
    # Without the fill a fresh raid0 pays for allocating its sparse images in its first write test. The fill's
    # command and place are what this test holds; the first run's throughput against the later ones' is not
    # asserted: under TCG on a shared host it is a timing comparison (reads alone vary ±30 % between runs, and
    # raid0's filled first run wrote 0.86 of the slower later run in one fresh run and over 0.9 in the one before).


def test_study_runs_are_labelled_in_the_benchmarks_history(runs: Path):
    study = _study(runs)
    history = json.loads((runs / "history.json").read_text())
    labels = [row[4] for row in history if row[2] == "study"]
    assert len(labels) == 24
    assert f"study {study['id']} raid0 run 1 read" in labels
    assert f"study {study['id']} raid5 run 3 write during rebuild" in labels


def test_lab_list_shows_a_removed_disk_as_removed(runs: Path):
    victim = _text(runs, "list-victim")
    text = _text(runs, "list.out")
    assert f"removed: {victim}" in text, text
    disks = re.search(r"disks: ([^;\n]*)", text).group(1)
    assert victim not in disks.split(", "), text
    array = json.loads((runs / "list.json").read_text())["arrays"][0]
    assert array["removed_loops"] == [victim] and victim not in array["loops"]
