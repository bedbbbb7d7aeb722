"""Issue 23: no number is ever cut or glued — every table of every screen, read back cell by cell.

Each entry of :data:`SCREENS` opens one screen with long names and large
values; the test renders it at four terminal sizes and, for every table on
screen, splits each painted line on the table's column boundaries and reads
each cell back against the text it was given:

* no two cells touch: a blank ends one or starts the next;
* a cell cut by the window's edge (a table scrolling sideways) is blank;
* a cell reads exactly its text, or, where that does not fit, its text cut
  with ``…`` (a prefix of it), or — for a number — a shorter form of the
  same number: equal to it at the precision shown (``21.3k`` for 21304).

The oracle parses numbers itself; it never calls the table's fitting code.
A new table is covered by adding one entry to SCREENS.
"""

from __future__ import annotations

import re
from dataclasses import fields, is_dataclass, replace
from pathlib import Path
from collections.abc import Awaitable, Callable

import pytest
from textual.widgets import DataTable

from raidtop.app.raidtop_app import RaidtopApp
from raidtop.config import Config
from raidtop.presentation.explain import Explanation, Line
from raidtop.model.smart import SmartAttribute, SmartHealth
from raidtop.screens.explain import ExplainScreen
from raidtop.screens.smart import SmartScreen
from raidtop.screens.tuning.dialogs import ChangeLogScreen
from raidtop.untrusted import plain
from raidtop.widgets.table_cells import fit_widths
from raidtop.widgets.text_table import Row, TextTable

from tests.conftest import DATA

SIZES = ((80, 24), (100, 30), (120, 40), (200, 60))
LONG_NAMES = {
    "loop20": "nvme10n1p1234",
    "loop21": "dm-raid-component-long-2",
    "loop23": "sdaa1",
    "loop24": "nvme0n1",
    "md0": "md_data_archive_0",
}
"""The demo's names swapped for long ones, everywhere in the snapshot (keys, members, disks, events)."""

