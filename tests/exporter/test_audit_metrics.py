"""raidtop_audit_findings: one series per array and rule kind, from the exporter's own sampling path."""

from __future__ import annotations

from pathlib import Path

from raidtop.audit.rules import RULES
from raidtop.exporter.service import Exporter, LiveSource
from tests.exporter.test_metrics import PROJECT, samples
from tests.audit.test_audit_rules import MEMBERS, RAID5, clean_disks
from tests.collect.md.md_sysfs_trees import md_tree, write_tree

ROOTS = PROJECT / "tests" / "data" / "md" / "roots"


def scrape(root: Path) -> dict[tuple[str, str], tuple[str, float]]:
    exporter = Exporter(LiveSource(root), 10.0)
    exporter.sample_once()
    text = exporter._md_text.decode()
    return {
        (s.labels["array"], s.labels["kind"]): (s.labels["severity"], s.value)
        for s in samples(text).get("raidtop_audit_findings", [])
    }


def test_every_rule_is_a_series_per_array_and_bad_blocks_are_counted(tmp_path) -> None:
    members = {
        **MEMBERS,
        "sdb1": {**MEMBERS["sdb1"], "bad_blocks": "2048 8\n"},
        "sdc1": {**MEMBERS["sdc1"], "bad_blocks": "4096 8\n", "errors": "16"},
    }
    files, links = md_tree("md0", RAID5, members)
    for disk_files, disk_links in clean_disks():
        files.update(disk_files)
        links.update(disk_links)
    series = scrape(write_tree(tmp_path / "root", files, links))
    assert {kind for array, kind in series if array == "md0"} == set(RULES)
    assert series[("md0", "bad-blocks")] == ("warning", 2.0)
    assert series[("md0", "read-errors")] == ("info", 1.0)
    assert series[("md0", "no-bitmap")] == ("warning", 1.0)
    assert series[("md0", "survivor-failing")] == ("critical", 0.0)


def test_a_sparse_array_exports_its_info_finding() -> None:
    series = scrape(ROOTS / "qnap-sparse")
    assert series[("md9", "sparse-by-design")] == ("info", 1.0)
    assert series[("md1", "sparse-by-design")] == ("info", 0.0)
