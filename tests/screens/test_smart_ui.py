"""Pilot tests of SMART on the dashboard: Health columns, the rebuild-risk banner, the SMART screen, the demo key."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

from raidtop.app.raidtop_app import RaidtopApp
from raidtop.collect.sampler import Sampler
from raidtop.presentation.smart_events import HealthTracker
from raidtop.config import Config
from raidtop.model.smart import SmartAttribute, SmartHealth, SmartReason
from raidtop.screens.explain import ExplainScreen
from raidtop.screens.smart import SmartScreen
from raidtop.widgets.risk_banner import RiskBanner
from raidtop.widgets.text_table import TextTable

MDSTAT = Path(__file__).resolve().parent.parent / "data" / "md" / "mdstat"
HOSTILE_MODEL = "\x1b]0;pwned\x07[red]Evil[/] \x1b[2J"


def reading(disk: str, verdict: str, state: str = "read", **fields) -> SmartHealth:
    reasons = (SmartReason(verdict, "8 pending sectors", "test"),) if verdict in ("watch", "failing") else ()
    return SmartHealth(disk, 1_700_000_000.0, state, verdict, reasons, **fields)


def cell(app: RaidtopApp, table_id: str, key: str, label: str) -> str:
    table = app.screen.query_one(f"#{table_id}", TextTable)
    at = [c.label for c in table.columns].index(label)
    return next(r.cells[at] for r in table.rows if r.key == key)


def degraded_raid5(tmp_path: Path, **verdicts: str):
    """pymdstat's mdstat.03 (md0 raid5 [4/3] on sda1, sdb1, sdd1) with SMART readings, judged as the sampler does."""
    (tmp_path / "proc").mkdir(parents=True)
    shutil.copy(MDSTAT / "nicolargo-pymdstat__mdstat.03", tmp_path / "proc" / "mdstat")
    snap = Sampler(tmp_path).sample()
    # mdstat alone has no component size; sysfs would say 1465151808 KiB / 3 data disks.
    snap = replace(snap, arrays=tuple(replace(a, component_size_kib=488_383_936) for a in snap.arrays))
    smart = {d: reading(d, v, pending_sectors=8 if v == "watch" else 0) for d, v in verdicts.items()}
    disk_of = {"sda1": ("sda",), "sdb1": ("sdb",), "sdd1": ("sdd",)}
    return tmp_path, HealthTracker().apply(replace(snap, smart=smart, smart_disk_of=disk_of))


async def test_health_column_in_disks(static_config, sample_snapshot):
    snap = replace(
        sample_snapshot,
        smart={
            "sdq": reading("sdq", "ok"),
            "sdr": reading("sdr", "failing"),
            "sda": reading("sda", "unknown", "standby"),
        },
    )
    app = RaidtopApp(static_config)
    async with app.run_test(size=(140, 40)) as pilot:
        app.apply_snapshot(snap)
        await pilot.pause()
        assert cell(app, "disk-table", "sdq", "Health") == "✓ ok"
        assert cell(app, "disk-table", "sdr", "Health") == "✗ FAIL"
        assert cell(app, "disk-table", "sda", "Health") == "◌ standby"
        others = [
            r.key for r in app.screen.query_one("#disk-table", TextTable).rows if r.key not in ("sdq", "sdr", "sda")
        ]
        assert others and all(cell(app, "disk-table", k, "Health") == "—" for k in others)


