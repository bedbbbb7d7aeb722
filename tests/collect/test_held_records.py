"""Single-record procfs files kept open between samples, against the real /proc of real processes."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from raidtop.collect.held_records import MOST_HELD, HeldRecords, default_limit
from raidtop.collect.processes.procfs import ProcessTable, parse_io
from raidtop.collect.source import Root
from raidtop.safeio import FIRST_RECORD_READ, UnsafeFile

# A child that reads a little from /dev/zero each time it is told to on stdin, then says so.
READER = "import sys\nwhile sys.stdin.readline():\n    open('/dev/zero','rb').read(65536); print('ok', flush=True)\n"


@pytest.fixture
def reader():
    child = subprocess.Popen([sys.executable, "-c", READER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    yield child
    child.kill()
    child.wait()


def read_more(child: subprocess.Popen) -> None:
    assert child.stdin is not None and child.stdout is not None
    child.stdin.write("go\n")
    child.stdin.flush()
    assert child.stdout.readline() == "ok\n"


def rchar(data: bytes) -> int:
    counters = parse_io(data.decode())
    assert counters is not None
    return counters[0]


def test_a_kept_file_gives_the_counters_of_now_at_each_read(reader) -> None:
    held = HeldRecords()
    path = f"/proc/{reader.pid}/io"
    first = rchar(held.read(path))
    assert len(held) == 1
    read_more(reader)
    second = rchar(held.read(path))
    assert second >= first + 65536  # procfs made the text again: not the first read's
    assert len(held) == 1
    held.close()
    assert len(held) == 0


def test_the_file_of_a_process_that_ended_is_closed_and_its_path_read_again(reader) -> None:
    held = HeldRecords()
    path = f"/proc/{reader.pid}/io"
    held.read(path)
    reader.kill()
    reader.wait()  # reaped: the PID's directory is gone
    with pytest.raises(OSError):
        held.read(path)
    assert len(held) == 0


def test_a_round_closes_the_files_not_read_in_it(reader) -> None:
    held = HeldRecords()
    mine, child = f"/proc/{os.getpid()}/io", f"/proc/{reader.pid}/io"
    held.read(mine)
    held.read(child)
    held.end_round()
    assert len(held) == 2
    held.read(mine)
    held.end_round()
    assert len(held) == 1
    held.end_round()
    assert len(held) == 0


def test_past_its_limit_a_file_is_read_by_path_and_still_current(reader) -> None:
    held = HeldRecords(limit=1)
    held.read(f"/proc/{os.getpid()}/io")
    path = f"/proc/{reader.pid}/io"
    first = rchar(held.read(path))
    read_more(reader)
    assert rchar(held.read(path)) >= first + 65536
    assert len(held) == 1


def test_the_limit_is_a_share_of_the_descriptor_limit() -> None:
    assert 0 < default_limit() <= MOST_HELD


def test_a_file_longer_than_one_read_is_read_whole_and_not_kept(tmp_path) -> None:
    long = tmp_path / "long"
    long.write_bytes(b"x" * (3 * FIRST_RECORD_READ + 5))
    held = HeldRecords()
    assert held.read(str(long)) == b"x" * (3 * FIRST_RECORD_READ + 5)
    assert len(held) == 0


def test_a_fifo_is_refused_not_waited_on(tmp_path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(UnsafeFile):
        HeldRecords().read(str(fifo))


def test_only_the_live_root_keeps_files(tmp_path) -> None:
    (tmp_path / "proc" / "7").mkdir(parents=True)
    (tmp_path / "proc" / "7" / "io").write_text("rchar: 1\n")
    held = HeldRecords()
    assert Root(tmp_path).read_optional("/proc/7/io", single_record=True, held=held) == "rchar: 1\n"
    assert len(held) == 0
    assert Root("/").read_optional(f"/proc/{os.getpid()}/io", single_record=True, held=held) is not None
    assert len(held) == 1


def test_the_process_table_keeps_the_io_files_while_shown_and_closes_them_on_reset(reader) -> None:
    table = ProcessTable()
    rows, _ = table.read(Root("/"))
    assert {os.getpid(), reader.pid} <= {row.pid for row in rows}
    assert len(table.io_files) >= 2
    before = next(row for row in rows if row.pid == reader.pid)
    read_more(reader)
    rows, _ = table.read(Root("/"))
    after = next(row for row in rows if row.pid == reader.pid)
    assert after.rchar >= before.rchar + 65536
    reader.kill()
    reader.wait()
    rows, _ = table.read(Root("/"))
    assert reader.pid not in {row.pid for row in rows}
    assert f"/proc/{reader.pid}/io" not in table.io_files
    assert f"/proc/{os.getpid()}/io" in table.io_files
    table.reset()  # the panel hidden: nothing stays open
    assert len(table.io_files) == 0
