"""mdadm --detail/--examine --export, from a real VM capture, run only on what md owns."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from raidtop.collect.bounded_run import Ran
from raidtop.collect.md.mdadm_detail import parse_creation_time, read_mdadm_detail
from raidtop.collect.source import Root
from raidtop.presentation.mdadm import mdadm_pairs

CAPTURE = Path(__file__).resolve().parents[2] / "data" / "md" / "mdadm-vm"
OUTPUT = {
    ("--detail", "--export", "/dev/md0"): "md0.detail.export",
    ("--detail", "/dev/md0"): "md0.detail",
    ("--examine", "--export", "/dev/loop0"): "md0.examine.export.0",
    ("--examine", "--export", "/dev/loop1"): "md0.examine.export.1",
}


def _root(tmp_path, members=("loop0", "loop1")) -> Root:
    for m in members:
        (tmp_path / "sys/block/md0/md" / f"dev-{m}").mkdir(parents=True, exist_ok=True)
    return Root(tmp_path)


def _runner(calls: list, stale: int | None = None):
    def run(argv: list[str]) -> Ran:
        calls.append(argv)
        text = (CAPTURE / OUTPUT[tuple(argv[1:])]).read_text()
        if stale is not None and argv[-1] == "/dev/loop1":
            text = text.replace("MD_EVENTS=17", f"MD_EVENTS={stale}")
        return Ran(0, text.encode(), b"")

    return run


def test_the_vm_capture_gives_uuid_name_times_events_and_roles(tmp_path) -> None:
    calls: list = []
    detail = read_mdadm_detail(_root(tmp_path), "md0", run=_runner(calls))
    assert detail.unavailable is None and detail.notes == ()
    assert (detail.uuid, detail.name, detail.events, detail.update_time) == (
        "e495c48a:2c9192c0:24c9ac8e:494aa966",
        "(none):0",
        17,
        1795721179,
    )
    assert [(m.name, m.role, m.events) for m in detail.members] == [("loop0", "0", 17), ("loop1", "1", 17)]
    assert detail.members[0].dev_uuid == "2002bbf7:36e56ad3:3d1b174b:b760267b"
    # Argument lists only, and only the array and the members md lists.
    assert calls == [
        ["mdadm", "--detail", "--export", "/dev/md0"],
        ["mdadm", "--examine", "--export", "/dev/loop0"],
        ["mdadm", "--examine", "--export", "/dev/loop1"],
        ["mdadm", "--detail", "/dev/md0"],
    ]
    # In neither export for 1.x metadata: read from plain --detail's "Creation Time : Thu Nov 26 19:26:18 2026",
    # which mdadm printed in the guest's UTC (its update time, 19:26:19, is MD_UPDATE_TIME=1795721179).
    assert detail.creation_time == 1795721178
    assert {k: v for k, v, _ in mdadm_pairs(detail)}["Creation time"] == time.strftime(
        "%Y-%m-%d %H:%M:%S", time.localtime(1795721178)
    )


@pytest.mark.parametrize(
    "line",
    [
        "     Creation Time : Thu Feb 30 19:26:18 2026",  # no such day
        "     Creation Time : Thu Nov 26 25:26:18 2026",
        "     Creation Time : Thu Nov 26 19:26:18 1969",
        "     Creation Time : Thu Nov 26 19:26:18 99999",
        "     Creation Time : Thu Xyz 26 19:26:18 2026",
        "     Creation Time : 1795721178",
        "     Creation Time : Thu Nov 26 19:26:18 2026\x1b[2J",
        "Name : Creation Time : Thu Nov 26 19:26:18 2026",
    ],
)
def test_a_creation_line_that_is_not_ctime_is_not_a_time(line: str) -> None:
    assert parse_creation_time(f"/dev/md0:\n{line}\n") is None


def test_creation_time_is_taken_from_its_line_only() -> None:
    text = (CAPTURE / "md0.detail").read_text()
    assert parse_creation_time(text) == 1795721178
    assert parse_creation_time(text.replace("Creation Time", "Update Time", 1)) is None
    assert parse_creation_time(" Creation Time : Sat Feb 29 00:00:00 2028\n") == 1835395200  # a leap day


def test_a_failing_plain_detail_leaves_only_the_creation_time_out(tmp_path) -> None:
    ok = _runner([])

    def run(argv: list[str]) -> Ran:
        return Ran(None, b"", b"", "timeout") if argv[1:] == ["--detail", "/dev/md0"] else ok(argv)

    detail = read_mdadm_detail(_root(tmp_path), "md0", run=run)
    assert detail.creation_time is None and detail.events == 17
    assert detail.notes == ("mdadm --detail /dev/md0: stopped (timeout)",)


def test_a_stale_member_is_shown_behind(tmp_path) -> None:
    detail = read_mdadm_detail(_root(tmp_path), "md0", run=_runner([], stale=12))
    assert detail.events == 17
    rows = {label.strip(): (value, tone) for label, value, tone in mdadm_pairs(detail)}
    assert rows["loop1"] == ("role 1 · events 12 (5 behind)", "warn")
    assert rows["loop0"] == ("role 0 · events 17", None)


def test_never_on_what_md_does_not_own(tmp_path) -> None:
    calls: list = []
    root = _root(tmp_path)
    for name in ("sda", "../md0", "md0; rm -rf /", "vg0-mirror"):
        assert read_mdadm_detail(root, name, run=_runner(calls)).unavailable is not None
    assert calls == []
    assert "live system" in read_mdadm_detail(root, "md0").unavailable  # a --root tree: mdadm is never run


def test_a_failing_mdadm_is_a_sentence(tmp_path) -> None:
    detail = read_mdadm_detail(
        _root(tmp_path), "md0", run=lambda argv: Ran(1, b"", b"mdadm: cannot open /dev/md0: No such file\n")
    )
    assert detail.unavailable == "mdadm --detail --export /dev/md0: mdadm: cannot open /dev/md0: No such file"
    assert read_mdadm_detail(
        _root(tmp_path), "md0", run=lambda argv: Ran(None, b"", b"", "timeout")
    ).unavailable.endswith("(timeout)")
    pairs = mdadm_pairs(detail)
    assert pairs[0][1].startswith("mdadm --detail") and "needs mdadm" in pairs[1][1]
