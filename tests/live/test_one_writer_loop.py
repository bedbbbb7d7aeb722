"""The one writer on a real kernel: the fio sweep's read-ahead and scheduler writes on a loop
device this test attaches, read back from sysfs, logged, and restored. Root only; the device is
detached in a ``finally``; the other loop device's value is a sentinel that must not move."""

from __future__ import annotations

from pathlib import Path

from raidtop.actions.action_log import ActionLog
from raidtop.actions.fio.sweep import run_sweep
from raidtop.actions.tuning import TuningSession, write_attribute

import pytest

from tests.actions.fio.test_fio_compare import _loop_tuning, _plan, history  # noqa: F401  (history is a fixture)
from test_tuning_loop import loops, queue  # noqa: F401  (loops attaches two loop devices and detaches them)

pytestmark = pytest.mark.live


def test_the_sweep_writes_a_real_loop_device_through_the_session_and_restores(loops, history, tmp_path: Path):  # noqa: F811
    device, sentinel = loops
    before, sentinel_value = queue(device, "read_ahead_kb"), queue(sentinel, "read_ahead_kb")
    log = ActionLog(tmp_path / "actions.log")
    session = TuningSession("/", log)
    seen: list[str] = []

    def run(plan, hist, **kwargs):
        seen.append(queue(device, "read_ahead_kb"))  # what the kernel holds while "fio" runs
        return None

    outcome = run_sweep(
        _plan(_loop_tuning()),
        history,
        "read_ahead_kb",
        [512, 1024],
        devices=[device],
        root="/",
        log=log,
        run=run,
        session=session,
    )
    assert seen == ["512", "1024"] and outcome.restore_errors == ()
    assert queue(device, "read_ahead_kb") == before and queue(sentinel, "read_ahead_kb") == sentinel_value
    entries = log.read("tune")
    assert [(e.details["new"], e.details["readback"], e.details["by"]) for e in entries] == [
        ("512", "512", "fio sweep"),
        ("1024", "1024", "fio sweep"),
        (before, before, "fio sweep: restore"),
    ]


def test_the_writer_refuses_an_attribute_the_kernel_does_not_have(loops):  # noqa: F811
    device, _ = loops
    missing = Path(f"/sys/block/{device}/queue/no_such_knob")
    with pytest.raises(OSError):
        write_attribute(str(missing), "1")
    assert not missing.exists()
