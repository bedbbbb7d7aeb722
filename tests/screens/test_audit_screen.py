"""The Audit screen: opened with u, findings per array worst first, with evidence, fix and source."""

from __future__ import annotations

from raidtop.app.raidtop_app import RaidtopApp
from raidtop.collect.sampler import Sampler
from raidtop.config import Config
from raidtop.screens.audit import AuditScreen
from raidtop.widgets.text_table import TextTable
from tests.audit.test_audit_rules import MEMBERS, RAID5, clean_disks
from tests.collect.md.md_sysfs_trees import md_tree, write_tree


def audit_root(tmp_path):
    members = {**MEMBERS, "sdb1": {**MEMBERS["sdb1"], "bad_blocks": "2048 8\n"}}
    files, links = md_tree("md0", {**RAID5, "mismatch_cnt": "64"}, members)
    for disk_files, disk_links in clean_disks():
        files.update(disk_files)
        links.update(disk_links)
    files["proc/uptime"] = "100.0 1.0"
    files["etc/cron.d/mdadm"] = "# checkarray"
    return write_tree(tmp_path / "root", files, links)


async def test_u_opens_the_audit_with_each_finding_its_evidence_and_fix(tmp_path):
    root = audit_root(tmp_path)
    snap = Sampler(root).sample()
    app = RaidtopApp(Config(root=root, autostart_sampler=False))
    async with app.run_test(size=(160, 40)) as pilot:
        app.apply_snapshot(snap)
        await pilot.press("A")
        assert isinstance(app.screen, AuditScreen)
        await app.workers.wait_for_complete()
        await pilot.pause()
        rows = app.screen.query_one("#audit-table", TextTable).rows
        heads = [(r.cells[0], r.cells[2], r.cells[3]) for r in rows if r.cells[0]]
        assert heads == [
            ("WARNING", "sdb1", "sdb1: 1 bad-block range, 8 sectors [bad-blocks]"),
            ("WARNING", "", "md0: the last check found 64 inconsistent sectors [mismatch]"),
            ("WARNING", "", "md0: no write-intent bitmap on 2000 GiB members; a crash means a full resync [no-bitmap]"),
        ]
        texts = [r.cells[3] for r in rows]
        assert "  /sys/block/md0/md/dev-sdb1/bad_blocks: 2048 8" in texts
        assert "  fix: mdadm --grow --bitmap=internal /dev/md0" in texts
        assert any(t.startswith("  source: Linux Documentation/admin-guide/md.rst") for t in texts)
        await pilot.press("escape")
        assert app.screen is app.dashboard
