"""Issue 29: the command palette finds arrays, members and disks by any name and opens their screens."""

from __future__ import annotations

import asyncio
import dataclasses
import re
from pathlib import Path

from textual.command import CommandList, CommandPalette

from raidtop.app.find_palette import ranked
from raidtop.app.raidtop_app import RaidtopApp
from raidtop.collect.sampler import Sampler
from raidtop.model.snapshot import Snapshot
from raidtop.presentation.find import findables
from raidtop.screens.array_detail import ArrayDetailScreen
from raidtop.screens.explain import ExplainScreen
from raidtop.screens.smart import SmartScreen

from tests.conftest import two_root_snapshot
from tests.hostile import terminal_bytes

MD_ROOT = Path(__file__).resolve().parents[1] / "data" / "md" / "roots" / "prometheus-procfs"
"""node_exporter's md sysfs tree: md5, md6 and md42 degraded, the rest clean."""
SERIAL = "WD-WCC4E1234567"
MODEL = "WDC WD40EFRX-68N32N0"
BY_ID = "ata-WDC_WD40EFRX-68N32N0_WD-WCC4E1234567"
HOSTILE = "[bold]EVIL[/bold]\x1b[2J$accent"


def found_snapshot() -> Snapshot:
    """sysstat's disks, two of them with udev's identity (one hostile), and node_exporter's arrays."""
    arrays = Sampler(MD_ROOT, clock=lambda: 1_600_000_000.0).sample().arrays
    snap = two_root_snapshot()
    identities = {
        "sdq": {"model": MODEL, "serial": SERIAL, "by_id": BY_ID},
        "sdr": {"model": "Evil Disk", "serial": HOSTILE, "by_id": None},
    }
    disks = tuple(dataclasses.replace(d, **identities.get(d.name, {})) for d in snap.disks)
    return dataclasses.replace(snap, arrays=arrays, disks=disks)


async def palette_hits(app, pilot, query: str) -> list[str]:
    """Open the palette, type ``query``, wait for the hits; their texts, best first."""
    await pilot.press("ctrl+p")
    await pilot.pause()
    assert isinstance(app.screen, CommandPalette)
    await pilot.press(*query)
    for _ in range(100):
        await pilot.pause(0.05)
        listed = app.screen.query_one(CommandList)
        texts = [str(listed.get_option_at_index(i).prompt) for i in range(listed.option_count)]
        if texts and not app.screen._show_busy and not app.screen.query_one(CommandList).loading:
            await asyncio.sleep(0.3)  # the palette adds hits in batches
            listed = app.screen.query_one(CommandList)
            return [str(listed.get_option_at_index(i).prompt) for i in range(listed.option_count)]
    raise AssertionError(f"no hits for {query!r}")


async def open_first(app, pilot, query: str):
    await palette_hits(app, pilot, query)
    await pilot.press("enter")
    for _ in range(50):
        await pilot.pause(0.05)
        if not isinstance(app.screen, CommandPalette):
            break
    return app.screen


def test_every_disk_is_found_by_every_name_and_degraded_arrays_come_first():
    found = findables(found_snapshot())
    disk = [f for f in found if f.kind == "disk" and f.name == "sdq"]
    assert {f.opens for f in disk} == {"smart", "explain"}
    for name in ("sdq", MODEL, SERIAL, BY_ID):
        assert all(name in f.text for f in disk)
    assert disk[0].says == "disk sdq · no SMART reading yet · holds sdq in md6"  # each hit says what it is
    member = [f for f in found if f.kind == "member" and f.name == "sdq"]
    assert {(f.opens, f.target) for f in member} == {("detail", "md6"), ("explain", "md6/sdq"), ("smart", "sdq")}
    arrays = [f.name for f in found if f.kind == "array"]
    assert arrays[:6] == ["md5", "md5", "md6", "md6", "md42", "md42"]
    evil = next(f for f in found if f.kind == "disk" and f.name == "sdr")
    assert "\x1b" not in evil.text and "\x1b" not in evil.says and "[bold]EVIL[/bold]" in evil.text


def test_an_urgent_hit_outranks_a_plain_one_matching_as_well():
    for score in (0.1, 0.4, 0.9, 9.0):  # Textual's fuzzy scores go beyond 1
        assert ranked(score, urgent=True) > ranked(score, urgent=False) == score
    assert ranked(9.0, urgent=True) > ranked(10.0, urgent=False)
    assert ranked(9.0, urgent=True) > ranked(2.0, urgent=True)


