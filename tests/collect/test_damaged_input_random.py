"""Real diskstats and stat files damaged at random (hypothesis).

The parsers and the Sampler never raise, never give a negative rate, never a CPU share outside 0-100.
"""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from raidtop.collect import rates
from raidtop.collect.cpustat import parse_stat
from raidtop.collect.diskstats import DiskstatsParser, parse_diskstats
from raidtop.collect.sampler import Sampler
from tests.collect.corpus_files import CORPUS, SYSSTAT

# Both ways of reading disks: the compiled parse and rates, and their Python twin alone.
pytestmark = pytest.mark.usefixtures("disk_code")

REAL_DISKSTATS = (CORPUS / "proc-diskstats" / "prometheus-procfs__proc_diskstats").read_text()


REAL_STAT = (SYSSTAT / "root1" / "proc" / "stat").read_text()


@st.composite
def damaged(draw, text: str) -> str:
    """``text`` after a few random edits of the kinds a bad read or a bad file makes."""
    data = bytearray(text.encode())
    for _ in range(draw(st.integers(1, 6))):
        if not data:
            break
        at = draw(st.integers(0, len(data) - 1))
        edit = draw(st.sampled_from(["cut", "insert", "overwrite", "truncate", "repeat-line", "digit"]))
        if edit == "cut":
            del data[at : at + draw(st.integers(1, 40))]
        elif edit == "insert":
            data[at:at] = draw(st.binary(min_size=1, max_size=12))
        elif edit == "overwrite":
            chunk = draw(st.binary(min_size=1, max_size=8))
            data[at : at + len(chunk)] = chunk
        elif edit == "truncate":
            del data[at:]
        elif edit == "repeat-line":
            start = data.rfind(b"\n", 0, at) + 1
            end = data.find(b"\n", at)
            data[start:start] = data[start : (end + 1 if end >= 0 else len(data))]
        else:
            data[at : at + 1] = str(draw(st.integers(0, 9))).encode()
    return bytes(data).decode("utf-8", "replace")


def all_rates_sane(row) -> bool:
    values = [getattr(row, f) for f in rates.DISK_RATE_FIELDS]
    return all(v is None or (math.isfinite(v) and v >= 0) for v in values)


REAL_CPUS, _ = parse_stat(REAL_STAT)
REAL_DISKS = {d.name: d for d in parse_diskstats(REAL_DISKSTATS)[0]}


@settings(max_examples=100, deadline=None)
@given(damaged(REAL_DISKSTATS))
def test_damaged_diskstats_never_raises_nor_gives_a_negative_rate(text: str) -> None:
    disks, notes = parse_diskstats(text)
    assert all(isinstance(n, str) for n in notes)
    # The caching parser agrees with a fresh parse whatever came before.
    cached = DiskstatsParser()
    cached.parse(REAL_DISKSTATS)
    assert cached.parse(text) == (disks, notes)
    original = REAL_DISKS
    for disk in disks:
        if disk.name in original:
            assert all_rates_sane(rates.disk_io(original[disk.name], disk, 1.0))
            assert all_rates_sane(rates.disk_io(disk, original[disk.name], 1.0))


def cpu_shares_sane(rows) -> bool:
    fields = ("usr", "nice", "sys", "iowait", "irq", "soft", "steal", "guest", "gnice", "idle")
    values = [getattr(r, f) for r in rows for f in fields]
    sums = [sum(getattr(r, f) for f in fields) for r in rows if r.idle is not None]
    in_range = all(v is None or 0.0 <= v <= 100.0 + 1e-9 for v in values)
    return in_range and all(s <= 100.0 + 1e-6 for s in sums)


@settings(max_examples=100, deadline=None)
@given(damaged(REAL_STAT))
def test_damaged_stat_never_raises_nor_gives_shares_outside_0_100(text: str) -> None:
    stat, notes = parse_stat(text)
    assert all(isinstance(n, str) for n in notes)
    original = REAL_CPUS
    assert cpu_shares_sane(rates.cpu_usages(original, stat))
    assert cpu_shares_sane(rates.cpu_usages(stat, original))
    assert cpu_shares_sane(rates.cpu_usages(None, stat))
    for before, after in ((original, stat), (stat, original)):
        vm = rates.vm_stat(before, after, None, None, None, 1.0, 4.0, since_boot=False)
        shares = [vm.us, vm.sy, vm.id, vm.wa, vm.st]
        assert all(v is None or 0.0 <= v <= 100.0 + 1e-9 for v in shares)


@pytest.fixture(scope="module")
def damage_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("damage-root")
    shutil.copytree(SYSSTAT / "root1" / "proc", root / "proc")
    shutil.copytree(SYSSTAT / "root1" / "sys" / "block", root / "sys" / "block")
    return root


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(diskstats=damaged(REAL_DISKSTATS), stat=damaged(REAL_STAT))
def test_sampler_never_raises_on_damaged_files(damage_root: Path, diskstats: str, stat: str) -> None:
    proc = damage_root / "proc"
    (proc / "diskstats").write_text(REAL_DISKSTATS)
    (proc / "stat").write_text(REAL_STAT)
    sampler = Sampler(damage_root)
    sampler.sample()
    (proc / "diskstats").write_text(diskstats)
    (proc / "stat").write_text(stat)
    snapshot = sampler.sample()
    assert all(all_rates_sane(d) for d in snapshot.disks)
    assert cpu_shares_sane(snapshot.cpus)
    # And back to the good files: the damaged sample is a usable reference too.
    (proc / "diskstats").write_text(REAL_DISKSTATS)
    (proc / "stat").write_text(REAL_STAT)
    recovered = sampler.sample()
    assert all(all_rates_sane(d) for d in recovered.disks)
    assert cpu_shares_sane(recovered.cpus)
