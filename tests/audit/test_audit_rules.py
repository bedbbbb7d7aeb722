"""The readiness audit's rules on sysfs trees and smartctl JSON.

The md trees are written here in the formats a 6.1 kernel prints (md.rst:
``dev-*/bad_blocks`` is "sector length" per line, ``offset`` in sectors,
``bitmap/location`` ``none`` or ``+8``); the SMART readings are the corpus
files in tests/data/smartctl (SCT ERC ones derived, see its PROVENANCE.md).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from raidtop.audit.detect import audit
from raidtop.audit.facts import read_facts
from raidtop.audit.model import AuditFacts
from raidtop.audit.rules import RULES
from raidtop.collect.md.sysfs import read_md_sysfs
from raidtop.collect.smart.parse import parse_smartctl
from raidtop.collect.source import Root
from raidtop.presentation.smart_rules import judge
from tests.collect.md.md_sysfs_trees import md_tree, write_tree

SMART = Path(__file__).parent.parent / "data" / "smartctl"
GIB_KIB = 1024 * 1024

RAID5 = {
    "level": "raid5",
    "array_state": "clean",
    "raid_disks": "3",
    "chunk_size": "524288",
    "layout": "2",
    "degraded": "0",
    "sync_action": "idle",
    "last_sync_action": "check",
    "mismatch_cnt": "0",
    "consistency_policy": "resync",
    "component_size": str(2000 * GIB_KIB),
    "metadata_version": "1.2",
    "bitmap/location": "none",
}


def health(name: str, disk: str):
    return judge(parse_smartctl(json.loads((SMART / name).read_text()), disk, 0.0))


def disk_files(
    disk: str,
    timeout: str = "30",
    cache: str = "write through",
    physical: str = "512",
    part: str | None = None,
    start: str = "2048",
) -> tuple[dict, dict]:
    """A SCSI disk's queue and device files, and optionally one partition of it."""
    files = {
        f"sys/block/{disk}/device/timeout": timeout,
        f"sys/block/{disk}/queue/write_cache": cache,
        f"sys/block/{disk}/queue/physical_block_size": physical,
        f"sys/block/{disk}/queue/rotational": "1",
    }
    links = {}
    if part:
        files[f"sys/devices/pci0000:00/host0/block/{disk}/{part}/start"] = start
        files[f"sys/devices/pci0000:00/host0/block/{disk}/{part}/partition"] = part[-1]
        links[f"sys/class/block/{part}"] = f"../../devices/pci0000:00/host0/block/{disk}/{part}"
    return files, links


def build(tmp_path: Path, attrs: dict, members: dict, disks: list[tuple[dict, dict]], extra: dict | None = None):
    files, links = md_tree("md0", {**RAID5, **attrs}, members)
    for disk_files, disk_links in disks:
        files.update(disk_files)
        links.update(disk_links)
    files["proc/uptime"] = "86400.00 100.00"
    files["etc/cron.d/mdadm"] = "57 0 * * 0 root if [ -x /usr/share/mdadm/checkarray ]; then ...; fi"
    files.update(extra or {})
    root = Root(write_tree(tmp_path / "root", files, links))
    arrays, _ = read_md_sysfs(root)
    return arrays, read_facts(root, arrays)


MEMBERS = {
    f"sd{c}1": {"state": "in_sync", "slot": str(i), "errors": "0", "offset": "262144"} for i, c in enumerate("abc")
}


def clean_disks(**kw):
    return [disk_files(f"sd{c}", part=f"sd{c}1", **kw) for c in "abc"]


def rules_of(findings):
    return sorted({(f.rule, f.member) for f in findings})


def test_a_well_kept_array_has_only_the_bitmap_finding_when_it_has_none(tmp_path):
    arrays, facts = build(tmp_path, {}, MEMBERS, clean_disks())
    smart = {f"sd{c}": health("derived/scterc-70-WDC_WD20EFRX.json", f"sd{c}") for c in "abc"}
    found = audit(arrays, facts, smart)
    assert rules_of(found) == [("no-bitmap", None)]
    assert found[0].fix == "mdadm --grow --bitmap=internal /dev/md0"
    arrays, facts = build(
        tmp_path / "b", {"bitmap/location": "+8", "consistency_policy": "bitmap"}, MEMBERS, clean_disks()
    )
    assert audit(arrays, facts, smart) == ()


def test_bitmap_left_alone_under_100_gib_members(tmp_path):
    arrays, facts = build(tmp_path, {"component_size": str(99 * GIB_KIB)}, MEMBERS, clean_disks())
    assert audit(arrays, facts, {}) == ()