_NUMBER = re.compile(r"(?P<num>[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?)(?P<space>\s?)(?P<unit>\S*)")
_BINARY = "KMGTPE"
_SI = {"k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18}


# ------------------------------------------------------------------ the oracle


def _number(text: str) -> tuple[float, float, str] | None:
    """(value, half a unit of the last digit shown, unit) of ``text``, or None if it is no number."""
    match = _NUMBER.fullmatch(text)
    if match is None:
        return None
    digits = match["num"].replace(",", "")
    mantissa = digits.lower().split("e")[0]
    places = len(mantissa.split(".")[1]) if "." in mantissa else 0
    exponent = int(digits.lower().split("e")[1]) if "e" in digits.lower() else 0
    return float(digits), 0.5 * 10.0 ** (exponent - places), match["space"] + match["unit"]


def _scale(unit: str, was_binary: bool) -> tuple[float, str]:
    """The multiplier a unit's prefix stands for, and the unit without it."""
    bare = unit.lstrip()
    if len(bare) >= 3 and bare[0] in _BINARY and bare[1:].startswith("iB"):
        return 1024.0 ** (_BINARY.index(bare[0]) + 1), bare[2:]
    if bare and bare[0] in _BINARY and was_binary:
        return 1024.0 ** (_BINARY.index(bare[0]) + 1), bare[1:]
    if bare and bare[0] in _SI and not was_binary and bare[1:] == "":
        return _SI[bare[0]], ""
    return 1.0, bare


def reads_back(given: str, shown: str, width: int = 0) -> bool:
    """Whether a painted cell ``shown`` is ``given``, cut with …, or the same number shorter."""
    given = plain(given).strip()
    if shown == given:
        return True
    if shown == "…" and _number(given) is not None:
        return width < 8  # a number hidden whole, where a short form (21.3k, 2.4 GiB) had room, is a fault
    if shown.endswith("…"):
        return given.startswith(shown[:-1]) and len(shown) <= len(given)
    original, written = _number(given), _number(shown)
    if original is None or written is None or len(shown) > len(given) or re.match(r"[-+]?0\d", shown):
        return False  # a shorter form is never longer, and never has a leading zero (a glued "0" + "8")
    binary = original[2].lstrip()[:1] in tuple(_BINARY)
    scale_given, unit_given = _scale(original[2], binary)
    scale_shown, unit_shown = _scale(written[2], binary)
    if unit_given != unit_shown:
        return False
    value, shown_value = original[0] * scale_given, written[0] * scale_shown
    # The shorter form is the number rounded to the digits it shows.
    return abs(value - shown_value) <= written[1] * scale_shown * 1.0001 + original[1] * scale_given


# ------------------------------------------------------------------ reading tables off the screen


def _line_text(strip) -> str:
    return "".join(segment.text for segment in strip)


def check_text_table(table: TextTable) -> list[str]:
    """Every visible cell of ``table``, split on its column boundaries and read back; returns the faults."""
    faults, checked = [], 0
    widths = getattr(table, "column_widths", [c.width for c in table.columns])
    scroll_x, scroll_y = table.scroll_offset
    window = table.scrollable_content_region.width
    scrolls = table.show_horizontal_scrollbar and table.styles.scrollbar_size_horizontal > 0
    top = 1 if table.show_header else 0
    lines = []
    if top:
        lines.append(("header", [c.label for c in table.columns]))
    for y in range(top, table.scrollable_content_region.height):
        index = scroll_y + y - top
        if index < table.row_count:
            row: Row = table._row(index)
            lines.append((y, list(row.cells)))
    for y, cells in lines:
        text = _line_text(table.render_line(0 if y == "header" else y))
        start = 0
        for i, width in enumerate(widths):
            given = cells[i] if i < len(cells) else ""
            left, right = start - scroll_x, start + width - scroll_x
            start += width
            if left < 0 or right > window:
                # Cut by the window's edge (the table scrolls sideways to it): not drawn at all,
                # so no part of a number ("0.0" of "0.00") is ever on screen.
                part = text[max(0, left) : min(window, right)]
                if part.strip():
                    faults.append(f"{table.id} line {y} col {i}: {given!r} half drawn at the window's edge as {part!r}")
                elif given.strip() and not scrolls and widths != fit_widths(table.columns, window):
                    # A table that hides its scrollbar shows the columns that fit: all of them it can.
                    faults.append(
                        f"{table.id} line {y} col {i}: {given!r} out of view, yet the columns could narrow to fit"
                    )
                continue
            cell = text[left:right]
            checked += 1
            if i > 0 and left > 0 and text[left - 1] != " " and not cell.startswith(" "):
                faults.append(
                    f"{table.id} line {y} col {i}: glued to its left neighbour: {text[max(0, left - 8) : right]!r}"
                )
            shown = cell.strip()
            if y == "header":
                shown = shown.rstrip("▲▼")
            if not reads_back(given, shown, width):
                faults.append(f"{table.id} line {y} col {i}: {given!r} painted as {shown!r}")
    assert checked or not lines, f"{table.id}: no cell fully on screen"
    return faults


def check_data_table(table: DataTable) -> list[str]:
    """A DataTable sizes columns to their content: each cell must read back whole."""
    faults = []
    widths = [column.get_render_width(table) for column in table.ordered_columns]
    for y in range(min(table.row_count, table.scrollable_content_region.height - 1)):
        row_key = table.ordered_rows[y].key
        values = table.get_row(row_key)
        text = _line_text(table.render_line(y + 1))
        start = -table.scroll_offset.x
        for i, width in enumerate(widths):
            left, right = start, start + width
            start += width
            if left < 0 or right > table.scrollable_content_region.width:
                continue
            given = str(getattr(values[i], "plain", values[i]))
            if not reads_back(given, text[left:right].strip(), width):
                faults.append(f"{table.id} row {y} col {i}: {given!r} painted as {text[left:right]!r}")
    return faults


def check_screen(app) -> tuple[int, list[str]]:
    """(tables checked, faults) for every table shown on the current screen."""
    faults, tables = [], 0
    for table in app.screen.query(TextTable):
        if table.display and table.region.width > 0 and table.region.height > 0 and table.visible:
            tables += 1
            faults += check_text_table(table)
    for table in app.screen.query(DataTable):
        if table.region.width > 0 and table.region.height > 1:
            tables += 1
            faults += check_data_table(table)
    return tables, faults


# ------------------------------------------------------------------ the screens, each with long names and large values


def _renamed(value, names: dict[str, str]):
    """``value`` (a snapshot, or anything in it) with every whole-word name in ``names`` swapped."""
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, sorted(names, key=len, reverse=True))) + r")\b")

    def walk(v):
        if isinstance(v, str):
            return pattern.sub(lambda m: names[m.group(1)], v)
        if is_dataclass(v) and not isinstance(v, type):
            return replace(v, **{f.name: walk(getattr(v, f.name)) for f in fields(v) if f.init})
        if isinstance(v, tuple):
            return tuple(walk(x) for x in v)
        if isinstance(v, list):
            return [walk(x) for x in v]
        if isinstance(v, frozenset):
            return frozenset(walk(x) for x in v)
        if isinstance(v, dict):
            return {walk(k): walk(x) for k, x in v.items()}
        return v

    return walk(value)


