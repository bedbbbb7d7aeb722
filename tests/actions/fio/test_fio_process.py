"""The fio runner: per-second points from status documents, cancel, failures.

A fake fio (tests/fake_fio.py) prints fio 3 status documents fast and
predictably: in fake second k, 1000·k I/Os of 4 KiB at 500 µs each.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from raidtop.actions.fio.process import FioRunner, progress_point

from tests.fake_fio import _document, make_fake_fio


@pytest.fixture
def fake_fio(tmp_path: Path) -> Path:
    return make_fake_fio(tmp_path / "bin")


def test_a_point_is_the_difference_of_two_cumulative_documents():
    first = json.loads(_document("j", True, False, 2))
    second = json.loads(_document("j", True, False, 3))
    point = progress_point(first, second)
    assert point.t_s == 3.0
    assert point.read_iops == pytest.approx(3000.0)
    assert point.read_bw_bytes_s == pytest.approx(3000 * 4096)
    assert point.read_lat_us == pytest.approx(500.0)
    assert point.write_iops == 0 and point.write_lat_us is None
    assert point.lat_us == pytest.approx(500.0)
    # Too little time between two documents: no rate yet.
    assert progress_point(second, second) is None


def test_the_first_point_counts_from_the_start():
    point = progress_point(None, json.loads(_document("j", True, True, 1)))
    assert (point.read_iops, point.write_iops, point.mib_s) == (1000, 1000, pytest.approx(2 * 1000 * 4096 / 2**20))


def test_fio_2_documents_use_kib_and_microseconds():
    doc = {"jobs": [{"read": {"io_bytes": 4000, "total_ios": 1000, "runtime": 1000, "clat": {"mean": 250.0}}}]}
    point = progress_point(None, doc)
    assert point.read_bw_bytes_s == 4000 * 1024
    assert point.read_lat_us == 250.0


def test_a_run_streams_points_and_ends_with_the_final_result(fake_fio: Path):
    seen = []
    outcome = FioRunner([str(fake_fio), "--name=t", "--rw=randread", "--runtime=4"], on_point=seen.append).run()
    assert outcome.ok and not outcome.partial and outcome.message is None
    assert [round(p.read_iops) for p in seen] == [1000, 2000, 3000, 4000]
    assert list(outcome.points) == seen
    assert outcome.result.read.total_ios == 10000
    assert outcome.result.read.lat_p99_us == pytest.approx(880.64)
    assert json.loads(outcome.json_text)["jobs"][0]["elapsed"] == 4


def test_cancel_keeps_the_partial_result(fake_fio: Path, monkeypatch):
    monkeypatch.setenv("FAKE_FIO_TICK", "0.2")
    first_point = threading.Event()
    runner = FioRunner(
        [str(fake_fio), "--name=t", "--rw=randrw", "--runtime=100"], on_point=lambda _p: first_point.set()
    )
    threading.Thread(target=lambda: (first_point.wait(10), runner.cancel()), daemon=True).start()
    outcome = runner.run()
    assert outcome.cancelled and outcome.partial and not outcome.ok
    assert outcome.has_result
    assert outcome.result.read.total_ios >= 1000 and outcome.result.write.total_ios >= 1000
    assert outcome.result.read.runtime_ms < 100_000
    assert "cancelled" in outcome.message


def test_cancel_before_start_never_starts_fio(fake_fio: Path):
    runner = FioRunner([str(fake_fio), "--name=t", "--runtime=100"])
    runner.cancel()
    outcome = runner.run()
    assert outcome.returncode is None and outcome.cancelled and outcome.result is None


def test_a_failing_fio_gives_its_last_stderr_line(fake_fio: Path, monkeypatch):
    monkeypatch.setenv("FAKE_FIO_EXIT", "1")
    outcome = FioRunner([str(fake_fio), "--name=t", "--runtime=2"]).run()
    assert outcome.result is None and outcome.partial
    assert outcome.message.startswith("fio failed (exit status 1): fio: pid=1")
    assert "No space left on device" in outcome.message


def test_a_missing_executable_is_a_message(tmp_path: Path):
    outcome = FioRunner([str(tmp_path / "no-fio"), "--name=t"]).run()
    assert outcome.result is None and outcome.message.startswith("fio could not start")