@pytest.mark.parametrize(
    "fixture,timeout,expected",
    [
        ("derived/scterc-disabled-ST3500418AS.json", "30", True),
        ("derived/scterc-disabled-ST3500418AS.json", "180", False),  # the other cure: the kernel waits longer
        ("derived/scterc-unsupported-ST3200820AS.json", "30", True),
        ("derived/scterc-40s-WDC_WD20EFRX.json", "30", True),
        ("derived/scterc-40s-WDC_WD20EFRX.json", "60", False),
        ("derived/scterc-70-WDC_WD20EFRX.json", "30", False),
        ("corpus/ST3500418AS_11.json", "30", False),  # smartctl did not say: nothing judged
    ],
)
def test_erc_against_the_kernel_timeout(tmp_path, fixture, timeout, expected):
    arrays, facts = build(tmp_path, {"bitmap/location": "+8"}, MEMBERS, clean_disks(timeout=timeout))
    smart = {"sda": health(fixture, "sda")}
    found = [f for f in audit(arrays, facts, smart) if f.rule == "erc-mismatch"]
    assert bool(found) is expected
    if expected:
        assert found[0].member == "sda1" and found[0].fix == "smartctl -l scterc,70,70 /dev/sda"
        assert any("/sys/block/sda/device/timeout: " + timeout in e for e in found[0].evidence)


def test_bad_block_log_entries_are_counted(tmp_path):
    members = {
        **MEMBERS,
        "sdb1": {**MEMBERS["sdb1"], "bad_blocks": "2048 8\n409600 16\n", "unacknowledged_bad_blocks": "819200 8\n"},
    }
    arrays, facts = build(tmp_path, {"bitmap/location": "+8"}, members, clean_disks())
    found = [f for f in audit(arrays, facts, {}) if f.rule == "bad-blocks"]
    assert [(f.member, f.text) for f in found] == [("sdb1", "sdb1: 3 bad-block ranges, 32 sectors")]
    # md writes no more into a range it logged after a write error: only a replacement clears it.
    assert found[0].fix == "mdadm /dev/md0 --add /dev/NEW && mdadm /dev/md0 --replace /dev/sdb1 --with /dev/NEW"


def test_corrected_read_errors_are_said_with_the_count_and_a_self_test_of_the_disk(tmp_path):
    members = {
        **MEMBERS,
        "sdb1": {**MEMBERS["sdb1"], "errors": "16"},
        "sdc1": {**MEMBERS["sdc1"], "state": "faulty", "errors": "40"},  # out of the data: not judged here
    }
    arrays, facts = build(tmp_path, {"bitmap/location": "+8"}, members, clean_disks())
    found = [f for f in audit(arrays, facts, {}) if f.rule == "read-errors"]
    assert [(f.member, f.severity, f.text) for f in found] == [
        ("sdb1", "info", "sdb1: md corrected 16 read errors (rewritten from redundancy)")
    ]
    assert found[0].evidence == ("/sys/block/md0/md/dev-sdb1/errors: 16",)
    assert found[0].fix == "smartctl -t long /dev/sdb"  # the whole disk under the partition
    arrays, facts = build(tmp_path / "clean", {"bitmap/location": "+8"}, MEMBERS, clean_disks())
    assert not [f for f in audit(arrays, facts, {}) if f.rule == "read-errors"]


def test_mismatch_after_check_on_raid5_not_raid1_and_not_while_syncing(tmp_path):
    arrays, facts = build(tmp_path, {"bitmap/location": "+8", "mismatch_cnt": "128"}, MEMBERS, clean_disks())
    assert [f.text for f in audit(arrays, facts, {}) if f.rule == "mismatch"] == [
        "md0: the last check found 128 inconsistent sectors"
    ]
    arrays, facts = build(
        tmp_path / "r1", {"level": "raid1", "bitmap/location": "+8", "mismatch_cnt": "128"}, MEMBERS, clean_disks()
    )
    assert not [f for f in audit(arrays, facts, {}) if f.rule == "mismatch"]
    arrays, facts = build(
        tmp_path / "s",
        {"bitmap/location": "+8", "mismatch_cnt": "128", "sync_action": "check", "sync_completed": "100 / 1000"},
        MEMBERS,
        clean_disks(),
    )
    assert not [f for f in audit(arrays, facts, {}) if f.rule == "mismatch"]


def test_write_cache_only_on_parity_without_ppl(tmp_path):
    arrays, facts = build(tmp_path, {"bitmap/location": "+8"}, MEMBERS, clean_disks(cache="write back"))
    found = [f for f in audit(arrays, facts, {}) if f.rule == "write-cache"]
    assert len(found) == 1 and found[0].severity == "info" and "sda, sdb, sdc" in found[0].text
    arrays, facts = build(tmp_path / "p", {"consistency_policy": "ppl"}, MEMBERS, clean_disks(cache="write back"))
    assert not [f for f in audit(arrays, facts, {}) if f.rule == "write-cache"]