async def test_typing_a_serial_model_or_by_id_opens_the_disks_smart(static_config):
    for query in (SERIAL, "WD40EFRX", BY_ID):
        app = RaidtopApp(static_config)
        async with app.run_test(size=(120, 40)) as pilot:
            app.apply_snapshot(found_snapshot())
            screen = await open_first(app, pilot, query)
            assert isinstance(screen, SmartScreen), query
            assert screen.disk == "sdq"


async def test_the_palette_puts_degraded_arrays_first_and_opens_detail_and_explain(static_config):
    app = RaidtopApp(static_config)
    async with app.run_test(size=(120, 40)) as pilot:
        app.apply_snapshot(found_snapshot())
        hits = await palette_hits(app, pilot, "md")
        degraded = [i for i, hit in enumerate(hits) if "degraded" in hit]
        clean = [i for i, hit in enumerate(hits) if re.match(r"md\d+ · raid\d+ array · (active|clean)", hit)]
        assert degraded and clean and max(degraded) < min(clean)
        await pilot.press("escape")
        screen = await open_first(app, pilot, "md42 Array detail")
        assert isinstance(screen, ArrayDetailScreen) and screen.array_name == "md42"
        await pilot.press("escape")
        screen = await open_first(app, pilot, "md42 Explain")
        assert isinstance(screen, ExplainScreen) and "md42" in screen.explanation.title


async def test_names_from_the_system_are_shown_as_text(static_config):
    app = RaidtopApp(static_config)
    async with app.run_test(size=(120, 40)) as pilot:
        app.apply_snapshot(found_snapshot())
        hits = await palette_hits(app, pilot, "Evil Disk")
        assert any("[bold]EVIL[/bold]" in hit for hit in hits)  # the markup is shown, not applied
        painted = terminal_bytes(app)
        assert b"\x1b[2J" not in painted
        text = re.sub(r"\x1b\[[0-9;:]*[A-Za-z]", "", painted.decode())
        assert "[bold]EVIL[/bold]" in text and "$accent" in text


async def test_before_anything_is_typed_the_palette_offers_degraded_arrays_first(static_config):
    app = RaidtopApp(static_config)
    async with app.run_test(size=(120, 40)) as pilot:
        app.apply_snapshot(found_snapshot())
        hits = await palette_hits(app, pilot, "")
        arrays = [hit.split(" · ")[0] for hit in hits if re.match(r"md\d+ · ", hit)]
        assert arrays[:3] == ["md5", "md6", "md42"]  # degraded, then the clean ones in the kernel's order
        assert len(arrays) == len(found_snapshot().arrays)  # each array once (its detail), not its Explain too
        assert any(hit.startswith("sdq · disk · ") and "→ SMART" in hit for hit in hits)


def test_a_disk_is_found_by_each_of_its_by_id_links_as_udev_lists_them(tmp_path):
    """A root tree read by the real Sampler: the udev database entry names two links."""
    (tmp_path / "proc").mkdir()
    (tmp_path / "proc" / "diskstats").write_text("8 16 sdb 100 0 800 10 0 0 0 0 0 10 10 0 0 0 0 0 0\n")
    (tmp_path / "sys" / "block" / "sdb" / "device").mkdir(parents=True)
    udev = tmp_path / "run" / "udev" / "data"
    udev.mkdir(parents=True)
    (udev / "b8:16").write_text(
        f"S:disk/by-id/{BY_ID}\nS:disk/by-id/wwn-0x50014ee2b5d3c2a1\nE:ID_MODEL={MODEL.replace(' ', '_')}\n"
        f"E:ID_SERIAL_SHORT={SERIAL}\n"
    )
    snap = Sampler(tmp_path).sample()
    disk = [f for f in findables(snap) if f.kind == "disk" and f.opens == "smart"]
    assert [f.name for f in disk] == ["sdb"]
    for name in (BY_ID, "wwn-0x50014ee2b5d3c2a1", SERIAL, MODEL):
        assert name in disk[0].text


def test_the_finding_provider_is_imported_when_the_palette_opens_not_with_the_app():
    import subprocess
    import sys

    probe = (
        "import sys, raidtop.app.raidtop_app as a\n"
        "print('raidtop.app.find_palette' in sys.modules)\n"
        "from raidtop.app.palette import find_provider\n"
        "print(find_provider().__name__, 'raidtop.app.find_palette' in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False", "FindProvider", "True"]
