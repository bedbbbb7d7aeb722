"""Process rates over three samples: idle processes keep their rows, the order is the full sort's."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from raidtop.collect.rates.processes import process_rates
from raidtop.model.processes import ProcCounters, ProcessIO


def _proc(pid: int, start: int = 100, ppid: int = 1) -> ProcCounters:
    return ProcCounters(
        pid, start, f"p{pid}", pid % 7 == 0, "root", f"/u{pid % 3}.service", 0, 0, 0, 0, 0, 0, ppid=ppid
    )


def _next(data: st.DataObject, procs: tuple[ProcCounters, ...], new_pid: int) -> tuple[ProcCounters, ...]:
    """The next sample: each process idle (the very object), moved, reborn under its PID, or gone; a new one."""
    out = []
    for p in procs:
        fate = data.draw(st.sampled_from(["idle", "idle", "idle", "moved", "calls only", "reset", "reborn", "gone"]))
        if fate == "idle":
            out.append(p)
        elif fate == "moved":
            grow = data.draw(st.lists(st.integers(0, 1 << 20), min_size=4, max_size=4))
            out.append(
                replace(
                    p,
                    read_bytes=p.read_bytes + grow[0],
                    write_bytes=p.write_bytes + grow[1],
                    syscr=p.syscr + grow[2],
                    syscw=p.syscw + grow[3],
                )
            )
        elif fate == "calls only":  # rchar moved: a new object whose four rates are all zero
            out.append(replace(p, rchar=p.rchar + 1))
        elif fate == "reset":
            out.append(replace(p, write_bytes=max(0, p.write_bytes - 1), rchar=p.rchar + 1))
        elif fate == "reborn":
            out.append(replace(p, start=p.start + 1))
    out.append(_proc(new_pid, ppid=data.draw(st.sampled_from([1, *(p.pid for p in procs)]))))
    return tuple(data.draw(st.permutations(out)))  # /proc lists PIDs in order; a recording need not


def _full_sort(rows: tuple[ProcessIO, ...]) -> list[ProcessIO]:
    return sorted(rows, key=lambda r: (-r.total_b_s, -((r.syscr_s or 0.0) + (r.syscw_s or 0.0)), r.pid))


@settings(max_examples=300, deadline=None)
@given(data=st.data(), count=st.integers(0, 30), interval=st.sampled_from([0.5, 1.0, 3.0]))
def test_idle_processes_keep_their_rows_and_the_order_is_the_full_sort(data, count, interval):
    first = tuple(_proc(pid) for pid in range(2, 2 + count))
    second = _next(data, first, 1000)
    third = _next(data, second, 1001)
    earlier = process_rates(first, second, interval)
    rows = process_rates(second, third, interval, earlier)
    assert rows == process_rates(second, third, interval)  # the kept rows change no value
    assert list(rows) == _full_sort(rows)
    assert [r.pid for r in rows] == [r.pid for r in _full_sort(process_rates(second, third, interval))]
    zero = {r.pid: r for r in earlier if (r.read_b_s, r.write_b_s, r.syscr_s, r.syscw_s) == (0.0, 0.0, 0.0, 0.0)}
    before = {p.pid: p for p in second}
    for p, row in ((p, r) for p in third for r in rows if r.pid == p.pid):
        if before.get(p.pid) is p and p.pid in zero:
            assert row is zero[p.pid]  # kept, not built again
        else:
            assert not any(row is r for r in earlier)


def test_a_row_idle_now_but_busy_last_time_is_built_again_with_zero_rates():
    p = _proc(5)
    moved = replace(p, write_bytes=4096)
    [busy] = process_rates((p,), (moved,), 1.0)
    assert busy.write_b_s == 4096.0
    [idle] = process_rates((moved,), (moved,), 1.0, (busy,))
    assert idle is not busy and (idle.read_b_s, idle.write_b_s, idle.syscr_s, idle.syscw_s) == (0.0, 0.0, 0.0, 0.0)