def big_rebuild(bad_survivor: bool = True) -> list:
    """The screenshots' rebuilding raid5 with long member and array names.

    Its 60000.00 kB/s need shortening in the member grid.
    """
    from screenshots.make_screenshots import rebuilding_snapshots

    return [_renamed(s, LONG_NAMES) for s in rebuilding_snapshots(bad_survivor=bad_survivor)]


def dashboard_app(_tmp: Path) -> RaidtopApp:
    return RaidtopApp(Config(root=DATA / "root1", autostart_sampler=False))


async def feed_rebuild(pilot) -> None:
    for snap in big_rebuild():
        pilot.app.apply_snapshot(snap)
    await pilot.pause()


def keys(*pressed: str) -> Callable:
    async def prepare(pilot) -> None:
        await feed_rebuild(pilot)
        await pilot.press(*pressed)
        await pilot.pause()

    return prepare


SMART_READING = SmartHealth(
    "nvme10n1p1234",
    1_700_000_000.0,
    "read",
    "failing",
    (),
    model="WDC WD40EFRX-68N32N0 with a very long model name",
    attributes=(
        SmartAttribute(5, "Reallocated_Sector_Ct", 100, 100, 10, 0, "0"),
        SmartAttribute(9, "Power_On_Hours", 71, 71, 0, 21304, "21304"),
        SmartAttribute(197, "Current_Pending_Sector", 100, 200, 0, 8, "8"),
        SmartAttribute(198, "Offline_Uncorrectable_Sectors_With_A_Long_Name", 100, 100, 0, 4294967295, "4294967295"),
        SmartAttribute(
            194, "Temperature_Celsius", 253, 253, 0, 12345678901234, "34 (Min/Max 20/45 and a long tail of words)"
        ),
    ),
)


async def smart_screen(pilot) -> None:
    await feed_rebuild(pilot)
    snap = pilot.app.live.latest
    pilot.app.live.latest = replace(snap, smart={**snap.smart, "nvme10n1p1234": SMART_READING})
    await pilot.app.push_screen(SmartScreen("nvme10n1p1234"))
    await pilot.pause()


async def tuning_log(pilot) -> None:
    rows = [
        Row(
            str(i),
            (
                "2026-11-26 18:04:30",
                "nvme10n1p1234",
                "queue/scheduler",
                "[mq-deadline] kyber bfq none",
                "mq-deadline",
                "echo mq-deadline > /sys/block/nvme10n1p1234/queue/scheduler: refused",
            ),
            ("dim", None, None, "dim", None, None),
        )
        for i in range(3)
    ]
    await pilot.app.push_screen(ChangeLogScreen(rows, "/var/log/raidtop/actions.log"))
    await pilot.pause()


async def explain_long(pilot) -> None:
    await feed_rebuild(pilot)
    lines = (
        Line(
            "loop20 length",
            "component_size × 1024 (a rebuild reads it all from every survivor)",
            "4294967296 × 1024",
            "4398046511104",
        ),
        Line("Speed", "Δcompleted / Δt over the last 30 s", "(123456789 − 23456789) × 512 / 30.0", "1706666666.67"),
    )
    await pilot.app.push_screen(ExplainScreen(Explanation("md_data_archive_0: rebuild risk", lines)))
    await pilot.pause()


async def tuning_screen(pilot) -> None:
    from tests.screens.tuning.test_tuning_screen import open_tuning

    await open_tuning(pilot, pilot.app._readback_root, pilot.app._readback_session, array="md6")


def tuning_app(tmp: Path) -> RaidtopApp:
    from raidtop.actions.action_log import ActionLog
    from raidtop.actions.tuning import TuningSession
    from tests.screens.tuning.test_tuning_screen import tuning_root

    root = tuning_root(tmp)
    app = RaidtopApp(Config(root=root, autostart_sampler=False))
    app._readback_root = root
    app._readback_session = TuningSession(root, ActionLog(tmp / "log"), privileged=True)
    return app


async def bench_comparison(pilot) -> None:
    from raidtop.actions.fio.prefs import BenchPrefs, save_prefs
    from raidtop.actions.fio.store import RunStore
    from raidtop.screens.bench.screen import BenchScreen
    from tests.screens.bench.test_bench_screen import store_comparison

    tmp = pilot.app._readback_tmp
    history = RunStore(tmp / "data" / "raidtop" / "bench.sqlite")
    base, _faster, _similar = store_comparison(history)
    history.set_baseline(base.id)
    save_prefs(BenchPrefs("/srv/a/very/long/benchmark/target/directory/on/nvme10n1p1234", 15))
    presets = tmp / "presets.toml"
    presets.write_text("")
    await feed_rebuild(pilot)
    await pilot.app.push_screen(BenchScreen(history=history, presets_file=presets, fio_path="/usr/bin/fio"))
    for _ in range(3):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
    await pilot.press("c", "down")
    await pilot.pause()


