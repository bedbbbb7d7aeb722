"""``exporter --textfile`` on a real tmpfs that fills up: it keeps exporting and writes again once space returns.

The disk-full case of issue 24: the sampling thread died on the first failed
write, so node_exporter served stale md state forever. Here a real tmpfs
(mounted by the test, root only) is filled with a real file; then
``raidtop.prom`` is replaced by a directory; each cause must be counted in
``raidtop_exporter_errors_total{cause="textfile"}``, logged once, and the
textfile written again when the cause goes, while /metrics keeps answering.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from pathlib import Path

import pytest

from tests.exporter import procs

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="mounts a tmpfs: needs root (CI runs as root)")


def errors(url: str) -> int:
    text = procs.wait_http(url).decode()
    found = re.search(r'^raidtop_exporter_errors_total\{cause="textfile"\} (\S+)$', text, re.M)
    assert found, "raidtop_exporter_errors_total{cause=\"textfile\"} missing"
    return int(float(found.group(1)))


def wait(predicate, what: str, timeout_s: float = 30.0):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"never: {what}")


def fill(directory: Path) -> Path:
    """Write zeros into ``directory`` until the file system says ENOSPC."""
    filler = directory / "filler"
    done = subprocess.run(["dd", "if=/dev/zero", f"of={filler}", "bs=4k"], capture_output=True, text=True)
    assert "No space left on device" in done.stderr
    return filler


def test_a_full_tmpfs_is_counted_logged_once_and_the_textfile_comes_back(tmp_path) -> None:
    mount = tmp_path / "textfile"
    mount.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m,mode=0755", "tmpfs", str(mount)], check=True)
    port = procs.free_port()
    url = f"http://127.0.0.1:{port}/metrics"
    exporter = None
    try:
        root = procs.clean_root(tmp_path)
        exporter = procs.raidtop(
            "--root",
            str(root),
            "exporter",
            "--interval",
            "0.2",
            "--smart-interval",
            "0",
            "--textfile",
            str(mount),
            "--listen",
            f"127.0.0.1:{port}",
        )
        prom = mount / "raidtop.prom"
        wait(prom.exists, "raidtop.prom written")
        assert errors(url) == 0

        filler = fill(mount)
        first = wait(lambda: errors(url) >= 1 and errors(url), "a textfile error counted")
        wait(lambda: errors(url) >= first + 5, "the write retried every interval")
        assert b"raidtop_md_state" in procs.wait_http(url)  # the endpoint keeps answering
        stale = prom.stat().st_mtime_ns

        filler.unlink()
        wait(lambda: prom.stat().st_mtime_ns != stale, "raidtop.prom written again once space returned")
        text = prom.read_text()
        assert re.search(r'raidtop_exporter_errors_total\{cause="textfile"\} [1-9]', text), text[-500:]

        # A second cause: raidtop.prom replaced by a directory, then put back.
        prom.unlink()
        prom.mkdir()
        counted = errors(url)
        wait(lambda: errors(url) >= counted + 3, "a directory in the way counted")
        prom.rmdir()
        wait(lambda: prom.is_file(), "raidtop.prom written again after the directory went")
    finally:
        if exporter is not None:
            procs.stop(exporter)
        subprocess.run(["umount", str(mount)], check=False)
    log = exporter.stderr.read().decode()
    assert "Traceback" not in log, log
    full = [line for line in log.splitlines() if "No space left on device" in line]
    in_the_way = [line for line in log.splitlines() if "Is a directory" in line]
    assert len(full) == 1 and 'cause="textfile"' in full[0], log
    assert len(in_the_way) == 1, log
    assert log.count("written again") == 2, log
