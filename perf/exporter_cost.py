"""What `raidtop exporter` costs: CPU and RSS at 1 s sampling, and scrape latency at 64 arrays x 16 members.

Runs the real exporter as a subprocess (``python -m raidtop exporter``):

* steady cost: after a 10 s warm-up, CPU seconds (utime+stime from
  /proc/PID/stat) over ``--seconds`` of 1 s sampling, as % of one core, and
  VmRSS at the end; once against this host's ``/`` and once against the
  synthetic 64x16 root, which ticks every second like a busy machine;
* scrape latency: ``--scrapes`` sequential GET /metrics against the 64x16
  root, p50/p99/max in ms (the body is read completely).

Budgets (issue 16): ≤ 0.5 % of a core and ≤ 40 MB RSS steady; scrape p99 ≤ 20 ms.
``PYTHONPATH=. .venv/bin/python perf/exporter_cost.py [--seconds 60] [--scrapes 500]``
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "perf"))

from synthetic import SyntheticSystem  # noqa: E402
from synthetic_state import Shape  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def start(root: Path, port: int) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "raidtop",
            "--root",
            str(root),
            "exporter",
            "--interval",
            "1",
            "--listen",
            f"127.0.0.1:{port}",
        ],
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    for _ in range(200):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=2).read()
            return proc
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("the exporter did not start")


def steady(root: Path, seconds: float, ticker=None) -> tuple[float, float]:
    port = free_port()
    proc = start(root, port)
    try:
        time.sleep(10)
        before = cpu_seconds(proc.pid)
        t0 = time.monotonic()
        time.sleep(seconds)
        used = cpu_seconds(proc.pid) - before
        return 100.0 * used / (time.monotonic() - t0), rss_mb(proc.pid)
    finally:
        proc.terminate()
        proc.wait()


def scrapes(root: Path, count: int) -> list[float]:
    port = free_port()
    proc = start(root, port)
    try:
        time.sleep(3)
        times = []
        for _ in range(count):
            t0 = time.perf_counter()
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as answer:
                answer.read()
            times.append((time.perf_counter() - t0) * 1000)
        return times
    finally:
        proc.terminate()
        proc.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--scrapes", type=int, default=500)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        shape = Shape(disks=1040, cpus=2, md_arrays=64, md_members=16)
        system = SyntheticSystem(Path(tmp) / "root", shape)
        system.build()
        stop = threading.Event()

        def tick() -> None:
            while not stop.wait(1.0):
                system.tick(0.3)

        ticker = threading.Thread(target=tick, daemon=True)
        ticker.start()
        try:
            rows = [("this host's /", *steady(Path("/"), args.seconds))]
            rows.append((f"synthetic {shape.label}", *steady(system.root, args.seconds)))
            latencies = sorted(scrapes(system.root, args.scrapes))
        finally:
            stop.set()
            ticker.join()
    print(f"| root | CPU, % of one core (1 s sampling, {args.seconds:g} s) | RSS MB |")
    print("|---|---|---|")
    for label, cpu, rss in rows:
        print(f"| {label} | {cpu:.2f} | {rss:.1f} |")
    p99 = latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))]
    print(
        f"\nscrapes of the 64x16 root: n={len(latencies)} p50={statistics.median(latencies):.2f} ms "
        f"p99={p99:.2f} ms max={latencies[-1]:.2f} ms"
    )


if __name__ == "__main__":
    main()
