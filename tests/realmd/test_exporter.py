"""``raidtop exporter`` on a real kernel: its metrics are the kernel's files at each step (issue 16).

One boot runs tests/realmd/guest_exporter.py: the exporter serves /metrics
in the guest (0.5 s sampling) while a raid5 loses a member, rebuilds onto a
new disk and is checked after one member's data was overwritten under md.
At each step the guest read the kernel's files, scraped a sample taken after
that read, and read the files again; here each metric must equal the file
(a running sync's progress must lie between the two readings). About 32 s
with the boot (the exporter answers ~4.5 s after the script starts).
"""

from __future__ import annotations

import json

import pytest

from .guest_python import raidtop_python, reach_interpreter_script

LABELS = ["clean", "failed", "removed", "recovering", "recovering later", "recovered", "checking", "checked"]
_ACTION_STATE = {
    "resync": "resyncing",
    "recover": "recovering",
    "check": "checking",
    "repair": "repairing",
    "reshape": "reshaping",
}


@pytest.fixture(scope="module")
def exporter_run(vm_image, tmp_path_factory):
    from .vm import run_in_guest

    python = raidtop_python()
    results = tmp_path_factory.mktemp("exporter") / "results"
    guest = run_in_guest(
        reach_interpreter_script(python) + f"{python} -m tests.realmd.guest_exporter\n",
        timeout=240,
        results_dir=results,
        image=vm_image,
    )
    assert guest.returncode == 0, guest.describe_failure()
    out = json.loads((results / "exporter.json").read_text())
    log = (results / "exporter.log").read_text(errors="replace") if (results / "exporter.log").exists() else ""
    assert out["error"] is None, out["error"] + "\nexporter log:\n" + log[-3000:]
    assert out["exporter_alive"], log[-3000:]
    print(json.dumps({"exporter_up_s": out["exporter_up_s"], "steps": [(s["label"], s["t"]) for s in out["steps"]]}))
    return out


def kernel_state(k: dict) -> str:
    """The one state the kernel's files say, named as raidtop_md_state names them."""
    if k["sync_action"] in _ACTION_STATE:
        return _ACTION_STATE[k["sync_action"]]
    if int(k["degraded"]) > 0:
        return "degraded"
    if k["array_state"] in ("readonly", "read-auto"):
        return "read-only"
    return "clean" if k["array_state"] == "clean" else "active"


def kernel_role(member: dict) -> str:
    words = member["state"].split(",")
    if "faulty" in words:
        return "faulty"
    if "in_sync" in words:
        return "in_sync"
    if "spare" in words:
        return "spare" if member["slot"] == "none" else "rebuilding"
    return "unknown"


def step(run: dict, label: str) -> dict:
    return next(s for s in run["steps"] if s["label"] == label)


def test_every_step_was_taken(exporter_run):
    assert [s["label"] for s in exporter_run["steps"]] == LABELS


@pytest.mark.parametrize("label", LABELS)
def test_state_disks_and_roles_equal_the_kernels_files(exporter_run, label):
    s = step(exporter_run, label)
    k, m = s["before"], s["metrics"]
    assert m["states"] == [kernel_state(k)], (k["array_state"], k["sync_action"], k["mdstat"])
    assert m["degraded_disks"] == int(k["degraded"]) and m["raid_disks"] == int(k["raid_disks"])
    assert m["roles"] == {name: [kernel_role(member)] for name, member in k["members"].items()}
    assert m["mismatch_sectors"] == int(k["mismatch_cnt"])


@pytest.mark.parametrize("label", LABELS)
def test_sync_bytes_are_the_kernels_sector_counts(exporter_run, label):
    s = step(exporter_run, label)
    before, after, m = s["before"], s["after"], s["metrics"]
    action = before["sync_action"]
    if action == "idle":
        assert m["done"] == {} and m["total"] == {}  # no running action, no progress series
        return
    done_blocks, total_blocks = before["mdstat_blocks"]
    later_blocks = after["mdstat_blocks"][0] if after["mdstat_blocks"] else total_blocks
    # mdstat counts 1 KiB blocks of the kernel's sectors; the sample was read between the two readings.
    assert m["total"] == {action: total_blocks * 1024}
    assert done_blocks * 1024 <= m["done"][action] <= later_blocks * 1024
    sectors_done, sectors_total = (int(x) for x in before["sync_completed"].split("/"))
    assert abs(m["total"][action] - sectors_total * 512) < 1024  # sysfs says the same in sectors
    assert m["done"][action] >= sectors_done * 512  # sysfs lags mdstat (every 1/16 of the device)


def test_the_story_the_metrics_tell(exporter_run):
    states = {s["label"]: s["metrics"]["states"][0] for s in exporter_run["steps"]}
    assert states == {
        "clean": "clean",
        "failed": "degraded",
        "removed": "degraded",
        "recovering": "recovering",
        "recovering later": "recovering",
        "recovered": "clean",
        "checking": "checking",
        "checked": "clean",
    }
    devices = {k: v.removeprefix("/dev/") for k, v in exporter_run["facts"]["devices"].items()}
    assert step(exporter_run, "failed")["metrics"]["roles"][devices["failed"]] == ["faulty"]
    assert devices["failed"] not in step(exporter_run, "removed")["metrics"]["roles"]
    assert step(exporter_run, "recovering")["metrics"]["roles"][devices["added"]] == ["rebuilding"]
    first, later = (
        step(exporter_run, label)["metrics"]["done"]["recover"] for label in ("recovering", "recovering later")
    )
    assert later > first
    assert step(exporter_run, "failed")["metrics"]["events"].get("Fail") == 1
    # The overwritten member's 64 KiB no longer match their parity: the check counts them.
    assert step(exporter_run, "checked")["metrics"]["mismatch_sectors"] > 0
