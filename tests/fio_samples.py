"""Fixed benchmark results for history, compare and screen tests.

:func:`fio_json` writes a fio 3 JSON document (one job, group_reporting) with
chosen figures; :func:`md_tuning` a tuning state for a raid5 built from loop
devices. Both are deterministic, so snapshot tests can rely on them.
"""

from __future__ import annotations

import json

from raidtop.actions.fio.process import ProgressPoint
from raidtop.actions.fio.stack import DeviceTuning, MdTuning, TuningState


def _section(iops: float, lat_us: float, p99_us: float, runtime_s: int, bs: int) -> dict:
    ios = int(iops * runtime_s)
    return {
        "io_bytes": ios * bs,
        "io_kbytes": ios * bs // 1024,
        "bw_bytes": int(iops * bs),
        "bw": int(iops * bs / 1024),
        "iops": float(iops),
        "runtime": runtime_s * 1000 if ios else 0,
        "total_ios": ios,
        "clat_ns": {
            "min": 0,
            "max": 0,
            "mean": lat_us * 1000 if ios else 0.0,
            "stddev": 0.0,
            "N": ios,
            "percentile": {"50.000000": int(lat_us * 900), "99.000000": int(p99_us * 1000) if ios else 0},
        },
        "lat_ns": {"min": 0, "max": 0, "mean": lat_us * 1010 if ios else 0.0, "stddev": 0.0, "N": ios},
    }


def fio_json(
    read_iops: float = 0,
    write_iops: float = 0,
    *,
    read_lat_us: float = 400,
    write_lat_us: float = 600,
    read_p99_us: float = 1200,
    write_p99_us: float = 2000,
    runtime_s: int = 10,
    bs: int = 4096,
    name: str = "rand-rw",
) -> str:
    """A fio 3.33 JSON result with the given per-direction figures."""
    job = {
        "jobname": name,
        "groupid": 0,
        "error": 0,
        "elapsed": runtime_s + 1,
        "read": _section(read_iops, read_lat_us, read_p99_us, runtime_s, bs),
        "write": _section(write_iops, write_lat_us, write_p99_us, runtime_s, bs),
        "trim": _section(0, 0, 0, runtime_s, bs),
    }
    return json.dumps({"fio version": "fio-3.33", "timestamp": 1700000000, "jobs": [job]}, indent=1)


def md_tuning(
    scheduler: str = "none", read_ahead_kb: int = 128, target: str = "/dev/md127", sync_running: bool = False
) -> TuningState:
    """A raid5 of three loop devices; the members carry ``scheduler``."""
    offered = ("none", "mq-deadline", "kyber", "bfq")
    members = tuple(
        DeviceTuning(f"loop{n}", "member", 1, scheduler, offered, 128, 128, 1, "write back", True) for n in (3, 4, 5)
    )
    return TuningState(
        target=target,
        target_kind="device",
        device="md127",
        devices=(DeviceTuning("md127", "target", 0, "none", ("none",), read_ahead_kb, 128, 1, None, False), *members),
        arrays=(
            MdTuning(
                "md127",
                "raid5",
                512,
                ("loop3", "loop4", "loop5"),
                "clean",
                "ok",
                "resync" if sync_running else None,
                sync_running,
                1000,
                200000,
            ),
        ),
        speed_limit_min=1000,
        speed_limit_max=200000,
    )


def ramp(iops: float, seconds: int = 10, lat_us: float = 400) -> tuple[ProgressPoint, ...]:
    """Per-second points that climb to ``iops``; writes dip every third second (for plots)."""
    points = []
    for t in range(1, seconds + 1):
        f = min(1.0, t / 4)
        dip = 0.5 if t % 3 == 0 else 1.0
        points.append(
            ProgressPoint(
                float(t),
                iops * f,
                iops * f / 2 * dip,
                iops * 4096 * f,
                iops * 2048 * f * dip,
                lat_us * (1.5 - min(0.5, t / 8)),
                lat_us * 1.2 / dip,
            )
        )
    return tuple(points)
