"""The target raidtop opens for fio: links, names fio would split, pseudo filesystems, the lock, cleanup.

Real directories, links and FIFOs in a temporary directory, and the fake fio
(tests/fake_fio.py), which like fio creates its ``--filename``. Each attack
leaves a sentinel that must survive. The same attacks on real loop devices
with real fio are in tests/live/test_fio_live.py.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from raidtop.actions.action_log import ActionLog
from raidtop.actions.fio.session import Batch, execute, plan_run, run_repeat
from raidtop.actions.fio.guards import TargetRefused, check_target
from raidtop.actions.fio.store import RunStore
from raidtop.actions.fio.opened import PRIVATE_DIR_NAME, open_device_target, open_directory_target
from raidtop.actions.fio.presets import parse_presets_toml

from tests.conftest import ended_within
from tests.fake_fio import make_fake_fio

PRESETS = parse_presets_toml('runtime = 2\nsize = "1M"\n')
SENTINEL = b"raidtop sentinel: must survive\n" * 64


@pytest.fixture
def fio(tmp_path: Path, monkeypatch) -> str:
    for kind in ("DATA", "CONFIG", "STATE"):
        monkeypatch.setenv(f"XDG_{kind}_HOME", str(tmp_path / "xdg" / kind.lower()))
    monkeypatch.setenv("FAKE_FIO_TICK", "0.01")
    return str(make_fake_fio(tmp_path / "bin"))


def sentinel_file(path: Path) -> Path:
    path.write_bytes(SENTINEL)
    return path


def plan(target: Path | str, fio: str, name: str = "rand-write", **kwargs):
    return plan_run(PRESETS.get(name), str(target), presets=PRESETS, fio=fio, **kwargs)


def test_a_symlinked_directory_target_is_refused_saying_so(tmp_path: Path):
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    with pytest.raises(TargetRefused, match="is a symbolic link: give the directory itself"):
        check_target(tmp_path / "link", size="1M")


def test_a_link_where_the_test_file_goes_is_never_written_or_deleted(tmp_path: Path, fio: str):
    # The old attack: DIR/raidtop-bench.dat -> a victim. fio now writes inside raidtop's own directory.
    victim = sentinel_file(tmp_path / "victim")
    target = tmp_path / "target"
    target.mkdir()
    (target / "raidtop-bench.dat").symlink_to(victim)
    record = execute(plan(target, fio), RunStore(tmp_path / "h.sqlite"), log=ActionLog(tmp_path / "a.log"))
    assert record.outcome.ok, record.message
    assert victim.read_bytes() == SENTINEL
    assert os.readlink(target / "raidtop-bench.dat") == str(victim), "a link raidtop did not make is left alone"
    assert sorted(os.listdir(target)) == ["raidtop-bench.dat"]


@pytest.mark.parametrize("planted", ["link", "directory", "file"])
def test_anything_already_named_like_raidtops_directory_is_refused_and_kept(tmp_path: Path, fio: str, planted: str):
    victim = sentinel_file(tmp_path / "victim")
    target = tmp_path / "target"
    target.mkdir()
    spot = target / PRIVATE_DIR_NAME
    if planted == "link":
        spot.symlink_to(tmp_path)
    elif planted == "directory":
        spot.mkdir()
        (spot / "raidtop-bench.dat").symlink_to(victim)
    else:
        spot.write_bytes(SENTINEL)
    with pytest.raises(TargetRefused, match=r"raidtop-bench\.d already exists .* remove it"):
        plan(target, fio)
    assert victim.read_bytes() == SENTINEL
    assert os.path.lexists(spot)
    if planted == "directory":
        assert os.readlink(spot / "raidtop-bench.dat") == str(victim)


def test_a_name_fio_would_split_reaches_only_the_directory_checked(tmp_path: Path, fio: str):
    # fio reads ':' as a list separator: "colon/x:" used to write /raidtop-bench.dat.
    target = tmp_path / "colon" / "x:"
    target.mkdir(parents=True)
    argv_seen: list[tuple[str, ...]] = []
    record = execute(
        plan(target, fio),
        RunStore(tmp_path / "h.sqlite"),
        log=ActionLog(tmp_path / "a.log"),
        on_point=lambda _p: argv_seen.append(tuple(os.listdir(target / PRIVATE_DIR_NAME))),
    )
    assert record.outcome.ok, record.message
    assert argv_seen and argv_seen[0] == ("raidtop-bench.dat",), (
        "fio's file was in raidtop's directory under the target"
    )
    assert not (tmp_path / "colon" / "x").exists()
    assert os.listdir(target) == []
    logged = ActionLog(tmp_path / "a.log").read("fio")[0]
    assert logged.details["fio_filename"].startswith("/proc/self/fd/") and ":" not in logged.details["fio_filename"]
    assert f"--filename={target}/{PRIVATE_DIR_NAME}/raidtop-bench.dat" in logged.command


@pytest.mark.parametrize("path", ["/dev/", "/dev/shm", "/proc", "/proc/sys", "/sys", "/sys/fs/cgroup"])
def test_system_trees_and_pseudo_filesystems_get_no_test_file(path: str):
    if not os.path.isdir(path):
        pytest.skip(f"{path} is not here")
    with pytest.raises(TargetRefused, match="no place for a test file"):
        check_target(path, size="1M")


def test_a_fifo_or_file_target_is_refused(tmp_path: Path):
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(TargetRefused, match="neither a directory nor a block device"):
        check_target(tmp_path / "fifo")


def test_a_directory_swapped_after_planning_is_refused(tmp_path: Path, fio: str):
    target = tmp_path / "target"
    target.mkdir()
    checked = plan(target, fio)
    target.rename(tmp_path / "moved")
    target.mkdir()
    record = execute(checked, RunStore(tmp_path / "h.sqlite"), log=ActionLog(tmp_path / "a.log"))
    assert record.stored is None and "no longer the directory that was checked" in record.message
    assert os.listdir(target) == [] and os.listdir(tmp_path / "moved") == []


def test_a_second_bench_on_the_same_directory_is_refused_while_the_first_runs(tmp_path: Path, fio: str, monkeypatch):
    monkeypatch.setenv("FAKE_FIO_TICK", "0.2")
    target = tmp_path / "target"
    target.mkdir()
    history = RunStore(tmp_path / "h.sqlite")
    first = plan(target, fio, runtime_s=100)
    second = plan(target, fio)  # planned before the first starts: the run itself must take the lock
    batch = Batch()
    running = threading.Event()
    records = []
    worker = threading.Thread(
        target=lambda: records.append(
            execute(first, history, batch=batch, log=ActionLog(tmp_path / "a.log"), on_point=lambda _p: running.set())
        )
    )
    worker.start()
    try:
        assert running.wait(60), "the first run never reported progress"
        with pytest.raises(TargetRefused, match="another raidtop benchmark is running on"):
            plan(target, fio)
        refused = execute(second, history, log=ActionLog(tmp_path / "a.log"))
        assert refused.stored is None and "another raidtop benchmark is running" in refused.message
    finally:
        batch.cancel()
        worker.join(60)
    assert records[0].stored is not None and records[0].stored.partial
    assert [r.id for r in history.runs()] == [records[0].stored.id], "only the first run is stored"
    assert os.listdir(target) == []


def test_a_repeat_keeps_one_directory_and_removes_it_at_the_end(tmp_path: Path, fio: str):
    target = tmp_path / "target"
    target.mkdir()
    seen: list[tuple[int, int]] = []

    def on_pass(_n, _record) -> None:
        st = os.stat(target / PRIVATE_DIR_NAME)
        seen.append((st.st_dev, st.st_ino))

    records = run_repeat(
        plan(target, fio), RunStore(tmp_path / "h.sqlite"), 3, log=ActionLog(tmp_path / "a.log"), on_pass=on_pass
    )
    assert [r.outcome.ok for r in records] == [True, True, True]
    assert len(set(seen)) == 1
    assert os.listdir(target) == []


def test_cleanup_leaves_a_directory_put_in_place_of_raidtops(tmp_path: Path):
    target = tmp_path / "target"
    target.mkdir()
    opened = open_directory_target(str(target), 1024 * 1024)
    os.rename(target / PRIVATE_DIR_NAME, target / "moved-away")
    (target / PRIVATE_DIR_NAME).mkdir()
    sentinel_file(target / PRIVATE_DIR_NAME / "theirs")
    opened.close()
    assert (target / PRIVATE_DIR_NAME / "theirs").read_bytes() == SENTINEL


def test_an_unwritable_history_refuses_before_fio_runs(tmp_path: Path, fio: str, monkeypatch):
    started = tmp_path / "fio-started"
    monkeypatch.setenv("FAKE_FIO_STARTED", str(started))
    blocker = sentinel_file(tmp_path / "not-a-dir")
    target = tmp_path / "target"
    target.mkdir()
    record = execute(plan(target, fio), RunStore(blocker / "bench.sqlite"), log=ActionLog(tmp_path / "a.log"))
    assert record.stored is None and "cannot be written" in record.message and "fio was not started" in record.message
    assert not started.exists()
    assert blocker.read_bytes() == SENTINEL and os.listdir(target) == []


@pytest.mark.parametrize("size", ["0", "512", "0k", "big"])
def test_a_test_file_that_is_no_size_is_refused(tmp_path: Path, fio: str, size: str):
    target = tmp_path / "target"
    target.mkdir()
    with pytest.raises(TargetRefused, match="test-file size must"):
        plan(target, fio, size=size)


def test_the_handoff_line_says_exactly_how_the_shown_command_becomes_the_one_run(tmp_path: Path, fio: str):
    target = tmp_path / "bench"
    target.mkdir()
    planned = plan(target, fio, "certification", default_runtime_s=1)
    assert planned.command.runtime_s == 30, "a preset's own runtime wins over the screen's default"
    planned = plan(target, fio, "seq-read", default_runtime_s=1)
    shown_file = f"{target}/{PRIVATE_DIR_NAME}/raidtop-bench.dat"
    assert f"--filename={shown_file}" in planned.command.display
    assert (
        "Handoff: fio runs the command above with --filename=/proc/self/fd/N/raidtop-bench.dat in place of the "
        f"--filename shown; N is raidtop's locked descriptor on the private {PRIVATE_DIR_NAME}:"
    ) in planned.details
    record = execute(planned, RunStore(tmp_path / "h.sqlite"), log=ActionLog(tmp_path / "a.log"))
    assert record.outcome.ok, record.message
    logged = ActionLog(tmp_path / "a.log").read("fio")[0]
    ran = logged.details["fio_filename"]
    number = ran.split("/")[4]
    assert number.isdigit() and ran == f"/proc/self/fd/{number}/raidtop-bench.dat"
    # The command shown, with the one argument the handoff names swapped, is the argv fio got.
    assert planned.command.argv_for(ran) == tuple(
        f"--filename={ran}" if arg == f"--filename={shown_file}" else arg for arg in planned.command.argv
    )
    assert logged.command == planned.command.display


def test_a_fifo_swapped_in_for_the_raw_device_is_refused_without_blocking(tmp_path: Path):
    # Between planning and running, the checked device's path became a FIFO: opening it
    # for reading would wait for a writer forever (the bench's start would hang).
    fifo = tmp_path / "sdz"
    os.mkfifo(fifo)
    refused = ended_within(lambda: open_device_target(str(fifo), (8, 0)), fifo)
    assert isinstance(refused, TargetRefused)
    assert "no longer the block device that was checked" in str(refused)
