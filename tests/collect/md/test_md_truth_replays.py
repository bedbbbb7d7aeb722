"""Issue 23 on real-kernel recordings (tests/data/realmd, Debian's 6.1 in the realmd VM).

The Speed cell never reads 0 while md advanced inside its window, md's own
sleep after a lowered limit is "held by sync_speed_max", not STALLED; a sync
whose files stop moving is STALLED after a minute, raises SyncStalled once and
is exported; the ETA settles within 10 % after a raise and a lowering; raid0
losing a member raises ArrayFailed alone, and its layout -1 is no note.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from raidtop.collect.md.eta import SPEED_WINDOW_S, STALL_AFTER_S
from raidtop.collect.sampler import Sampler
from raidtop.collect.source import Root
from raidtop.presentation.md import sync_speed_cell
from tests.realmd.monitor_compare import read_any_trace
from tests.realmd.scenario_trace import TRACE_DIR
from tests.realmd.trace import materialize

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "perf"))
from eta_accuracy import evaluate  # noqa: E402


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def replay(path: Path, workdir: Path) -> list:
    """Per recorded step, the Sampler's snapshot."""
    return replay_steps([(step["sampled_at"], step) for step in read_any_trace(path)["steps"]], workdir)


def replay_steps(steps, workdir: Path) -> list:
    """Per ``(time, step)``, the Sampler's snapshot of that step's files at that time."""
    clock, sampler, snaps = Clock(), None, []
    for index, (when, step) in enumerate(steps):
        root = materialize(step, workdir / f"{index:04d}")
        clock.now = when
        if sampler is None:
            sampler = Sampler(root, clock=clock)
        else:
            sampler.root = Root(root)
        snaps.append(sampler.sample())
    return snaps


def syncing(snaps):
    for snap in snaps:
        for array in snap.arrays:
            if array.sync is not None and array.sync.running and array.sync.done_kib is not None:
                yield snap.time, array


@pytest.mark.parametrize(
    "run", ["eta_lowered", "eta_lowered_early", "eta_raised", "eta_raised_burst", "eta_constant_raid1"]
)
def test_the_speed_cell_never_reads_zero_while_md_advanced_inside_its_window(run, tmp_path):
    rows = list(syncing(replay(TRACE_DIR / f"{run}.json.xz", tmp_path)))
    assert len(rows) > 10
    for when, array in rows:
        moved = any(t >= when - SPEED_WINDOW_S and a.sync.done_kib < array.sync.done_kib for t, a in rows if t < when)
        cell = sync_speed_cell(array.sync)
        if moved:
            assert cell not in ("0KiB/s", "0.0MiB/s") and not cell.startswith("STALLED"), (run, when, cell)
        assert not array.sync.stalled  # md's own sleeps (up to ~20 s here) are no stall


def test_mds_sleep_after_a_lowered_limit_is_held_by_sync_speed_max_with_its_value(tmp_path):
    rows = list(syncing(replay(TRACE_DIR / "eta_lowered.json.xz", tmp_path)))
    # The recording lowers sync_speed_max to 1000 KiB/s; md then sleeps ~20 s with its count still.
    still = [
        a for (t, a), (_, b) in zip(rows, rows[1:]) if a.sync.done_kib == b.sync.done_kib and a.sync_speed_max == 1000
    ]
    assert len(still) >= 10
    assert all((a.sync.held_by, a.sync.held_limit_kib_s) == ("sync_speed_max", 1000.0) for a in still)


def test_a_real_kernel_sync_held_for_80_s_is_stalled_a_minute_after_it_stopped(tmp_path):
    # Recorded in the VM (tests/realmd/guest_eta.py "stalled"): a raid1 check held at sync_max
    # half way for 80 s, then released; md's files stop exactly as with a hung member.
    snaps = replay(TRACE_DIR / "eta_stalled.json.xz", tmp_path)
    rows = [(s, a) for s in snaps for a in s.arrays if a.name == "md47" and a.sync is not None and a.sync.running]
    last_move = max(s.time for (_, a), (s, b) in zip(rows, rows[1:]) if b.sync.done_kib > a.sync.done_kib)
    stalled = [(s, a) for s, a in rows if a.sync.stalled]
    assert stalled, "the 80 s hold was never called STALLED"
    first = stalled[0][0].time
    assert STALL_AFTER_S <= first - last_move < STALL_AFTER_S + 1.5  # the first reading a minute after
    assert all(s.time >= first for s, _ in stalled) and len(stalled) >= 15
    assert {sync_speed_cell(a.sync) for _, a in stalled} == {"STALLED 1m"}
    assert all(a.sync.eta_s is None and a.sync.held_by is None for _, a in stalled)
    events = [(s.time, e.event) for s in snaps for e in s.events if e.array == "md47"]
    assert [t for t, e in events if e == "SyncStalled"] == [first]
    assert "CheckFinished" in [e for _, e in events]  # released, it finished
    assert "DegradedArray" not in [e for _, e in events]
    # Before the stall, md's own speed figure decays while nothing moves: never read as STALLED.
    assert not any(a.sync.stalled for s, a in rows if s.time < last_move + STALL_AFTER_S)


