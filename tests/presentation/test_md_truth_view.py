"""What the screen makes of md's truth: one rate, held vs STALLED, the clocks, the row's notes, Explain's words."""

from __future__ import annotations

import os
import re
import time
from dataclasses import MISSING, fields
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from raidtop.collect.md import eta as mdeta, methods as mdmethods
from raidtop.collect.md.read import read_md
from raidtop.collect.md.eta import SyncModel
from raidtop.presentation.explain import TRUST_ETA, explain_array
from raidtop.presentation.md import eta_text, finish_clock, fit_notes, row_marks, sync_speed_cell, sync_speed_text
from raidtop.model.snapshot import DiskIO, Snapshot
from raidtop.model.md import NO_MD_DRIVER, MdArray, MdMember, MdSync
from raidtop.model.smart import SmartHealth
from raidtop.widgets.array_rows import array_columns, array_row, marks_of

README = (Path(__file__).resolve().parents[2] / "README.md").read_text()
ROOTS = Path(__file__).parent.parent / "data" / "md" / "roots"


@pytest.fixture(autouse=True)
def utc():
    old = os.environ.get("TZ")
    os.environ["TZ"] = "UTC"
    time.tzset()
    yield
    if old is None:
        del os.environ["TZ"]
    else:
        os.environ["TZ"] = old
    time.tzset()


def test_explain_and_readme_use_the_codes_own_constants():
    sync = MdSync("recover", 40.0, 400, 1000, 10, 60.0, 59.0, "raidtop", 10.0)
    snap = Snapshot(time=1.0, interval_s=1.0, arrays=(MdArray("md0", "raid1", "active", "degraded", 2, 1, sync=sync),))
    lines = {line.name: line for line in explain_array(snap, "md0").lines}
    assert lines["Speed"].formula == mdmethods.SPEED_METHOD and lines["ETA"].formula == mdmethods.ETA_METHOD
    assert lines["STALLED"].formula == mdmethods.STALL_METHOD
    assert f"{mdeta.SPEED_WINDOW_S:.0f} s" in mdmethods.SPEED_METHOD
    assert f"{mdeta.STALL_AFTER_S:.0f} s" in mdmethods.STALL_METHOD
    # The README states the same numbers where it describes them.
    speed = README[README.index("**Progress and speed.**") : README.index("**Held, not throttled.**")]
    assert f"over the last {mdeta.SPEED_WINDOW_S:.0f} s" in speed
    stall = README[README.index("**STALLED** is different") : README.index("**Since when degraded.**")]
    assert (
        f"not moved for {mdeta.STALL_AFTER_S:.0f} s" in stall
        and f"threshold is {mdeta.STALL_AFTER_COARSE_S:.0f} s" in stall
    )
    eta = README[README.index("**raidtop's ETA**") :]
    assert f"from the last {mdeta.HISTORY_S:.0f} s of" in eta
    assert TRUST_ETA in explain_array(snap, "md0").caveats


def test_md_bursts_never_read_zero_and_a_held_sync_names_its_limit():
    # md's shape after a lowered limit: 3 s of progress, then 20 s asleep, over and over.
    model, done, cells = SyncModel(), 0, []
    for t in range(120):
        if t % 23 < 3:
            done += 3000
        forecast = model.update(float(t), MdSync("resync", None, done, 10_000_000, 1000), limit=1000.0)
        cells.append(
            sync_speed_cell(
                MdSync(
                    "resync",
                    rate_kib_s=forecast.rate_kib_s,
                    stalled=forecast.stalled_s is not None,
                    stalled_s=forecast.stalled_s,
                )
            )
        )
    assert "0KiB/s" not in cells and not any(c.startswith("STALLED") for c in cells)
    assert forecast.held_by == "sync_speed_max" and forecast.held_limit_kib_s == 1000.0


