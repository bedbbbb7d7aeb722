"""A stand-in for fio in unit and screen tests: fio 3's JSON shapes, fake seconds, fast.

Run as a script (through :func:`make_fake_fio`'s wrapper) it prints one
cumulative status document per fake second every ``FAKE_FIO_TICK`` real
seconds (default 0.05), then the final document; on SIGINT it prints the
final document at once, as fio does. The numbers follow a fixed pattern so
tests can predict them: in fake second ``k`` the job completes ``1000 * k``
reads (and as many writes for write or mixed modes) of 4 KiB, each with a
500 µs mean completion latency and an 880.64 µs p99.

``FAKE_FIO_ENGINES`` replaces the ``--enghelp`` list; ``FAKE_FIO_PROBE_FAIL``
makes the engine probe fail; ``FAKE_FIO_EXIT`` makes a job exit with that
status after printing only to stderr; ``FAKE_FIO_STARTED`` names a file the
job writes once it is ready for SIGINT. Like fio, a job creates its
``--filename`` (4 KiB here) when that names a file in an existing directory.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path


def make_fake_fio(directory: Path) -> Path:
    """Write an executable ``fio`` into ``directory`` that runs this module; return its path."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "fio"
    path.write_text(f"#!{sys.executable}\nimport runpy\nrunpy.run_path({str(Path(__file__))!r}, run_name='__main__')\n")
    path.chmod(0o755)
    return path


def _section(active: bool, seconds: int) -> dict:
    # Cumulative I/O after `seconds` fake seconds: 1000 + 2000 + … + 1000·seconds.
    ios = sum(1000 * k for k in range(1, seconds + 1)) if active else 0
    rate = ios / seconds if seconds and active else 0
    return {
        "io_bytes": ios * 4096,
        "io_kbytes": ios * 4,
        "bw_bytes": int(rate * 4096),
        "bw": int(rate * 4),
        "iops": float(rate),
        "runtime": seconds * 1000 if active else 0,
        "total_ios": ios,
        "clat_ns": {
            "min": 100000 if active else 0,
            "max": 900000 if active else 0,
            "mean": 500000.0 if active else 0.0,
            "stddev": 1000.0,
            "N": ios,
            "percentile": {"50.000000": 495616 if active else 0, "99.000000": 880640 if active else 0},
        },
        "lat_ns": {"min": 0, "max": 0, "mean": 510000.0 if active else 0.0, "stddev": 0.0, "N": ios},
    }


def _document(name: str, reads: bool, writes: bool, seconds: int) -> str:
    job = {
        "jobname": name,
        "groupid": 0,
        "error": 0,
        "elapsed": seconds,
        "read": _section(reads, seconds),
        "write": _section(writes, seconds),
        "trim": _section(False, seconds),
    }
    return json.dumps({"fio version": "fio-3.33", "timestamp": 1700000000 + seconds, "jobs": [job]}, indent=2)


def main() -> None:
    args = sys.argv[1:]
    if "--version" in args:
        print("fio-3.33")
        return
    if "--enghelp" in args:
        print("Available IO engines:\n\t" + "\n\t".join(os.environ.get("FAKE_FIO_ENGINES", "psync libaio").split()))
        return
    options = dict(a[2:].split("=", 1) for a in args if a.startswith("--") and "=" in a)
    name = options.get("name", "job")
    rw = options.get("rw", "read")
    reads = rw in ("read", "randread", "rw", "readwrite", "randrw")
    writes = rw in ("write", "randwrite", "rw", "readwrite", "randrw")
    if name == "probe":
        if os.environ.get("FAKE_FIO_PROBE_FAIL"):
            print("fio: io_setup: Function not implemented", file=sys.stderr)
            sys.exit(1)
        print(_document(name, reads, writes, 1))
        return
    if os.environ.get("FAKE_FIO_EXIT"):
        print("fio: pid=1, err=28/file:filesetup.c:240, func=fallocate, error=No space left on device", file=sys.stderr)
        sys.exit(int(os.environ["FAKE_FIO_EXIT"]))
    filename = options.get("filename", "")
    if os.path.isdir(os.path.dirname(filename)) and not os.path.exists(filename):
        # fio lays out a directory target's test file before the job starts.
        with open(filename, "wb") as handle:
            handle.write(b"\0" * 4096)
    runtime = int(options.get("runtime", "3"))
    tick = float(os.environ.get("FAKE_FIO_TICK", "0.05"))
    stopped = []
    signal.signal(signal.SIGINT, lambda *_: stopped.append(True))
    if os.environ.get("FAKE_FIO_STARTED"):
        Path(os.environ["FAKE_FIO_STARTED"]).write_text("running\n")
    done = 0
    for second in range(1, runtime + 1):
        deadline = time.monotonic() + tick
        while time.monotonic() < deadline and not stopped:
            time.sleep(0.005)
        if stopped:
            break
        done = second
        if second < runtime:
            print(_document(name, reads, writes, second), flush=True)
    print(_document(name, reads, writes, max(done, 1)), flush=True)


if __name__ == "__main__":
    main()
