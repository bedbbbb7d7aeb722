"""The Stack screen on key u, and a full filesystem on a degraded array in the Arrays banner."""

from __future__ import annotations

import shutil
from pathlib import Path

from raidtop.app.raidtop_app import RaidtopApp
from raidtop.collect.stack.poller import StackPoller
from raidtop.config import Config
from raidtop.presentation.explain import explain_array
from raidtop.screens.stack import StackScreen
from raidtop.widgets.risk_banner import RiskBanner
from raidtop.widgets.text_table import TextTable

STACK = Path(__file__).resolve().parent.parent / "data" / "stack" / "md-lvm"
MDSTAT = """Personalities : [raid1] [raid6] [raid5] [raid4]
md1 : active raid5 sde[3] sdd[1] sdc[0]
      1953382400 blocks super 1.2 level 5, 512k chunk, algorithm 2 [3/3] [UUU]

md0 : active raid1 sdb1[1]
      234159104 blocks super 1.2 [2/1] [_U]

unused devices: <none>
"""


def _root(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    shutil.copytree(STACK, root, symlinks=True)
    (root / "proc/mdstat").write_text(MDSTAT)
    return root


def _app(root: Path, full: dict[str, tuple[int, int]]) -> RaidtopApp:
    app = RaidtopApp(Config(root=root, autostart_sampler=False))
    app.sampler.stack = StackPoller(usage=full.get)
    return app


async def test_u_opens_the_stack_and_it_follows_the_samples(tmp_path):
    app = _app(_root(tmp_path), {"/": (1000, 400)})
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.press("u")
        assert isinstance(app.screen, StackScreen)
        table = app.screen.query_one(TextTable)
        assert table.rows == [] and "next sample" in table.placeholder
        assert app.sampler.stack.wanted
        app.apply_snapshot(app.sampler.sample())
        await pilot.pause()
        cells = {r.cells[0]: r.cells for r in table.rows}
        assert cells["  └─md0"][3] == "raid1 ! degraded"
        assert cells["    ├─vg0-root"][4:7] == ("ext4", "40 % ", "/")
        assert cells["      └─secret"][5:7] == ("usage unknown ", "/srv/secret files")
        # md1 (raid5, 512K chunk, 3 disks in mdstat) has a 1 MiB stripe; md1p2 starts half a KiB past one.
        assert cells["  └─md1p2"][7] == "! start 1049600.5 KiB not on md1's 1024 KiB stripe"
        assert cells["  ├─md1p1"][7] == ""
        await pilot.press("escape")
        assert not isinstance(app.screen, StackScreen) and not app.sampler.stack.wanted


async def test_a_full_filesystem_on_the_degraded_array_leads_the_arrays_panel(tmp_path):
    app = _app(_root(tmp_path), {"/": (1000, 970), "/data": (1000, 990)})
    async with app.run_test(size=(140, 40)) as pilot:
        app.apply_snapshot(app.sampler.sample())
        await pilot.pause()
        banner = app.screen.query_one(RiskBanner)
        assert banner.has_class("-shown")
        # md1 holds /data at 99 % but is healthy: only md0's / is said.
        assert banner.lines == ["! md0 is degraded and its filesystem / (ext4 on vg0-root) is 97 % full"]


async def test_the_array_detail_shows_what_sits_on_it_and_what_it_sits_on(tmp_path):
    app = _app(_root(tmp_path), {"/": (1000, 400)})
    async with app.run_test(size=(140, 45)) as pilot:
        app.apply_snapshot(app.sampler.sample())
        await pilot.pause()
        from raidtop.screens.array_detail import ArrayDetailScreen

        app.push_screen(ArrayDetailScreen("md0"))
        await pilot.pause()
        assert app.sampler.stack.wanted
        app.apply_snapshot(app.sampler.sample())
        await pilot.pause()
        cells = [r.cells for r in app.screen.query_one("#detail-stack", TextTable).rows]
        assert cells == [
            ("├─vg0-root", "ext4", "40 % ", "/"),
            ("└─vg0-secret", "", "", ""),
            ("  └─secret", "xfs", "usage unknown ", "/srv/secret files"),
            ("on sda2 on sda · sdb1 on sdb", "", "", ""),
        ]
        await app.workers.wait_for_complete()
        await pilot.pause()
        attrs = {r.cells[0]: r.cells[1] for r in app.screen.query_one("#detail-attrs", TextTable).rows}
        assert attrs["mdadm"].startswith("not the live system")  # a --root tree: mdadm is never run
        await pilot.press("escape")
        await pilot.pause()
        assert not app.sampler.stack.wanted


async def test_an_lvm_raid_volume_sits_in_the_arrays_panel_beside_md(tmp_path):
    from raidtop.collect.bounded_run import Ran
    from raidtop.collect.dmraid.reader import DmRaidReader

    root = _root(tmp_path)
    (root / "sys/module/dm_raid").mkdir(parents=True)
    app = _app(root, {})
    app.sampler.dm_raid = DmRaidReader(
        run=lambda argv: Ran(0, b"vg0-mirror: 0 2097152 raid raid1 2 aA 524288/2097152 recover 0 0 -\n", b"")
    )
    async with app.run_test(size=(140, 40)) as pilot:
        snap = app.sampler.sample()
        app.apply_snapshot(snap)
        await pilot.pause()
        rows = {r.key: r.cells for r in app.screen.query_one("#array-table", TextTable).rows}
        assert set(rows) == {"md0", "md1", "vg0-mirror"}
        row = rows["vg0-mirror"]
        assert "raid1" in row and "[_U]" in row
        # At 140 columns the Notes hold the words that fit; the row's Explain has them whole.
        assert row[-1].startswith(" degraded ≥") and row[-1].endswith(" · LVM …")
        notes = [c for c in explain_array(snap, "vg0-mirror").caveats if c.startswith("Notes: ")]
        assert notes and notes[0].endswith(" · LVM RAID (dm-raid).")
        assert any("recover" in c or "25" in c for c in row)