def test_member_start_off_the_physical_block(tmp_path):
    disks = [
        disk_files("sda", part="sda1", physical="4096", start="63"),
        disk_files("sdb", part="sdb1", physical="4096", start="2048"),
        disk_files("sdc", part="sdc1", physical="512", start="63"),
    ]
    arrays, facts = build(tmp_path, {"bitmap/location": "+8"}, MEMBERS, disks)
    found = [f for f in audit(arrays, facts, {}) if f.rule == "misaligned"]
    assert [f.member for f in found] == ["sda1"]
    assert "byte 134249984" in found[0].text  # (63 + 262144) * 512


def test_scrub_schedule_and_overdue(tmp_path):
    arrays, facts = build(tmp_path, {"bitmap/location": "+8", "last_sync_action": "resync"}, MEMBERS, clean_disks())
    assert not [f for f in audit(arrays, facts, {}) if f.rule.startswith("scrub")]
    old = AuditFacts(members=facts.members, uptime_s=40 * 86400.0, scrub_schedules=())
    assert sorted(f.rule for f in audit(arrays, old, {}) if f.rule.startswith("scrub")) == [
        "scrub-overdue",
        "scrub-unscheduled",
    ]
    checked = AuditFacts(members=facts.members, uptime_s=40 * 86400.0, scrub_schedules=("/etc/cron.d/mdadm",))
    arrays, _ = build(tmp_path / "c", {"bitmap/location": "+8", "last_sync_action": "check"}, MEMBERS, clean_disks())
    assert not [f for f in audit(arrays, checked, {}) if f.rule.startswith("scrub")]


def test_failing_survivor_of_a_degraded_array_is_critical(tmp_path):
    from raidtop.presentation.rebuild_risk import rebuild_risks

    members = {**MEMBERS, "sdc1": {"state": "faulty", "slot": "none", "errors": "0", "offset": "262144"}}
    arrays, facts = build(tmp_path, {"bitmap/location": "+8", "degraded": "1"}, members, clean_disks())
    smart = {
        "sda": health("derived/sata-failing-ST3500418AS.json", "sda"),
        "sdb": health("derived/scterc-70-WDC_WD20EFRX.json", "sdb"),
    }
    disk_of = {"sda1": ("sda",), "sdb1": ("sdb",), "sdc1": ("sdc",)}
    found = audit(arrays, facts, smart, rebuild_risks(arrays, smart, disk_of))
    assert found[0].severity == "critical" and found[0].rule == "survivor-failing" and found[0].member == "sda1"
    assert not [f for f in found if f.rule == "member-smart" and f.member == "sda1"]


def test_sparse_by_design_is_said_without_alarm():
    from raidtop.collect.md.read import read_md

    root = Path(__file__).parent.parent / "data" / "md" / "roots" / "qnap-sparse"
    arrays = read_md(root).arrays
    found = [f for f in audit(arrays, read_facts(Root(root), arrays), {}) if f.rule == "sparse-by-design"]
    assert found and all(f.severity == "info" and f.fix is None for f in found)
    assert any("20 of 24 slots empty by configuration" in f.text for f in found)


def test_every_rule_has_a_source_and_a_known_severity():
    for rule in RULES.values():
        assert rule.source and rule.why and rule.severity in ("info", "warning", "critical")


def test_sct_erc_fields_from_smartctl_json():
    assert (
        health("derived/scterc-70-WDC_WD20EFRX.json", "sda").sct_erc_read_ds,
        health("derived/scterc-disabled-ST3500418AS.json", "sda").sct_erc_read_ds,
        health("derived/scterc-unsupported-ST3200820AS.json", "sda").sct_erc_supported,
        health("corpus/ST3500418AS_11.json", "sda").sct_erc_read_ds,
    ) == (70, 0, False, None)


def test_cli_exit_status_and_json(tmp_path):
    import subprocess
    import sys

    members = {**MEMBERS, "sdb1": {**MEMBERS["sdb1"], "bad_blocks": "2048 8\n"}}
    files, links = md_tree("md0", RAID5, members)
    files["proc/uptime"] = "100.0 1.0"
    root = write_tree(tmp_path / "root", files, links)
    run = subprocess.run(
        [sys.executable, "-m", "raidtop", "audit", "--json", "--root", str(root), "--smart-wait", "0"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    doc = json.loads(run.stdout)
    assert run.returncode == 0, run.stderr
    assert {f["rule"] for f in doc["findings"]} == {"bad-blocks", "no-bitmap", "scrub-unscheduled"}
    (root / "proc/uptime").unlink()
    run = subprocess.run(
        [sys.executable, "-m", "raidtop", "audit", "--root", str(root), "--smart-wait", "0"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 1 and "scrub age cannot be judged" in run.stderr
    assert "fix: mdadm /dev/md0 --add /dev/NEW && mdadm /dev/md0 --replace /dev/sdb1 --with /dev/NEW" in run.stdout


def test_the_readme_lists_every_rule_with_its_severity():
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    table = readme[readme.index("## Audit (`raidtop audit`") : readme.index("## `raidtop snapshot --json`")]
    for rule in RULES.values():
        assert f"| `{rule.id}` | {rule.severity} |" in table