def test_files_that_stop_moving_make_a_stall_after_a_minute_with_one_event(tmp_path):
    # The real raid1 resync, then its md files frozen at a mid-sync step for 90 s more, as a
    # member whose I/O hangs (a suspended dm table) leaves them: mdstat's position stops.
    document = read_any_trace(TRACE_DIR / "eta_constant_raid1.json.xz")
    steps = document["steps"]
    middle = next(
        i for i, s in enumerate(steps) if "resync =" in s["files"].get("/proc/mdstat", "") and i > len(steps) // 3
    )
    frozen = steps[middle]
    start = frozen["sampled_at"]
    recorded = [(step["sampled_at"], step) for step in steps[: middle + 1]]
    snaps = replay_steps(recorded + [(start + k, frozen) for k in range(1, 91)], tmp_path)
    rows = [(s.time - start, a, s) for s in snaps for a in s.arrays if a.sync is not None and a.sync.running]
    moved = max(t for (_, a, _), (t, b, _) in zip(rows, rows[1:]) if b.sync.done_kib > a.sync.done_kib)
    stalled = [(t, a) for t, a, _ in rows if a.sync.stalled]
    first = min(t for t, _, _ in rows if t >= moved + STALL_AFTER_S)  # the first reading a minute after the last move
    assert stalled and min(t for t, _ in stalled) == first
    assert all(a.sync.eta_s is None for _, a in stalled)  # no pace, no ETA
    last = stalled[-1][1]
    assert sync_speed_cell(last.sync) == "STALLED 1m" and last.sync.stalled_s == round(90.0 - moved, 1)
    events = [e for _, _, s in rows for e in s.events if e.event == "SyncStalled"]
    assert len(events) == 1 and events[0].time == start + first


@pytest.fixture(scope="module")
def eta_figures():
    return evaluate()


@pytest.mark.parametrize("run", ["raised", "lowered_early", "lowered"])
def test_the_eta_settles_within_ten_percent_in_five_seconds_after_a_limit_change(run, eta_figures):
    figures = eta_figures[run]
    assert figures["settle_s"] is not None and figures["settle_s"] <= 5.0, figures
    assert figures["worst_after_pct"] <= 10.0 or figures["worst_after_s"] <= figures["truth_uncertainty_s"], figures


def test_raid0_losing_a_member_is_array_failed_only_and_its_layout_is_no_note(tmp_path):
    snaps = replay(TRACE_DIR / "monitor_raid0_broken.json.xz", tmp_path)
    events = [e.event for s in snaps for e in s.events if e.array == "md33"]
    assert "ArrayFailed" in events and "DegradedArray" not in events
    assert not [n for s in snaps for n in s.notes if "layout" in n]


def test_the_demos_recorded_rebuild_no_longer_flickers_to_zero():
    # The case: md6 read 55.4% 1279K/s -> 0K/s -> 1789K/s -> 0K/s while the percent climbed.
    from raidtop.collect.recording.replayer import Replayer, load_for_replay

    replayer = Replayer(load_for_replay(Path(__file__).resolve().parents[3] / "raidtop/demo/data/rebuild.xz"))
    cells = [
        sync_speed_cell(a.sync)
        for i in range(len(replayer))
        for a in replayer.snapshot_at(i).arrays
        if a.sync is not None and a.sync.running and a.sync.percent is not None
    ]
    assert len(cells) > 30 and "0KiB/s" not in cells and not any(c.startswith("STALLED") for c in cells)


def test_mdadm_sends_milestones_for_a_check_and_raidtop_by_decision_does_not(tmp_path):
    # Recorded beside mdadm 4.2's --monitor in the VM (tests/realmd/guest_monitor.py check_milestones).
    path = TRACE_DIR / "monitor_check_milestones.json.xz"
    document = read_any_trace(path)
    mdadm = [e["event"] for e in document["mdadm_events"]]
    assert mdadm[-6:] == ["RebuildStarted", "Rebuild31", "Rebuild50", "Rebuild61", "Rebuild80", "RebuildFinished"]
    snaps = replay(path, tmp_path)
    ours = [e.event for s in snaps for e in s.events if e.array == "md35"]
    assert ours[-2:] == ["CheckStarted", "CheckFinished"]
    assert not [e for e in ours[ours.index("CheckStarted") :] if e.startswith("Rebuild")]
