"""Processes and cgroup I/O readers against real captures (tests/data/processes/PROVENANCE.md)."""

from __future__ import annotations

import os
from pathlib import Path

from raidtop.collect.processes import ProcessWatch, parse_cgroup, parse_io, parse_stat
from raidtop.collect.processes.cgroup_io import CgroupIoReader, parse_blkio
from raidtop.collect.processes.procfs import ProcessTable
from raidtop.collect.rates.processes import io_attribution, unit_rates
from raidtop.collect.sampler import Sampler
from raidtop.collect.source import Root
from raidtop.model.processes import CgroupReading

DATA = Path(__file__).resolve().parents[2] / "data" / "processes"
HOST = DATA / "host-v1"
DD = 31303


def text(path: Path) -> str:
    return path.read_text()


def field(io_text: str, key: str) -> int:
    """A value of /proc/PID/io read here by hand, not by raidtop's parser."""
    return next(int(line.split()[1]) for line in io_text.splitlines() if line.startswith(key + ":"))


def test_io_parses_the_corpus_files_and_ignores_a_negative_cancelled_count():
    assert parse_io(text(DATA / "corpus/proc/26231/io")) == (750339, 818609, 7405, 5245, 1024, 2048)
    # read_bytes above rchar (mmap page faults): kept as the kernel says.
    assert parse_io(text(DATA / "corpus/proc/14804/io")) == (1605958, 69, 5534, 1, 1814455, 0)


def test_damaged_io_is_refused_not_guessed():
    good = text(DATA / "corpus/proc/26231/io")
    assert parse_io(good.replace("syscw: 5245", "syscw: lots")) is None
    assert parse_io(good.replace("read_bytes: 1024\n", "")) is None
    assert parse_io(good.replace("rchar: 750339", f"rchar: {1 << 70}")) is None


def test_stat_gives_command_start_and_kernel_thread():
    assert parse_stat(text(DATA / "corpus/proc/14804/stat"))[0] == "process-exporte"
    comm, start, kernel, _ppid = parse_stat(text(DATA / "vm-v2/proc/179/stat"))
    assert (comm, start, kernel) == ("md50_resync", 3007, True)
    assert parse_stat(text(HOST / f"t1/proc/{DD}/stat"))[2] is False
    assert parse_stat(text(HOST / "t1/proc/2/stat"))[2] is True  # kthreadd
    assert parse_stat("12 (a) b) S 1 2") is None  # cut short: no field 22


def test_cgroup_prefers_the_blkio_line_then_the_unified_one():
    assert parse_cgroup(text(HOST / f"t1/proc/{DD}/cgroup")) == "/raidtop-probe"
    assert parse_cgroup(text(DATA / "corpus/proc/14804/cgroup")).startswith("/system.slice/docker-")
    assert parse_cgroup(text(DATA / "vm-v2/proc/179/cgroup")) == "/"


def test_a_pid_without_an_io_file_is_not_listed_and_causes_no_note():
    procs, notes = ProcessTable().read(Root(DATA / "corpus"))
    assert sorted(p.pid for p in procs) == [14804, 26231] and notes == []
    vim = next(p for p in procs if p.pid == 26231)
    assert vim.comm == "vim" and vim.user == "?"  # no status file: user unknown, not invented


def test_the_live_table_reads_each_process_file_with_one_read(monkeypatch):
    # The Processes panel's cost is a few files per process per tick: each is a procfs
    # single-record file, so the read(2) that would return nothing is not made.
    import raidtop.safeio as safeio

    real, hints = safeio.read_bounded, []

    def read_bounded(path, *args, **kwargs):
        hints.append((str(path).rsplit("/", 1)[-1], kwargs.get("single_record", False)))
        return real(path, *args, **kwargs)

    monkeypatch.setattr("raidtop.collect.source.read_bounded", read_bounded)
    table = ProcessTable()
    procs, _ = table.read(Root("/"))
    assert os.getpid() in {p.pid for p in procs}
    kinds = {name for name, _ in hints if name != "passwd"}
    # /proc/PID/io, read every sample, stays open and is read again (tests/collect/test_held_records.py).
    assert kinds == {"stat", "status", "cgroup"}
    assert f"/proc/{os.getpid()}/io" in table.io_files
    assert all(single for name, single in hints if name != "passwd")


def test_v2_io_stat_skips_idle_devices_and_knows_the_tree():
    reading, notes = CgroupIoReader().read(Root(DATA / "vm-v2"))
    assert notes == [] and reading.source == "cgroup v2 io.stat" and reading.recursive
    assert reading.children["/"] == ("/loadgen.service",)
    root_devices = {(c.major, c.minor) for c in reading.counters if c.cgroup == "/"}
    assert root_devices == {(9, 50), (7, 0), (7, 1)}  # the 62 bare "7:N " lines are idle devices


def test_v2_root_remainder_is_md_resync_io():
    reading, _ = CgroupIoReader().read(Root(DATA / "vm-v2"))
    zero = CgroupReading(
        reading.source,
        tuple(c.__class__(c.cgroup, c.major, c.minor, 0, 0, 0, 0) for c in reading.counters),
        reading.children,
        True,
    )
    devices = {(7, 0): "loop0", (7, 1): "loop1", (9, 50): "md50"}
    by_device = unit_rates(zero, reading, devices, 1.0)  # totals since the counters began
    loop1 = {u.unit: u for u in by_device["loop1"]}
    # Root's io.stat minus loadgen.service's, from the two files: the resync writing the new member.
    assert loop1["/"].write_b_s == 63582208 - 49152000
    assert loop1["/loadgen.service"].write_b_s == 49152000
    loop0 = {u.unit: u for u in by_device["loop0"]}
    assert loop0["/"].read_b_s == 14565376  # ...reading the survivor


