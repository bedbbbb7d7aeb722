"""The ``raidtop`` command's own process, run in a real terminal (a private tmux server).

Issue 30, item 4: asyncio imports ``ssl`` for TLS transports the dashboard
never opens, and with it libssl and libcrypto (4.4 MB of the dashboard's
memory). The command keeps them out; what it maps is read from /proc.
"""

from __future__ import annotations

import ctypes
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.terminal_pane import REPO, terminal_pane

ROOT = REPO / "tests" / "data" / "ui" / "root1"


@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux (.ci/run installs it)")
def test_the_dashboard_maps_no_tls_library_and_still_draws_and_quits():
    with terminal_pane([sys.executable, "-m", "raidtop", "--root", str(ROOT)], "lean") as pane:
        deadline = time.monotonic() + 60  # a bound on a busy machine, not a timing assertion
        while "sdq" not in pane.screen() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert "sdq" in pane.screen(), pane.screen()
        maps = Path(f"/proc/{pane.pid}/maps").read_text()
        assert "python" in maps  # it is the interpreter running the dashboard
        mapped = {line.split()[-1].rsplit("/", 1)[-1] for line in maps.splitlines() if "/" in line}
        tls = sorted(name for name in mapped if name.startswith(("libssl", "libcrypto", "_ssl")))
        assert not tls, tls
        pane.send("q")
        assert pane.wait_gone(), "q did not end the dashboard"


def test_tls_is_left_out_only_where_nothing_holds_it_yet():
    probe = "import sys; from raidtop.__main__ import leave_tls_out; leave_tls_out(); import asyncio; import ssl\n"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert result.returncode == 1 and "ModuleNotFoundError: import of ssl halted" in result.stderr
    probe = "import ssl, sys; from raidtop.__main__ import leave_tls_out; leave_tls_out(); print(sys.modules['ssl'])"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and "<module 'ssl'" in result.stdout


ARENA_PROBE = """
import ctypes, os, sys, tempfile, threading
from raidtop.__main__ import tune_malloc
if sys.argv[1] == "one":
    tune_malloc()
def allocate():
    kept = [bytes(2000) for _ in range(2000)]  # above Python's small-object size: malloc's
    del kept
threads = [threading.Thread(target=allocate) for _ in range(4)]
for t in threads:
    t.start()
for t in threads:
    t.join()
libc = ctypes.CDLL(None)
libc.fopen.restype = ctypes.c_void_p
fd, path = tempfile.mkstemp()
os.close(fd)
out = libc.fopen(path.encode(), b"w")
libc.malloc_info(0, ctypes.c_void_p(out))
libc.fclose(ctypes.c_void_p(out))
print(open(path).read().count("<heap nr="))
os.unlink(path)
"""


@pytest.mark.skipif(not hasattr(ctypes.CDLL(None), "malloc_info"), reason="glibc's malloc only")
def test_the_dashboards_threads_share_one_malloc_arena():
    def heaps(mode: str) -> int:
        probe = [sys.executable, "-c", ARENA_PROBE, mode]
        result = subprocess.run(probe, capture_output=True, text=True, timeout=60, cwd=REPO)
        assert result.returncode == 0, result.stderr
        return int(result.stdout)

    assert heaps("as-is") > 1  # the reference: glibc gives the threads arenas of their own
    assert heaps("one") == 1


MMAP_PROBE = """
import ctypes, sys
from raidtop.__main__ import tune_malloc
FIELDS = "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost".split()
class MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in FIELDS]
libc = ctypes.CDLL(None)
libc.mallinfo2.restype = MallInfo2
if sys.argv[1] == "tuned":
    tune_malloc()
before = libc.mallinfo2().hblks
# Above the tuned threshold, below glibc's default 128 KiB; more than the heap has free.
blocks = [b"x" * (40 * 1024) for _ in range(200)]
print(libc.mallinfo2().hblks - before)
"""


@pytest.mark.skipif(not hasattr(ctypes.CDLL(None), "mallinfo2"), reason="glibc's malloc only")
def test_blocks_of_32_kib_and_more_are_mapped_on_their_own():
    def mapped(mode: str) -> int:
        result = subprocess.run(
            [sys.executable, "-c", MMAP_PROBE, mode], capture_output=True, text=True, timeout=60, cwd=REPO
        )
        assert result.returncode == 0, result.stderr
        return int(result.stdout)

    assert mapped("as-is") == 0  # the reference: glibc grows its heap for them
    assert mapped("tuned") >= 150  # those the heap's free space could not hold are mapped