def test_competing_io_holding_a_sync_at_its_minimum_is_named():
    model = SyncModel()
    for t in range(40):
        forecast = model.update(
            float(t), MdSync("recover", None, 1000 * t, 10_000_000, 1000), limit=200_000.0, minimum=1000.0, busy=True
        )
    assert (forecast.held_by, forecast.held_limit_kib_s) == ("sync_speed_min", 1000.0)
    quiet = SyncModel()
    for t in range(40):
        forecast = quiet.update(
            float(t), MdSync("recover", None, 1000 * t, 10_000_000, 1000), limit=200_000.0, minimum=1000.0, busy=False
        )
    assert forecast.held_by is None  # slow disks, nothing holds it
    sync = MdSync("recover", rate_kib_s=1000.0, held_by="sync_speed_min", held_limit_kib_s=1000.0)
    assert sync_speed_text(sync) == "1000KiB/s over 33 s, held by sync_speed_min = 1000KiB/s (competing I/O)"


@pytest.mark.parametrize("why", ["frozen", "read-only", "limit 0"])
def test_a_sync_that_is_not_meant_to_move_is_no_stall(why):
    sync = MdSync("resync", 50.0, 5000, 10_000, 0)
    array = MdArray(
        "md0",
        "raid1",
        "readonly" if why == "read-only" else "active",
        "ok",
        2,
        0,
        sync=sync,
        read_only=why == "read-only",
        sysfs_sync_action="frozen" if why == "frozen" else "resync",
        sync_speed_max=0 if why == "limit 0" else None,
        source="both",
    )
    tracker = mdeta.EtaTracker()
    for t in range(0, 200, 10):
        (out,) = tracker.apply([array], float(t))
    assert not out.sync.stalled
    tracker = mdeta.EtaTracker()
    for t in range(0, 200, 10):
        (moving,) = tracker.apply([MdArray("md0", "raid1", "active", "ok", 2, 0, sync=sync, source="both")], float(t))
    assert moving.sync.stalled and moving.sync.stalled_s == 190.0  # the control: nothing excuses it


def test_the_finish_clock_carries_the_date_when_not_today():
    now = 1_700_000_000.0  # Tue 14 Nov 2023 22:13:20 UTC
    assert finish_clock(600, now) == "≈ 22:23"
    assert finish_clock(3600, now) == "≈ 23:13"
    assert finish_clock(7200, now) == "≈ Wed 15 Nov 00:13"
    assert finish_clock(7200, now, short=True) == "≈ Wed 00:13"
    assert finish_clock(10 * 86400, now, short=True) == "≈ 24 Nov"
    assert eta_text(MdSync("recover", eta_s=600.0, eta_basis="raidtop"), now) == "10m00s ≈ 22:23"
    assert eta_text(MdSync("recover", stalled=True)) == "none while STALLED"


def disk_io(name: str, r_await_ms: float) -> DiskIO:
    unknown = {f.name: None for f in fields(DiskIO) if f.default is MISSING and f.name not in ("name", "kind")}
    return DiskIO(**(unknown | {"name": name, "kind": "part", "r_await_ms": r_await_ms}))


def the_whole_story() -> tuple[MdArray, dict[str, DiskIO], Snapshot]:
    """A stalled check on md9: one member SMART calls failing, one to watch that is also slow."""
    members = (MdMember("sda1", 0, ("in_sync",)), MdMember("sdb1", 1, ("in_sync",)), MdMember("sdc1", 2, ("in_sync",)))
    array = MdArray(
        "md9",
        "raid5",
        "clean",
        "ok",
        3,
        0,
        members=members,
        status="UUU",
        sync=MdSync("check", 10.0, 100, 1000, 0, stalled=True, stalled_s=240.0),
    )
    smart = {"sdb": SmartHealth("sdb", 0.0, "read", "failing"), "sdc": SmartHealth("sdc", 0.0, "read", "watch")}
    disks = {n: disk_io(n, w) for n, w in (("sda1", 2.0), ("sdb1", 2.0), ("sdc1", 90.0))}
    snap = Snapshot(
        time=100.0,
        interval_s=1.0,
        arrays=(array,),
        smart=smart,
        smart_disk_of={"sda1": ("sda",), "sdb1": ("sdb",), "sdc1": ("sdc",)},
    )
    return array, disks, snap


