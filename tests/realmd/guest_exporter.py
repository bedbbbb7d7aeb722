"""Run inside the VM: ``raidtop exporter`` serves a raid5 that fails, rebuilds and is checked (issue 16).

The exporter runs as a user runs it (``python -m raidtop exporter --listen``,
its own sampling thread) while this script drives md. At each step it reads
the kernel's files, waits until the exporter has *started and finished* a
sample after that read (its samples counter moves by two), scrapes /metrics
and reads the kernel's files again. Writes ``exporter.json`` into $RESULTS:
per step the kernel's files before and after and what the scrape said; the
host test compares them (test_exporter.py).
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
import traceback
import urllib.request
from pathlib import Path
from typing import Any

from prometheus_client.parser import text_string_to_metric_families

from tests.realmd.guest_driver import MDADM, Disks, sysfs

MD = "md40"
INTERVAL_S = 0.5
MEMBER_MIB = 16
#: KiB/s per device while a rebuild or check must still be running at the next step (16 MiB: ~16 s).
SLOW_KIB_S = 1000
RESULTS = Path(os.environ.get("RESULTS", "/tmp"))


def kernel() -> dict[str, Any]:
    """The kernel's own files for the array: sysfs md/, dev-*/state and slot, its /proc/mdstat block."""
    members = {}
    for dev in sorted(Path(f"/sys/block/{MD}/md").glob("dev-*")):
        try:
            members[dev.name[4:]] = {
                "state": (dev / "state").read_text().strip(),
                "slot": (dev / "slot").read_text().strip(),
            }
        except OSError:
            continue  # removed between listing and reading
    block = re.search(rf"^{MD} :.*?(?:\n\n|\Z)", Path("/proc/mdstat").read_text(), re.M | re.S)
    progress = re.search(r"\((\d+)/(\d+)\)", block.group(0)) if block else None
    return {
        "array_state": sysfs(MD, "array_state"),
        "sync_action": sysfs(MD, "sync_action"),
        "degraded": sysfs(MD, "degraded"),
        "raid_disks": sysfs(MD, "raid_disks"),
        "sync_completed": sysfs(MD, "sync_completed"),
        "mismatch_cnt": sysfs(MD, "mismatch_cnt"),
        "mdstat_blocks": [int(progress.group(1)), int(progress.group(2))] if progress else None,
        "mdstat": block.group(0) if block else "",
        "members": members,
    }


def scrape(port: int) -> dict[str, Any]:
    """What /metrics says about the array, in plain values."""
    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read().decode()
    out: dict[str, Any] = {"states": [], "roles": {}, "done": {}, "total": {}, "events": {}, "samples": 0}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            labels = s.labels
            if s.name == "raidtop_exporter_samples_total":
                out["samples"] = s.value
            if labels.get("array") != MD:
                continue
            if s.name == "raidtop_md_state" and s.value == 1:
                out["states"].append(labels["state"])
            elif s.name == "raidtop_md_member_role" and s.value == 1:
                out["roles"].setdefault(labels["member"], []).append(labels["role"])
            elif s.name == "raidtop_md_sync_completed_bytes":
                out["done"][labels["action"]] = s.value
            elif s.name == "raidtop_md_sync_total_bytes":
                out["total"][labels["action"]] = s.value
            elif s.name == "raidtop_md_events_total":
                out["events"][labels["event"]] = s.value
            elif s.name in ("raidtop_md_degraded_disks", "raidtop_md_raid_disks", "raidtop_md_mismatch_sectors"):
                out[s.name.removeprefix("raidtop_md_")] = s.value
    return out


