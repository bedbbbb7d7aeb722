"""Explain shows the deltas that produced each number (sysstat's recorded trees)."""

from __future__ import annotations

from pathlib import Path

from raidtop.collect.sampler import Sampler
from raidtop.collect.source import Root
from raidtop.presentation.explain import UTIL_CAVEAT, explain_cpu, explain_disk, explain_vm

UI = Path(__file__).resolve().parent.parent / "data" / "ui"


def snapshot():
    sampler = Sampler(UI / "root1")
    sampler.sample()
    sampler.root = Root(UI / "root2")
    return sampler.sample()


def test_disk_explanation_shows_the_deltas_behind_r_await():
    snap = snapshot()
    lines = {line.name: line for line in explain_disk(snap, "sdr").lines}
    # root1 -> root2 for sdr (sysstat's recorded diskstats): rd_ios 16389 -> 16489,
    # rd_ticks 159667 -> 159967, io_ticks 97087 -> 99087; uptime 7192.55 -> 7223.72.
    assert lines["r_await"].numbers == "300 ms / 100"
    assert lines["r_await"].result == "3.00"  # iostat's golden value for sdr
    assert lines["r/s"].numbers == "100 / 31.17 s"
    assert lines["r/s"].result == "3.21"
    assert lines["%util"].numbers == "2000 ms / 31170 ms × 100"
    assert lines["%util"].result == "6.42"


def test_util_caveat_only_for_parallel_devices():
    snap = snapshot()
    assert UTIL_CAVEAT not in explain_disk(snap, "sdr").caveats


def test_cpu_and_vm_explanations():
    snap = snapshot()
    cpu = {line.name: line for line in explain_cpu(snap, "all").lines}
    assert cpu["%idle"].result == "82.88"
    assert explain_vm(snap).lines[0].name == "bi"
    assert explain_disk(snap, "nope") is None