def app_with_tmp(tmp: Path) -> RaidtopApp:
    app = dashboard_app(tmp)
    app._readback_tmp = tmp
    return app


def lab_app(tmp: Path) -> RaidtopApp:
    import shutil

    from raidtop.actions.action_log import ActionLog
    from raidtop.actions.lab.core import Lab
    from tests.screens.lab.test_lab_screen import CAPTURED_AT, FIXTURE, RecordingRunner

    root = tmp / "root"
    shutil.copytree(FIXTURE / "root", root, symlinks=True)
    shutil.copytree(FIXTURE / "lab", tmp / "labdir" / "lab")
    shutil.copy(FIXTURE / "actions.log", tmp / "actions.log")
    app = RaidtopApp(Config(root=root, autostart_sampler=False))
    app._readback_lab = Lab(
        tmp / "labdir" / "lab",
        root=root,
        runner=RecordingRunner(ActionLog(tmp / "actions.log")),
        euid=0,
        which=lambda name: f"/usr/sbin/{name}",
        clock=lambda: CAPTURED_AT,
    )
    return app


async def lab_screen(pilot) -> None:
    from raidtop.screens.lab.screen import LabScreen
    from tests.screens.lab.test_lab_screen import READY

    await pilot.app.push_screen(LabScreen(pilot.app._readback_lab, environment=READY, read_only=False))
    for _ in range(3):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()


def fleet_app(_tmp: Path):
    from raidtop.app.fleet_app import FleetApp
    from tests.fleet.fleet_data import StaticSource, sample_fleet

    return FleetApp(StaticSource(sample_fleet()), "http://prometheus:9090", interval_s=3600)


async def fleet_screen(pilot) -> None:
    await pilot.pause(0.5)


ScreenCase = tuple[Callable[[Path], object], Callable[[object], Awaitable[None]]]
SCREENS: dict[str, ScreenCase] = {
    "dashboard, member grid open": (dashboard_app, keys("enter")),
    "dashboard, every device": (dashboard_app, keys("a")),
    "dashboard, disks and CPU tabs": (dashboard_app, keys("tab", "tab")),
    "array detail": (dashboard_app, keys("d")),
    "event timeline": (dashboard_app, keys("e")),
    "explain an array": (dashboard_app, keys("x")),
    "explain long lines": (dashboard_app, explain_long),
    "SMART attributes": (dashboard_app, smart_screen),
    "tuning": (tuning_app, tuning_screen),
    "tuning change log": (dashboard_app, tuning_log),
    "benchmarks": (app_with_tmp, bench_comparison),
    "lab": (lab_app, lab_screen),
    "fleet": (fleet_app, fleet_screen),
}
"""One entry per screen: how to make its app, then how to open the screen."""


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
@pytest.mark.parametrize("case", list(SCREENS))
async def test_every_cell_reads_back(case: str, size: tuple[int, int], tmp_path: Path, monkeypatch):
    for kind in ("DATA", "CONFIG", "STATE"):
        monkeypatch.setenv(f"XDG_{kind}_HOME", str(tmp_path / kind.lower()))
    make_app, prepare = SCREENS[case]
    app = make_app(tmp_path)
    async with app.run_test(size=size) as pilot:
        await prepare(pilot)
        await pilot.pause()
        tables, faults = check_screen(app)
    assert tables, f"{case}: no table on screen"
    assert not faults, "\n".join(faults[:20])


@pytest.mark.parametrize(
    ("given", "shown", "ok"),
    [
        ("21304", "21304", True),
        ("21304", "21.3k", True),
        ("21304", "21k", True),
        ("21304", "213", False),
        ("021304", "21k", True),
        ("8", "08", False),
        ("60000.00", "60000.0", True),
        ("60000.00", "6000", False),
        ("1279K/s", "1.2M/s", True),
        ("1279K/s", "1279", False),
        ("mq-deadline", "mq-dead…", True),
        ("mq-deadline", "mq-deadli", False),
        ("4294967295", "4.3G", True),
        ("4294967295", "4.2G", False),
        ("2576980992 B", "2.4 GiB", True),
        ("2576980992 B", "2576980992", False),
        ("21304", "…", False),
    ],
)
def test_the_oracle_tells_a_shorter_number_from_a_cut_one(given: str, shown: str, ok: bool):
    assert reads_back(given, shown, 10) is ok
