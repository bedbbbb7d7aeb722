"""The exact fio command line, and the libaio → psync fallback."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from raidtop.actions.fio import command as command_module
from raidtop.actions.fio.command import EngineChoice, build_command, check_engine, fio_version
from raidtop.actions.fio.guards import BenchTarget
from raidtop.actions.fio.presets import BUILTIN_PRESETS

from tests.fake_fio import make_fake_fio

PRESETS = {p.name: p for p in BUILTIN_PRESETS}
LIBAIO = EngineChoice("libaio")


def test_a_directory_run_writes_one_sized_test_file():
    target = BenchTarget("/srv/my bench", "directory", "md0", test_file="/srv/my perf/raidtop-bench.dat")
    cmd = build_command(PRESETS["rand-rw"], target, runtime_s=15, size="1G", engine=LIBAIO, fio="fio")
    assert cmd.argv == (
        "fio",
        "--name=rand-rw",
        "--filename=/srv/my perf/raidtop-bench.dat",
        "--rw=randrw",
        "--rwmixread=50",
        "--bs=4k",
        "--iodepth=32",
        "--numjobs=4",
        "--thread",
        "--ioengine=libaio",
        "--direct=1",
        "--time_based",
        "--runtime=15",
        "--size=1G",
        "--group_reporting",
        "--output-format=json",
        "--status-interval=1",
    )
    # The string shown to the user is the same command, quoted for a shell.
    assert shlex.split(cmd.display) == list(cmd.argv)
    assert "'--filename=/srv/my perf/raidtop-bench.dat'" in cmd.display


def test_a_read_job_on_a_raw_device_is_read_only_and_unsized():
    target = BenchTarget("/dev/loop7", "device", "loop7", lab=True)
    cmd = build_command(PRESETS["seq-read"], target, runtime_s=5, engine=LIBAIO, fio="fio")
    assert "--readonly" in cmd.argv
    assert not any(a.startswith("--size") for a in cmd.argv)
    assert "--filename=/dev/loop7" in cmd.argv
    write = build_command(PRESETS["certification"], target, runtime_s=30, engine=LIBAIO, fio="fio")
    assert "--readonly" not in write.argv
    assert (write.argv[4], write.argv[5], write.argv[11]) == ("--bs=4M", "--iodepth=64", "--runtime=30")


def test_the_fallback_engine_and_its_reason_are_carried():
    target = BenchTarget("/dev/loop7", "device", "loop7", lab=True)
    cmd = build_command(
        PRESETS["rand-read"],
        target,
        runtime_s=5,
        engine=EngineChoice("psync", "libaio unavailable (x); using psync"),
        fio="fio",
    )
    assert "--ioengine=psync" in cmd.argv
    assert (cmd.engine, cmd.engine_note) == ("psync", "libaio unavailable (x); using psync")


@pytest.fixture
def fake_fio(tmp_path: Path) -> Path:
    command_module._engine_cache.clear()
    yield make_fake_fio(tmp_path / "bin")
    command_module._engine_cache.clear()


def test_libaio_is_kept_when_fio_can_use_it(fake_fio: Path):
    assert check_engine("libaio", str(fake_fio)) == EngineChoice("libaio")


def test_a_fio_built_without_libaio_falls_back_to_psync(fake_fio: Path, monkeypatch):
    monkeypatch.setenv("FAKE_FIO_ENGINES", "sync psync")
    choice = check_engine("libaio", str(fake_fio))
    assert choice.engine == "psync"
    assert choice.note == "libaio unavailable (this fio was built without it); using psync"


def test_a_kernel_refusing_aio_falls_back_to_psync_with_fios_words(fake_fio: Path, monkeypatch):
    monkeypatch.setenv("FAKE_FIO_PROBE_FAIL", "1")
    choice = check_engine("libaio", str(fake_fio))
    assert choice.engine == "psync"
    assert "io_setup: Function not implemented" in choice.note


def test_other_engines_are_not_probed():
    assert check_engine("io_uring", "/nonexistent/fio") == EngineChoice("io_uring")


def test_fio_version_is_read_and_a_missing_fio_is_none(fake_fio: Path, tmp_path: Path):
    assert fio_version(str(fake_fio)) == "fio-3.33"
    assert fio_version(str(tmp_path / "nothing")) is None
