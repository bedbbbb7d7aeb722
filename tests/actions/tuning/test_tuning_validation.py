"""Tuning knobs read from a copied sysfs tree, and every value refused before it is written."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from raidtop.actions.tuning import (
    INT_MAX,
    MAX_SCHED_RQ,
    PAGE_KB,
    READ_AHEAD_LIMIT_KB,
    Refusal,
    TuningError,
    TuningSession,
    check_value,
    list_targets,
    read_knobs,
)
from raidtop.actions.action_log import ActionLog

TUNING_DATA = Path(__file__).resolve().parents[2] / "data" / "ui" / "tuning"


def tuning_root(tmp_path: Path) -> Path:
    """A copy of the tuning fixture plus the md knob files a 6.x kernel adds, at their defaults.

    The stored tree holds only copied files (see its PROVENANCE.md); the md
    knobs and /proc/sys/dev/raid are written here in the kernel's formats.
    """
    root = tmp_path / "root"
    shutil.copytree(TUNING_DATA, root, symlinks=True)
    for md in (root / "sys" / "block").glob("md*"):
        level = (md / "md" / "level").read_text().strip()
        (md / "md" / "sync_speed_min").write_text("1000 (system)\n")
        (md / "md" / "sync_speed_max").write_text("200000 (system)\n")
        if level in ("raid4", "raid5", "raid6"):
            (md / "md" / "stripe_cache_size").write_text("256\n")
            (md / "md" / "group_thread_cnt").write_text("0\n")
    raid = root / "proc" / "sys" / "dev" / "raid"
    raid.mkdir(parents=True)
    (raid / "speed_limit_min").write_text("1000\n")
    (raid / "speed_limit_max").write_text("200000\n")
    return root


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tuning_root(tmp_path)


@pytest.fixture(scope="module")
def shared_root(tmp_path_factory) -> Path:
    """One tree for the property tests, which only read it."""
    return tuning_root(tmp_path_factory.mktemp("tuning"))


def knob(root: Path, target: str, attr: str):
    return next(k for k in read_knobs(root, target) if k.attr == attr)


def test_queue_knobs_read_from_the_copied_sda_tree(root):
    knobs = {k.attr: k for k in read_knobs(root, "sda")}
    assert list(knobs) == [
        "scheduler",
        "read_ahead_kb",
        "nr_requests",
        "rq_affinity",
        "nomerges",
        "max_sectors_kb",
        "write_cache",
    ]
    assert knobs["scheduler"].value == "bfq"
    assert knobs["scheduler"].allowed.choices == ("mq-deadline", "kyber", "bfq", "none")
    assert knobs["read_ahead_kb"].value == "128" and knobs["read_ahead_kb"].shown == "128 KiB (setra 256)"
    assert knobs["nr_requests"].value == "64"
    # max_sectors_kb may go up to the hardware limit the same tree reports.
    assert knobs["max_sectors_kb"].allowed.high == 32767
    assert knobs["write_cache"].value == "write back"


def test_md_and_global_knobs(root):
    knobs = {k.attr: k for k in read_knobs(root, "md6")}
    assert knobs["sync_speed_max"].value == "system" and knobs["sync_speed_max"].effective == 200000
    assert knobs["stripe_cache_size"].allowed.low == 17 and knobs["stripe_cache_size"].allowed.high == 32768
    assert knobs["group_thread_cnt"].allowed.high == 8192
    # raid1 has no stripe cache: the kernel creates that file only for raid4/5/6.
    assert "stripe_cache_size" not in {k.attr for k in read_knobs(root, "md1")}
    glob = {k.attr: k for k in read_knobs(root, "raid")}
    assert glob["speed_limit_max"].value == "200000"


def test_targets_list_disks_arrays_and_the_global_limits(root):
    names = [t.name for t in list_targets(root)]
    assert names[-1] == "raid"
    assert {"sda", "md0", "md6", "md10"} <= set(names)
    md6 = next(t for t in list_targets(root) if t.name == "md6")
    assert md6.kind == "md" and md6.level == "raid6" and md6.detail == "raid6 4 disks"


@pytest.mark.parametrize(
    ("target", "attr", "text", "says"),
    [
        ("sda", "scheduler", "cfq", "not offered"),
        ("sda", "scheduler", "", "enter a value"),
        ("sda", "nr_requests", "-5", "negative"),
        ("sda", "nr_requests", "abc", "not a whole number"),
        ("sda", "nr_requests", "1e3", "not a whole number"),
        ("sda", "nr_requests", "0x40", "not a whole number"),
        ("sda", "nr_requests", "2", "below the minimum 4"),
        ("sda", "nr_requests", str(MAX_SCHED_RQ + 1), "above the maximum"),
        ("sda", "nr_requests", "9" * 40, "above the maximum"),
        ("sda", "read_ahead_kb", str(PAGE_KB * 32 + 2), "multiple of"),
        ("sda", "read_ahead_kb", str(READ_AHEAD_LIMIT_KB + PAGE_KB), "above the maximum"),
        ("sda", "max_sectors_kb", "40000", "max_hw_sectors_kb"),
        ("sda", "rq_affinity", "3", "not allowed"),
        ("sda", "nomerges", "-1", "not allowed"),
        ("sda", "write_cache", "wb", "not allowed"),
        ("md6", "sync_speed_max", "0", "below the minimum 1"),
        ("md6", "sync_speed_max", "fast", "not a whole number or system"),
        ("md6", "stripe_cache_size", "16", "below the minimum 17"),
        ("md6", "stripe_cache_size", "32769", "above the maximum 32768"),
        ("md6", "group_thread_cnt", "8193", "above the maximum 8192"),
        ("raid", "speed_limit_max", "0", "below the minimum 1"),
        ("raid", "speed_limit_max", str(INT_MAX + 1), "above the maximum"),
    ],
)
def test_invalid_values_are_refused_with_a_reason(root, target, attr, text, says):
    checked = check_value(knob(root, target, attr), text)
    assert checked.value is None
    assert says in checked.error


@pytest.mark.parametrize(
    ("target", "attr", "text", "canonical"),
    [
        ("sda", "scheduler", "none", "none"),
        ("sda", "write_cache", "writethrough", "write through"),
        ("sda", "write_cache", " write   back ", "write back"),
        ("sda", "read_ahead_kb", "4096", "4096"),
        ("sda", "nr_requests", "0004", "4"),
        ("sda", "max_sectors_kb", "32767", "32767"),
        ("md6", "sync_speed_min", "SYSTEM", "system"),
        ("md6", "stripe_cache_size", "17", "17"),
        ("md6", "group_thread_cnt", "0", "0"),
        ("raid", "speed_limit_min", "0", "0"),
    ],
)
def test_valid_values_come_back_canonical(root, target, attr, text, canonical):
    assert check_value(knob(root, target, attr), text).value == canonical


@settings(max_examples=200, deadline=None)
@given(text=st.text(max_size=30))
def test_any_text_is_accepted_or_refused_never_raised(shared_root, text):
    root = shared_root
    for target, attr in (("sda", "nr_requests"), ("sda", "scheduler"), ("md6", "sync_speed_max")):
        checked = check_value(knob(root, target, attr), text)
        assert (checked.value is None) != (checked.error is None)
        if checked.value is not None and attr == "nr_requests":
            assert 4 <= int(checked.value) <= MAX_SCHED_RQ


@settings(max_examples=100, deadline=None)
@given(number=st.integers(min_value=-(10**6), max_value=10**6))
def test_stripe_cache_size_accepts_exactly_the_kernels_range(shared_root, number):
    checked = check_value(knob(shared_root, "md6", "stripe_cache_size"), str(number))
    # raid5_set_cache_size: `if (size <= 16 || size > 32768) return -EINVAL;`
    assert (checked.value is not None) == (17 <= number <= 32768)


def test_unknown_targets_and_misplaced_knobs_are_refused(root, tmp_path):
    session = TuningSession(root, ActionLog(tmp_path / "log"))
    assert "no such block device" in session.plan("sdzz", "scheduler", "none").message
    assert "not an md array" in session.plan("sda", "stripe_cache_size", "1024").message
    assert "raid4/5/6" in session.plan("md1", "stripe_cache_size", "1024").message
    assert "system-wide" in session.plan("sda", "speed_limit_max", "1000").message
    assert "not a knob" in session.plan("sda", "elevator", "none").message
    with pytest.raises(TuningError):
        read_knobs(root, "sdzz")


def test_a_partition_points_at_its_disk(root, tmp_path):
    # /sys/class/block/sda1 links into the disk's directory, as on a live system.
    (root / "sys" / "block" / "sda" / "sda1").mkdir()
    (root / "sys" / "block" / "sda" / "sda1" / "partition").write_text("1\n")
    (root / "sys" / "class" / "block").mkdir(parents=True)
    (root / "sys" / "class" / "block" / "sda1").symlink_to("../../block/sda/sda1")
    refusal = TuningSession(root, ActionLog(tmp_path / "log")).plan("sda1", "scheduler", "none")
    assert isinstance(refusal, Refusal)
    assert refusal.message == "sda1 is a partition; its queue settings belong to sda"


def test_a_read_only_attribute_is_refused(root, tmp_path):
    # The kernel exposes some queue files 0444 on some devices; raidtop says so instead of trying.
    path = root / "sys" / "block" / "sda" / "queue" / "nomerges"
    path.chmod(0o444)
    checked = check_value(knob(root, "sda", "nomerges"), "2")
    assert checked.value is None and "read-only" in checked.error
