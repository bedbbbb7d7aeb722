"""Run inside the VM: raidtop's tracer histograms a raid1 leg behind dm-delay, beside fio's own latencies.

Usage: ``python -m tests.realmd.guest_latency MD DM OTHER DELAY_MS``: the array, its leg
behind dm-delay (``dm-N``), its other leg (a loop device) and the delay set. raidtop's
own :class:`~raidtop.latency.tracer.LatencyTracer` traces both legs (bpftrace in the
guest) while

1. fio reads the delayed leg directly (direct, 4k random reads, iodepth 1; md idle):
   raidtop's p99 over the phase against fio's clat p99 and the delay set;
2. fio writes to the array (direct, 4k random writes, iodepth 16): md writes every
   request to both legs, and each interval is judged by the member grid's own rule.

Writes ``latency.json`` into $RESULTS.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import traceback
from pathlib import Path

from raidtop.collect.sampler import Sampler
from raidtop.latency.histogram import Log2Histogram, merged
from raidtop.latency.summary import summarize
from raidtop.latency.tracer import LatencyTracer, why_unavailable
from raidtop.presentation.member_latency import slow_members_judged

RESULTS = Path(os.environ.get("RESULTS", "/tmp"))
RUNTIME_S = 10
GAP_S = 3.0
"""Idle after each phase: longer than an interval, so the print of its last interval comes before the next."""


def fio(target: str, rw: str, iodepth: int, name: str) -> dict:
    argv = [
        "fio",
        f"--name={name}",
        f"--filename={target}",
        "--direct=1",
        f"--rw={rw}",
        "--bs=4k",
        f"--iodepth={iodepth}",
        "--ioengine=libaio",
        f"--runtime={RUNTIME_S}",
        "--time_based",
        "--output-format=json",
        *(["--readonly"] if rw == "randread" else []),
    ]
    run = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    (RESULTS / f"fio-{name}.json").write_text(run.stdout)
    (RESULTS / f"fio-{name}.err").write_text(run.stderr)
    side = json.loads(run.stdout)["jobs"][0]["read" if rw == "randread" else "write"]
    clat = side["clat_ns"]
    return {
        "ios": side["total_ios"],
        "p50_ms": clat["percentile"]["50.000000"] / 1e6,
        "p99_ms": clat["percentile"]["99.000000"] / 1e6,
        "max_ms": clat["max"] / 1e6,
    }


def main() -> dict:
    md, dm, other, delay_ms = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    out: dict = {"md": md, "dm": dm, "other": other, "delay_ms": delay_ms, "unavailable": why_unavailable()}
    phase = ["attaching"]
    samples: list[tuple[str, dict[str, Log2Histogram]]] = []
    ended = threading.Event()
    reason: list[str] = []

    def sampled(hists: dict[str, Log2Histogram]) -> None:
        samples.append((phase[0], hists))

    def end(why: str) -> None:
        reason.append(why)
        ended.set()

    tracer = LatencyTracer([dm, other], 1, sampled, end)
    started = time.monotonic()
    tracer.start()
    out["attached"] = tracer.wait_attached(600)
    out["attach_s"] = round(time.monotonic() - started, 1)
    if not out["attached"]:
        tracer.stop()
        ended.wait(30)
        out["reason"] = reason[0] if reason else "no attached line within 600 s"
        return out
    array = next(a for a in Sampler("/").sample().arrays if a.name == md)
    out["members"] = [m.name for m in array.members]
    try:
        # Each phase keeps its name through the idle gap after it: the print of its last interval arrives then.
        phase[0] = "leg"
        out["fio_leg"] = fio(f"/dev/{dm}", "randread", 1, "leg")
        time.sleep(GAP_S)
        phase[0] = "array"
        out["fio_array"] = fio(f"/dev/{md}", "randwrite", 16, "array")
        time.sleep(GAP_S)
    finally:
        tracer.stop()
        ended.wait(30)
    out["ended"] = reason[0] if reason else None
    leg = merged([h[dm] for p, h in samples if p == "leg" and dm in h])
    summary = summarize(leg)
    out["raidtop_leg"] = {"requests": summary.requests, "p50_ms": summary.p50_ms, "p99_ms": summary.p99_ms}
    judged = []
    for p, hists in samples:
        if p in ("leg", "array") and hists:
            latencies = {name: summarize(h) for name, h in hists.items()}
            slow, basis = slow_members_judged(array, {}, latencies)
            judged.append(
                {
                    "phase": p,
                    "slow": sorted(slow),
                    "basis": basis,
                    "requests": {n: lat.requests for n, lat in latencies.items()},
                    "p99_ms": {n: lat.p99_ms for n, lat in latencies.items()},
                }
            )
    out["judged"] = judged
    return out


if __name__ == "__main__":
    try:
        result = main()
    except Exception:  # noqa: BLE001 - whatever failed is the test's evidence
        result = {"error": traceback.format_exc()}
    (RESULTS / "latency.json").write_text(json.dumps(result, indent=1))
