"""How close raidtop's sync ETA and the kernel's finish= come to the real end, on real-kernel recordings.

    PYTHONPATH=. .venv/bin/python perf/eta_accuracy.py              # the committed traces (≈3 s)
    PYTHONPATH=. .venv/bin/python perf/eta_accuracy.py --record      # boot the realmd VM and record them anew

The recordings (tests/data/realmd/eta_*.json.xz, made by
tests/realmd/guest_eta.py in the realmd VM: Debian's 6.1 kernel, mdadm 4.2)
hold the md files raidtop's Sampler read once a second during a resync or
recovery. Each is replayed through the ordinary Sampler with the recorded
clock; the true remaining time at each reading is the sync's end (the last
reading still syncing, plus what it had left at its own rate, bounded by the
first idle reading) minus the reading's time. Reported: the mean absolute
error relative to the truth from 25 % progress on (readings with at least
3 s left; below that a tenth of a second is already 3 %), and in seconds.
Runs with a limit change count from the first reading after it: no
estimate can foresee the change, the question is how fast it follows.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from raidtop.collect.sampler import Sampler  # noqa: E402
from raidtop.collect.source import Root  # noqa: E402
from tests.realmd.monitor_compare import read_any_trace  # noqa: E402
from tests.realmd.scenario_trace import TRACE_DIR  # noqa: E402
from tests.realmd.trace import materialize  # noqa: E402

RUNS = ("constant_raid1", "constant_raid5_recover", "fio_load", "raised_burst", "raised", "lowered_early", "lowered")
FROM_PERCENT = 25.0
MIN_TRUTH_S = 3.0


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def replay_sync(document: dict, workdir: Path) -> list[tuple[float, object]]:
    """``(time, MdSync or None)`` of the recorded array at each reading, through the Sampler."""
    clock = _Clock()
    sampler = None
    out = []
    for index, step in enumerate(document["steps"]):
        root = materialize(step, workdir / f"{index:04d}")
        clock.now = step["sampled_at"]
        if sampler is None:
            sampler = Sampler(root, clock=clock)
        else:
            sampler.root = Root(root)
        snap = sampler.sample()
        syncing = [a for a in snap.arrays if a.sync is not None and a.sync.running]
        out.append((step["sampled_at"], syncing[0].sync if syncing else None))
    return out


def sync_end(readings: list[tuple[float, object]]) -> float:
    """When the sync ended: the last running reading plus what it had left, within the next reading."""
    last = max(i for i, (_, sync) in enumerate(readings) if sync is not None)
    t, sync = readings[last]
    after = readings[last + 1][0] if last + 1 < len(readings) else t + 1.0
    rate = sync.rate_kib_s or sync.speed_kib_s
    left = (sync.total_kib - sync.done_kib) / rate if rate else after - t
    return min(after, t + left)


def accuracy(readings: list[tuple[float, object]], since: float | None = None) -> dict[str, float | int | None]:
    """Mean errors of raidtop's ETA and finish= from FROM_PERCENT on (and from ``since``, a limit change)."""
    end = sync_end(readings)
    rows = []
    for t, sync in readings:
        if sync is None or sync.percent is None or sync.percent < FROM_PERCENT:
            continue
        if since is not None and t < since:
            continue
        truth = end - t
        rows.append((truth, sync.eta_s, sync.eta_s_kernel))

    def mean(values: list[float]) -> float | None:
        return sum(values) / len(values) if values else None

    out: dict[str, float | int | None] = {"readings": len(rows)}
    for key, position in (("raidtop", 1), ("finish", 2)):
        known = [(truth, row[position]) for truth, *_ in rows for row in [(truth, *_)] if row[position] is not None]
        rel = [abs(eta - truth) / truth for truth, eta in known if truth >= MIN_TRUTH_S]
        out[f"{key}_pct"] = None if not rel else round(100 * mean(rel), 1)
        out[f"{key}_s"] = None if not known else round(mean([abs(eta - truth) for truth, eta in known]), 2)
        out[f"{key}_missing"] = len(rows) - len(known)
    return out


SETTLED_PCT = 10.0
"""Issue 23's goal: within 10 % of the real remaining time, within 5 s of a limit change, and staying there."""


def end_uncertainty(readings: list[tuple[float, object]]) -> float:
    """How well the recording dates the sync's end: the gap between the last reading still
    syncing and the next one. No estimate can be judged closer than that."""
    last = max(i for i, (_, sync) in enumerate(readings) if sync is not None)
    return readings[last + 1][0] - readings[last][0] if last + 1 < len(readings) else 1.0


