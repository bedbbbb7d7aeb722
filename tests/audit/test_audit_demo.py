"""The demo's audit: believable inputs give findings a teacher can show (bad blocks, ERC off, write cache)."""

from __future__ import annotations

from raidtop.audit.detect import audit_snapshot
from raidtop.presentation.judgement import judged_sampler
from raidtop.demo.controller import DemoController


def test_the_demo_array_has_audit_findings_with_evidence():
    demo = DemoController(recording=None, clock=lambda: 1000.0)
    demo.sim.advance(demo.sim.component_kib)  # the initial build done
    demo.root.refresh()
    sampler = judged_sampler(demo.root)
    snap = sampler.sample()
    findings, _notes = audit_snapshot(demo.root, snap)
    by_rule = {f.rule: f for f in findings if f.array == "md9"}
    assert by_rule["bad-blocks"].member == "loop21"
    assert by_rule["bad-blocks"].evidence[0] == "/sys/block/md9/md/dev-loop21/bad_blocks: 1953120 8"
    assert by_rule["erc-mismatch"].member == "loop22"
    assert by_rule["erc-mismatch"].fix == "smartctl -l scterc,70,70 /dev/loop22"
    assert by_rule["write-cache"].severity == "info"
    assert "no-bitmap" not in by_rule  # 1 GiB members resync in seconds