class Run:
    """The steps taken so far and the exporter's port."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.steps: list[dict[str, Any]] = []
        self.started = time.monotonic()

    def step(self, label: str) -> None:
        """Kernel files, a scrape of a sample taken after them, the kernel files again."""
        for _attempt in range(4):
            before = kernel()
            seen = scrape(self.port)["samples"]
            deadline = time.monotonic() + 30
            while (metrics := scrape(self.port))["samples"] < seen + 2:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{label}: the exporter took no new sample in 30 s")
                time.sleep(0.1)
            after = kernel()
            if _settled(before) == _settled(after):
                break  # nothing but the sync's progress moved while the sample was taken
        self.steps.append(
            {
                "label": label,
                "t": round(time.monotonic() - self.started, 2),
                "before": before,
                "after": after,
                "metrics": metrics,
            }
        )

    def md(self, *args: str) -> None:
        done = subprocess.run([MDADM, *args], capture_output=True, text=True, input="y\n" * 4)
        if done.returncode != 0:
            raise RuntimeError(f"mdadm {' '.join(args)}: {done.stderr.strip()}")


def _settled(view: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in view.items() if k not in ("sync_completed", "mdstat_blocks", "mdstat")}


def wait_idle(timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not (sysfs(MD, "sync_action") == "idle" and sysfs(MD, "sync_completed") == "none"):
        if time.monotonic() > deadline:
            raise RuntimeError(f"{MD} still busy after {timeout:.0f} s: {Path('/proc/mdstat').read_text()}")
        time.sleep(0.2)


def wait_running(action: str, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while not (sysfs(MD, "sync_action") == action and kernel()["mdstat_blocks"]):
        if time.monotonic() > deadline:
            raise RuntimeError(f"{MD}: no {action} after {timeout:.0f} s: {Path('/proc/mdstat').read_text()}")
        time.sleep(0.1)


def set_md(attribute: str, value: str) -> None:
    Path(f"/sys/block/{MD}/md/{attribute}").write_text(f"{value}\n")


def corrupt(device: str) -> None:
    """Overwrite 64 KiB of one member's data area under md: parity no longer matches there."""
    name = device.removeprefix("/dev/")
    offset_sectors = int(sysfs(MD, f"dev-{name}/offset"))
    fd = os.open(device, os.O_WRONLY | os.O_DIRECT)
    try:
        import mmap

        buffer = mmap.mmap(-1, 65536)  # page-aligned, as O_DIRECT wants
        buffer.write(os.urandom(65536))
        os.pwrite(fd, buffer, offset_sectors * 512)
    finally:
        os.close(fd)


def loopback_up() -> None:
    for argv in (
        ["ip", "link", "set", "lo", "up"],
        ["busybox", "ip", "link", "set", "lo", "up"],
        ["busybox", "ifconfig", "lo", "127.0.0.1", "up"],
    ):
        try:
            if subprocess.run(argv, capture_output=True).returncode == 0:
                return
        except OSError:
            continue
    raise RuntimeError("cannot bring up the guest's loopback interface")


def scenario(run: Run, disks: Disks) -> dict[str, Any]:
    a, b, c, spare = disks.make(4, MEMBER_MIB)
    run.md("--create", f"/dev/{MD}", "--run", "--level=5", "--metadata=1.2", "--raid-devices=3", a, b, c)
    wait_idle()
    run.step("clean")
    run.md(f"/dev/{MD}", "--fail", b)
    run.step("failed")
    run.md(f"/dev/{MD}", "--remove", b)
    run.step("removed")
    set_md("sync_speed_max", str(SLOW_KIB_S))
    run.md(f"/dev/{MD}", "--add", spare)
    wait_running("recover")
    run.step("recovering")
    run.step("recovering later")
    set_md("sync_speed_max", "system")
    wait_idle()
    run.step("recovered")
    corrupt(spare)
    set_md("sync_speed_max", str(SLOW_KIB_S))
    set_md("sync_action", "check")
    wait_running("check")
    run.step("checking")
    set_md("sync_speed_max", "system")
    wait_idle()
    run.step("checked")
    return {"devices": {"failed": b, "added": spare}}


def main() -> int:
    loopback_up()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    log = open(RESULTS / "exporter.log", "wb")  # noqa: SIM115 (the exporter writes to it until the test ends)
    exporter = subprocess.Popen(
        [sys.executable, "-m", "raidtop", "exporter", "--listen", f"127.0.0.1:{port}", "--interval", str(INTERVAL_S)],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    run, disks = Run(port), Disks()
    out: dict[str, Any] = {"error": None, "kernel": os.uname().release}
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                scrape(port)
                break
            except OSError:
                if exporter.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("the exporter did not start") from None
                time.sleep(0.2)
        out["exporter_up_s"] = round(time.monotonic() - run.started, 1)
        out["facts"] = scenario(run, disks)
    except Exception:  # noqa: BLE001 - the host test shows it
        out["error"] = traceback.format_exc()
    finally:
        out["steps"] = run.steps
        out["exporter_alive"] = exporter.poll() is None
        exporter.terminate()
        exporter.wait(timeout=20)
        log.close()
        subprocess.run([MDADM, "--stop", f"/dev/{MD}"], capture_output=True)
        disks.release()
        (RESULTS / "exporter.json").write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