def settling(readings: list[tuple[float, object]], since: float) -> dict[str, float | None]:
    """Seconds from ``since`` until raidtop's ETA is within :data:`SETTLED_PCT` of the truth (or within
    the truth's own uncertainty, :func:`end_uncertainty`) for good, and its worst error after that.

    Readings with under :data:`MIN_TRUTH_S` left do not count, as for the MAE.
    """
    end, slack = sync_end(readings), end_uncertainty(readings)
    errors = [
        (t, end - t, None if sync.eta_s is None else abs(sync.eta_s - (end - t)))
        for t, sync in readings
        if sync is not None and t >= since and end - t >= MIN_TRUTH_S
    ]
    settled_at = None
    for t, truth, err in errors:
        if err is None or err > max(SETTLED_PCT / 100 * truth, slack):
            settled_at = None
        elif settled_at is None:
            settled_at = t
    out: dict[str, float | None] = {
        "settle_s": None,
        "worst_after_pct": None,
        "worst_after_s": None,
        "truth_uncertainty_s": round(slack, 2),
    }
    if settled_at is not None:
        after = [(err, err / truth * 100) for t, truth, err in errors if t >= settled_at and err is not None]
        out["settle_s"] = round(settled_at - since, 1)
        out["worst_after_s"] = round(max(e for e, _ in after), 2)
        out["worst_after_pct"] = round(max(p for _, p in after), 1)
    return out


def _first_reading_after(document: dict, wall: float) -> float:
    return min(step["sampled_at"] for step in document["steps"] if step["sampled_at"] >= wall)


def evaluate(trace_dir: Path = TRACE_DIR) -> dict[str, dict]:
    """Every run's accuracy figures, by run name."""
    results = {}
    for run in RUNS:
        path = trace_dir / f"eta_{run}.json.xz"
        if not path.exists():
            continue
        document = read_any_trace(path)
        with tempfile.TemporaryDirectory() as workdir:
            readings = replay_sync(document, Path(workdir))
        change = (document.get("facts") or {}).get("limit_change")
        # No estimate can foresee a limit change: those runs count from the
        # first reading that shows the new limit.
        since = None if change is None else _first_reading_after(document, change["wall"])
        figures = accuracy(readings, since)
        figures["change"] = change
        figures.update(
            settling(readings, since)
            if since is not None
            else {"settle_s": None, "worst_after_pct": None, "worst_after_s": None, "truth_uncertainty_s": None}
        )
        results[run] = figures
    return results


def record(out_dir: Path = TRACE_DIR, runs: tuple[str, ...] = ()) -> None:
    """Boot the realmd VM once, run tests/realmd/guest_eta.py (``runs``, default all), save the traces."""
    from tests.realmd.guest_python import raidtop_python, reach_interpreter_script
    from tests.realmd.monitor_compare import save_results
    from tests.realmd.vm import run_in_guest

    python = raidtop_python()
    with tempfile.TemporaryDirectory() as results:
        guest = run_in_guest(
            reach_interpreter_script(python) + f"{python} -m tests.realmd.guest_eta {' '.join(runs)}\n",
            timeout=900,
            results_dir=Path(results),
        )
        if guest.returncode != 0:
            raise SystemExit(guest.describe_failure())
        for path in save_results(Path(results), "eta_", out_dir):
            print(f"wrote {path}")


def main() -> int:
    """Print the table (Markdown) for perf/RESULTS.md."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--record", action="store_true", help="record the runs in the realmd VM first")
    parser.add_argument("--runs", nargs="*", default=(), help="with --record: only these guest runs (default all)")
    args = parser.parse_args()
    if args.record:
        record(runs=tuple(args.runs))
    print(
        "| run | limit change | readings ≥25 % | raidtop MAE | finish= MAE | raidtop mean |err| | finish= mean |err| "
        "| settled ≤10 % after | worst after |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for run, f in evaluate().items():
        change = f["change"]
        described = (
            "none"
            if not change
            else f"{change['path'].rsplit('/', 1)[-1]} → {change['value']} at {100 * change['at_fraction']:.0f} %"
        )
        settle = "—" if f["settle_s"] is None else f"{f['settle_s']} s"
        worst = "—" if f["worst_after_pct"] is None else f"{f['worst_after_pct']} % ({f['worst_after_s']} s)"
        print(
            f"| {run} | {described} | {f['readings']} | {f['raidtop_pct']} % | {f['finish_pct']} % "
            f"| {f['raidtop_s']} s | {f['finish_s']} s | {settle} | {worst} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
