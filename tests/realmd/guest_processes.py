"""Run inside the VM: a writer in its own cgroup loads a raid1 while it rebuilds (issue 26).

cgroup2 is mounted with the io controller on and a ``loadgen.service``
cgroup made; a raid1 of two loop disks loses a member, gets it back and
recovers at 2000 KiB/s while ``dd`` (in that cgroup) writes to the array.
raidtop's own Sampler, through a RecordingRoot, reads processes and cgroup
accounting each second. Writes ``processes.json`` into $RESULTS (what
raidtop reported per sample) and copies the kernel's io.stat files and the
writer's /proc/PID files under $RESULTS/capture/ (the fixtures'
provenance: tests/data/processes/).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
import traceback
from pathlib import Path

from raidtop.collect.recording.roots import RecordingRoot
from raidtop.collect.sampler import Sampler
from raidtop.collect.source import Root
from raidtop.presentation.processes import array_shares, md_thread_role, shares_sentence
from tests.realmd.guest_driver import MDADM, Disks, sysfs

MD = "md50"
CGROUP = Path("/sys/fs/cgroup")
UNIT = CGROUP / "loadgen.service"
RESULTS = Path(os.environ.get("RESULTS", "/tmp"))


def mount_cgroup2() -> None:
    if not (CGROUP / "cgroup.controllers").exists():
        subprocess.run(["mount", "-t", "cgroup2", "none", str(CGROUP)], check=True)
    (CGROUP / "cgroup.subtree_control").write_text("+io")
    UNIT.mkdir(exist_ok=True)


def capture(pid: int | None) -> None:
    out = RESULTS / "capture"
    (out / "cgroup").mkdir(parents=True, exist_ok=True)
    shutil.copyfile(CGROUP / "io.stat", out / "cgroup" / "root-io.stat")
    shutil.copyfile(UNIT / "io.stat", out / "cgroup" / "loadgen.service-io.stat")
    shutil.copyfile(CGROUP / "cgroup.controllers", out / "cgroup" / "cgroup.controllers")
    if pid is not None:
        (out / "proc" / str(pid)).mkdir(parents=True, exist_ok=True)
        for name in ("io", "stat", "status", "cgroup", "comm"):
            try:
                shutil.copyfile(f"/proc/{pid}/{name}", out / "proc" / str(pid) / name)
            except OSError:
                pass
    resync = [p for p in Path("/proc").iterdir() if p.name.isdigit() and _comm(p) == f"{MD}_resync"]
    for p in resync[:1]:
        (out / "proc" / p.name).mkdir(parents=True, exist_ok=True)
        for name in ("io", "stat", "cgroup", "comm"):
            shutil.copyfile(p / name, out / "proc" / p.name / name)


def _child_of(parent: int) -> int | None:
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                if int((p / "stat").read_text().rpartition(")")[2].split()[1]) == parent:
                    return int(p.name)
            except (OSError, ValueError, IndexError):
                continue
    return None


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError as exc:
        return f"unreadable: {exc}"


def _comm(p: Path) -> str:
    try:
        return (p / "comm").read_text().strip()
    except OSError:
        return ""


def main() -> dict:
    mount_cgroup2()
    disks = Disks()
    result: dict = {"samples": [], "error": None}
    writer = None
    try:
        a, b = disks.make(2, 48)
        subprocess.run(
            [
                MDADM,
                "--create",
                f"/dev/{MD}",
                "--run",
                "--level=1",
                "--raid-devices=2",
                "--assume-clean",
                "--metadata=1.2",
                a,
                b,
            ],
            check=True,
            input="yes\n",
            text=True,
            capture_output=True,
        )
        subprocess.run([MDADM, f"/dev/{MD}", "--fail", b], check=True, capture_output=True)
        subprocess.run([MDADM, f"/dev/{MD}", "--remove", b], check=True, capture_output=True)
        for knob in ("sync_speed_min", "sync_speed_max"):
            Path(f"/sys/block/{MD}/md/{knob}").write_text("2000")
        subprocess.run([MDADM, f"/dev/{MD}", "--add", b], check=True, capture_output=True)
        # Each dd writes the whole array and exits; a dd that starts and ends between two samples is
        # never seen, and its parent shell, reaping it, shows its bytes (the kernel adds a reaped
        # child's counters to the parent's /proc/PID/io). Throttled to 4 MiB/s, each dd lives for
        # about 12 s, across the samples.
        (UNIT / "io.max").write_text(f"9:50 wbps={4 << 20}\n")
        writer = subprocess.Popen(
            [
                "sh",
                "-c",
                f"echo $$ > {UNIT}/cgroup.procs; while :; do "
                f"dd if=/dev/zero of=/dev/{MD} bs=16k count=3000 oflag=direct status=none; done",
            ],
            start_new_session=True,
        )
        # The kernel makes a cgroup's per-device group (blkg) lazily and, when it cannot yet, charges the
        # I/O to the parent (the root): wait until the unit's own io.stat counts md50 before sampling.
        waited = time.monotonic()
        while "9:50 rbytes" not in _read(UNIT / "io.stat") and time.monotonic() - waited < 20:
            time.sleep(0.2)
        result["unit_counted_after_s"] = round(time.monotonic() - waited, 1)
        sampler = Sampler(RecordingRoot(Root("/")))
        sampler.processes.want_processes = True
        sampler.sample()
        for _ in range(4):
            time.sleep(1.0)
            snap = sampler.sample()
            array = next(x for x in snap.arrays if x.name == MD)
            shares = array_shares(snap, array)
            result["samples"].append(
                {
                    "sync_action": sysfs(MD, "sync_action"),
                    "members": [m.name for m in array.members],
                    "source_member": Path(a).name,
                    "rebuilding_member": Path(b).name,
                    "level": snap.io.level,
                    "source": snap.io.source,
                    "by_device": {
                        d: [[u.unit, u.read_b_s, u.write_b_s, u.writes_s] for u in units]
                        for d, units in (snap.io.by_device or {}).items()
                    },
                    "shares": [[s.label, s.unit, s.write_pct] for s in shares],
                    "sentence": shares_sentence(MD, shares),
                    "top": [[p.pid, p.comm, p.unit, p.write_b_s] for p in snap.io.processes[:8]],
                    # The raw files behind the numbers, for a failure's message.
                    "unit_io_stat": _read(UNIT / "io.stat"),
                    "subtree_control": _read(CGROUP / "cgroup.subtree_control"),
                    "unit_procs": _read(UNIT / "cgroup.procs"),
                    "md_threads": [
                        [p.pid, p.comm, md_thread_role(p.comm, snap.arrays)]
                        for p in snap.io.processes
                        if md_thread_role(p.comm, snap.arrays)
                    ],
                }
            )
        capture(_child_of(writer.pid))
    except Exception:  # noqa: BLE001 - any failure is the result, reported to the host
        result["error"] = traceback.format_exc()
    finally:
        if writer is not None:
            os.killpg(writer.pid, 9)  # the shell loop and its dd: the session it leads
            writer.wait()
        subprocess.run([MDADM, "--stop", f"/dev/{MD}"], capture_output=True)
        disks.release()
    return result


if __name__ == "__main__":
    out = main()
    (RESULTS / "processes.json").write_text(json.dumps(out, indent=1))