async def test_member_grid_health_and_the_banner_shown_then_hidden(tmp_path):
    root, risky = degraded_raid5(tmp_path, sda="ok", sdb="watch", sdd="ok")
    app = RaidtopApp(Config(root=root, autostart_sampler=False))
    async with app.run_test(size=(160, 40)) as pilot:
        app.apply_snapshot(risky)
        await pilot.pause()
        banner = app.screen.query_one(RiskBanner)
        assert banner.display and banner.region.height >= 1
        (line,) = banner.lines
        assert line.startswith(
            "⚠ md0 degraded: its last copy of your data sits on sdb (8 pending sectors) — "
            "back up now; prefer mdadm --replace"
        )
        # 488383936 KiB = 5.0011e11 bytes = 4.0008e12 bits: 1 − e^−0.040008 = 3.9 %.
        assert (
            "· 465.8 GiB left to read · 3.9 % chance of a read error at 1 in 10^14 bits (assumed) · x explains" in line
        )
        await pilot.press("enter")  # into md0's member grid
        assert cell(app, "member-table", "md0/sdb1", "Health") == "▲ watch"
        assert cell(app, "member-table", "md0/sda1", "Health") == "✓ ok"
        await pilot.press("x")
        assert isinstance(app.screen, ExplainScreen)
        names = [line.name for line in app.screen.explanation.lines]
        assert "sdb URE" in names and "sdb left" in names
        # 488383936 KiB as a size, never the raw 500105150464 bytes.
        left = next(line for line in app.screen.explanation.lines if line.name == "sdb left")
        assert left.result == "465.8 GiB (500,105,150,464 B)"  # the size people read, the exact count beside it
        assert "500105150464" not in app.export_screenshot()
        assert any("errors are independent" in c for c in app.screen.explanation.caveats)
        await pilot.press("escape")
        _root, healthy = degraded_raid5(tmp_path / "again", sda="ok", sdb="ok", sdd="ok")
        app.apply_snapshot(healthy)
        await pilot.pause()
        assert not banner.display and banner.region.height == 0


async def test_smart_screen_shows_raw_values_and_a_hostile_model_as_plain_text(static_config, sample_snapshot):
    attributes = (
        SmartAttribute(197, "Current_Pending_Sector", 100, 100, 0, 8, "8"),
        SmartAttribute(194, "Temperature_Celsius", 114, 103, 0, 36, "36 (Min/Max 19/47)"),
    )
    sdr = reading(
        "sdr",
        "watch",
        model=HOSTILE_MODEL,
        serial="ZA1\x9b31m",
        attributes=attributes,
        exit_status=64,
        exit_meanings=("bit 6: the device error log contains records of errors",),
    )
    snap = replace(sample_snapshot, smart={"sdr": sdr})
    app = RaidtopApp(static_config)
    async with app.run_test(size=(160, 40)) as pilot:
        app.apply_snapshot(snap)
        await pilot.press("tab")  # the Disks panel
        app.screen.query_one("#disk-table", TextTable).move_cursor_to_key("sdr")
        await pilot.press("h")
        assert isinstance(app.screen, SmartScreen) and app.screen.disk == "sdr"
        attrs = {r.cells[1]: r.cells for r in app.screen.query_one("#smart-attributes", TextTable).rows}
        assert attrs["Current_Pending_Sector"][5] == "8"
        assert attrs["Temperature_Celsius"][5] == "36 (Min/Max 19/47)"
        summary = {r.cells[0]: r.cells[1] for r in app.screen.query_one("#smart-summary", TextTable).rows}
        assert summary["Model"] == "\ufffd]0;pwned\ufffd[red]Evil[/] \ufffd[2J"
        assert summary["Serial"] == "ZA1\ufffd31m"
        assert summary["Verdict"] == "▲ watch" and summary["  because"] == "8 pending sectors"
        assert summary["  bit means"].startswith("bit 6")
        screen_text = app.export_screenshot()
        assert "[red]Evil[/]" in screen_text and "\x1b]0;" not in screen_text
        await pilot.press("escape")
        assert app.screen is app.dashboard


async def test_h_on_a_member_opens_its_disk(tmp_path):
    root, snap = degraded_raid5(tmp_path, sda="ok", sdb="watch", sdd="ok")
    app = RaidtopApp(Config(root=root, autostart_sampler=False))
    async with app.run_test(size=(160, 40)) as pilot:
        app.apply_snapshot(snap)
        await pilot.press("enter")
        app.screen.query_one("#member-table", TextTable).move_cursor_to_key("md0/sdb1")
        await pilot.press("h")
        assert isinstance(app.screen, SmartScreen) and app.screen.disk == "sdb"