def test_the_array_row_tells_the_whole_story():
    array, disks, snap = the_whole_story()
    marks = marks_of(array, disks, snap)
    assert [text for text, _ in marks] == ["STALLED 4m", "sdb1 SMART FAIL", "sdc1 SMART watch", "sdc1 slow"]
    row = array_row(array, False, now=100.0, marks=marks)
    assert "STALLED 4m" in row.cells and row.cells[-1].startswith(" STALLED 4m · sdb1 SMART FAIL")
    assert row.styles[-1] == "warn"


def test_a_narrow_notes_column_cuts_at_a_word_and_explain_says_the_notes_whole():
    array, disks, snap = the_whole_story()
    columns, bar = array_columns(78)  # the Arrays panel's inside on an 80-column terminal
    notes = next(c for c in columns if c.key == "marks")
    cell = array_row(array, False, columns, bar, now=100.0, marks=marks_of(array, disks, snap)).cells[-1]
    assert notes.width == 10 and cell == " STALLED …"  # not "STALLED 4…": 4 what?
    # The whole text, for the row's Explain (x); a slow member is the member grid's (Enter) to name, on its basis.
    assert explain_array(snap, "md9").caveats[0] == "Notes: STALLED 4m · sdb1 SMART FAIL · sdc1 SMART watch."
    quiet = MdArray("md1", "raid1", "clean", "ok", 2, 0, members=array.members[:2], status="UU")
    assert not any(
        c.startswith("Notes") for c in explain_array(Snapshot(time=1.0, interval_s=1.0, arrays=(quiet,)), "md1").caveats
    )


@pytest.mark.parametrize(
    ("notes", "room", "shown"),
    [
        (["loop21 SMART FAIL", "degraded ≥2h07m"], 40, "loop21 SMART FAIL · degraded ≥2h07m"),
        (["loop21 SMART FAIL", "degraded ≥2h07m"], 20, "loop21 SMART FAIL …"),
        (["loop21 SMART FAIL"], 9, "loop21 …"),
        (["degraded ≥2h07m"], 9, "degraded…"),
        (["nvme10n1p12 slow"], 9, "…"),
        (["sdb slow"], 0, ""),
    ],
)
def test_notes_are_cut_after_a_whole_word_with_an_ellipsis(notes, room, shown):
    assert fit_notes(notes, room) == shown


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet="ab ≥·", min_size=1, max_size=12), min_size=1, max_size=4), st.integers(0, 50))
def test_cut_notes_fit_and_are_a_prefix_of_the_whole_ending_at_a_word(notes, room):
    whole, shown = " · ".join(notes), fit_notes(notes, room)
    assert len(shown) <= room
    if shown != whole and shown:
        assert shown.endswith("…")
        kept = shown.removesuffix("…").rstrip()
        assert whole.startswith(kept) and (kept == "" or whole[len(kept)] == " ")


def test_a_sparse_array_reads_as_such_and_a_degraded_one_says_since_when():
    arrays = {a.name: a for a in read_md(ROOTS / "qnap-sparse").arrays}
    row = array_row(arrays["md9"], False, now=0.0)
    assert row.cells[-1] == " 4/24 slots, by design" and row.styles[4] is None  # [UUUU___…] not in the warning tone
    degraded = MdArray(
        "md0", "raid1", "clean", "degraded", 2, 1, status="U_", degraded_since=0.0, degraded_since_basis="raidtop-start"
    )
    assert row_marks(degraded, 7500.0, set(), {}) == [("degraded ≥2h05m", "warn")]


def test_without_md_the_line_gives_the_next_step():
    assert "modprobe md_mod" in NO_MD_DRIVER and "raidtop --demo" in NO_MD_DRIVER
    assert len(re.findall(r"\. ", NO_MD_DRIVER)) == 0  # one sentence


def test_a_stall_is_a_warning_pop_up_with_the_bell_through_the_md_event_vocabulary():
    from raidtop.presentation.md_announcements import announcements
    from raidtop.model.md import MdEvent

    event = MdEvent(5.0, "md0", "SyncStalled", None, "resync has not moved at 23.4 % for 60 s")
    said, ring = announcements(Snapshot(time=5.0, interval_s=1.0, events=(event,)), frozenset())
    assert ring and [(a.title, a.severity) for a in said] == [("md0: SyncStalled", "warning")]
    assert said[0].text.startswith("sync STALLED: no progress") and said[0].text.endswith("for 60 s")