def test_v1_without_a_throttle_rule_says_so_and_gives_no_numbers():
    reader = CgroupIoReader()
    reading, _ = reader.read(Root(DATA / "v1-idle"))
    assert reading is None and "no throttle rule" in reader.absent_reason


def test_v1_blkio_lines():
    rows = parse_blkio(
        "/g",
        text(HOST / "t1/sys/fs/cgroup/blkio/raidtop-probe/blkio.throttle.io_service_bytes"),
        text(HOST / "t1/sys/fs/cgroup/blkio/raidtop-probe/blkio.throttle.io_serviced"),
    )
    assert [(r.major, r.minor, r.rbytes, r.wbytes) for r in rows] == [(7, 0, 0, 262733824)]
    assert rows[0].wios > 0


def test_dd_in_its_cgroup_is_the_top_writer_with_the_right_device():
    sampler = Sampler(HOST / "t1")
    sampler.processes.want_processes = True
    sampler.sample()
    sampler.root = Root(HOST / "t2")
    snap = sampler.sample()
    interval = float(text(HOST / "t2/proc/uptime").split()[0]) - float(text(HOST / "t1/proc/uptime").split()[0])
    top = snap.io.processes[0]
    assert (top.pid, top.comm, top.unit, top.user) == (DD, "dd", "raidtop-probe", "root")
    written = field(text(HOST / f"t2/proc/{DD}/io"), "write_bytes") - field(
        text(HOST / f"t1/proc/{DD}/io"), "write_bytes"
    )
    assert abs(top.write_b_s - written / interval) < 1e-6 * written
    assert snap.io.level == "per device" and snap.io.source == "cgroup v1 blkio.throttle"
    [unit] = [u for u in snap.io.by_device["loop0"] if u.unit == "/raidtop-probe"]
    assert unit.write_b_s > 0 and unit.read_b_s == 0


def test_nothing_is_read_while_nothing_shows_it():
    watch = ProcessWatch()
    notes: list[str] = []
    assert watch.read(Root(HOST / "t1"), notes) == (None, None, "") and notes == []
    sampler = Sampler(HOST / "t1")
    assert sampler.sample().io is None


def test_without_accounting_the_panel_falls_back_to_labelled_totals():
    sampler = Sampler(DATA / "corpus")
    sampler.processes.want_processes = True
    sampler.sample()
    io = sampler.sample().io
    assert io.level == "totals" and "no cgroup I/O accounting" in io.source and io.by_device is None


def test_a_reused_pid_starts_without_a_rate():
    table = ProcessTable()
    first, _ = table.read(Root(HOST / "t1"))
    dd = next(p for p in first if p.pid == DD)
    reborn = dd.__class__(
        **{**{f: getattr(dd, f) for f in dd.__slots__}, "start": dd.start + 1, "write_bytes": dd.write_bytes + 10}
    )
    from raidtop.collect.rates.processes import process_rates

    [row] = list(process_rates((dd,), (reborn,), 1.0))
    assert row.write_b_s is None


def test_attribution_is_none_when_nothing_was_read():
    sampler = Sampler(HOST / "t1")
    raw = sampler.read()
    assert io_attribution(None, raw, 1.0) is None


def test_a_parent_reaping_its_child_does_not_take_the_childs_bytes_as_its_own():
    # A shell looping over dd: when sh reaps a dd, the kernel adds the dd's whole
    # counters to sh's /proc/PID/io (seen in the VM: sh at 38 MB/s, dd below it).
    from raidtop.collect.rates.processes import process_rates
    from raidtop.model.processes import ProcCounters

    mib = 1 << 20

    def proc(pid, ppid, comm, written, start=100):
        return ProcCounters(pid, start, comm, False, "root", "/loadgen.service", 0, 0, 0, 0, 0, written, ppid=ppid)

    before = (proc(10, 1, "sh", 0), proc(11, 10, "dd", 40 * mib))
    # dd wrote 8 MiB more and ended; sh reaped it (48 MiB added), a new dd wrote 5 MiB.
    after = (proc(10, 1, "sh", 48 * mib), proc(12, 10, "dd", 5 * mib, start=150))
    rows = {r.pid: r for r in process_rates(before, after, 1.0)}
    assert rows[10].write_b_s == 8 * mib  # only the ended dd's last stretch stays with its family
    assert rows[12].write_b_s is None  # new since the last sample: from the next one
    # Without a reaped child the parent's own change is its rate.
    later = (proc(10, 1, "sh", 49 * mib), proc(12, 10, "dd", 9 * mib, start=150))
    rows = {r.pid: r for r in process_rates(after, later, 1.0)}
    assert rows[10].write_b_s == 1 * mib and rows[12].write_b_s == 4 * mib
    # A reused PID is another process that ended: its counters are its parent's to drop too.
    reused = (proc(10, 1, "sh", 49 * mib + 9 * mib), proc(12, 10, "dd", 0, start=200))
    rows = {r.pid: r for r in process_rates(later, reused, 1.0)}
    assert rows[10].write_b_s == 0 and rows[12].write_b_s is None


def test_stat_gives_the_parent_pid():
    assert parse_stat("12 (a b) S 7 12 12 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 555 0 0")[3] == 7