async def test_the_array_detail_has_a_smart_section(tmp_path):
    from raidtop.screens.array_detail import ArrayDetailScreen

    root, snap = degraded_raid5(tmp_path, sda="ok", sdb="watch", sdd="ok")
    app = RaidtopApp(Config(root=root, autostart_sampler=False))
    async with app.run_test(size=(160, 40)) as pilot:
        app.apply_snapshot(snap)
        await pilot.press("d")
        assert isinstance(app.screen, ArrayDetailScreen)
        rows = {r.key: r.cells for r in app.screen.query_one("#detail-smart", TextTable).rows}
        assert rows["sdb1/sdb"][2] == "▲ watch"
        assert rows["sdb1/sdb"][3].startswith("8 pending sectors · ")
        assert rows["sda1/sda"][2] == "✓ ok"


async def _wait(pilot, condition, tries: int = 400) -> None:
    for _ in range(tries):  # bounded wait for the sampler worker, not a timing assertion
        if condition():
            return
        await pilot.pause(0.05)


async def test_demo_key_makes_a_survivor_go_bad_and_raises_the_banner():
    app = RaidtopApp(Config(demo=True, interval=0.5))
    async with app.run_test(size=(160, 40)) as pilot:
        await _wait(pilot, lambda: app.live.latest is not None and app.live.latest.smart)
        snap = app.live.latest
        assert all(h.verdict == "ok" for h in snap.smart.values())  # the demo's disks are healthy
        banner = app.screen.query_one(RiskBanner)
        assert not banner.display
        sim = app.demo.sim
        sim.advance(sim.component_kib)  # finish the initial build: md9 whole
        await _wait(
            pilot,
            lambda: app.live.latest.arrays[0].health == "ok" if app.live.latest.arrays else False,
        )
        await pilot.press("B")
        bad = next(m.name for m in sim.members if m.name in app.demo.smart._bad)
        other = next(m.name for m in sim.members if m.name != bad)
        app.screen.query_one("#member-table", TextTable).move_cursor_to_key(f"md9/{other}")
        await pilot.press("f")  # fail another member: md9 degraded, its last copy on the bad disk
        await _wait(pilot, lambda: banner.display)
        assert banner.display
        assert any(f"sits on {bad} (8 pending sectors)" in line for line in banner.lines)
        events = [e for e in app.live.history.events_of() if e.event == "SmartWarning"]
        assert [e.member for e in events] == [bad]


async def test_demo_key_is_only_offered_in_the_demo(static_config):
    app = RaidtopApp(static_config)
    async with app.run_test(size=(120, 40)):
        assert not app.dashboard.check_action("demo_disk_bad", ())


async def test_a_disk_smartctl_cannot_read_says_why_in_one_sentence(static_config, sample_snapshot):
    # The real smartctl on a virtio disk: exit 1 (bit 0) with "Unable to detect device type". The screen
    # was a wall of "—" and "the command line did not parse"; the README calls such a disk "unsupported".
    from raidtop.collect.smart.smartctl import health_from_output

    data = Path(__file__).resolve().parent.parent / "data" / "smartctl" / "real-vda-virtio.json"
    vda = health_from_output("vda", 1_700_000_000.0, data.read_bytes())
    app = RaidtopApp(static_config)
    async with app.run_test(size=(160, 40)) as pilot:
        app.apply_snapshot(replace(sample_snapshot, smart={"vda": vda}))
        app.push_screen(SmartScreen("vda"))
        await pilot.pause()
        summary = [r.cells for r in app.screen.query_one("#smart-summary", TextTable).rows]
        assert [label for label, _ in summary] == ["Verdict", "Why", "Read at"]
        why = dict(summary)["Why"]
        assert why.startswith("unsupported: this device has no SMART to read")
        assert why.endswith("smartctl says: /dev/vda: Unable to detect device type")
        shown = app.export_screenshot()
        assert "did not parse" not in shown and "unsupported" in str(app.screen.query_one("#smart-title").render())
        attributes = app.screen.query_one("#smart-attributes", TextTable)
        assert attributes.rows == [] and attributes.placeholder.startswith("none: smartctl read nothing")
