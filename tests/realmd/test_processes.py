"""Who loads a rebuilding array, on a real kernel (issue 26).

One boot runs tests/realmd/guest_processes.py: a raid1 recovers at
2000 KiB/s while ``dd`` in the cgroup ``loadgen.service`` writes to it, and
raidtop's Sampler reads cgroup v2 io.stat and /proc each second. Here: the
member writes are attributed to that cgroup and to the root cgroup (md's
resync thread), the rebuilding member gets the resync's writes, and the
writer is the busiest process with its unit named.
"""

from __future__ import annotations

import json
import os
import shutil

import pytest

from .guest_python import raidtop_python, reach_interpreter_script


@pytest.fixture(scope="module")
def run(vm_image, tmp_path_factory):
    from .vm import run_in_guest

    python = raidtop_python()
    results = tmp_path_factory.mktemp("processes") / "results"
    guest = run_in_guest(
        reach_interpreter_script(python) + f"{python} -m tests.realmd.guest_processes\n",
        timeout=240,
        results_dir=results,
        image=vm_image,
    )
    assert guest.returncode == 0, guest.describe_failure()
    out = json.loads((results / "processes.json").read_text())
    assert out["error"] is None, out["error"]
    keep = os.environ.get("RAIDTOP_KEEP_CAPTURE")  # where tests/data/processes/v2-vm came from
    if keep and (results / "capture").is_dir():
        shutil.copytree(results / "capture", keep, dirs_exist_ok=True)
    print(json.dumps(out["samples"][-1], indent=1))
    return out


def recovering(run):
    samples = [s for s in run["samples"] if s["sync_action"] == "recover"]
    assert samples, [s["sync_action"] for s in run["samples"]]
    return samples


def test_attribution_is_per_device_from_io_stat(run):
    assert {s["level"] for s in run["samples"]} == {"per device"}
    assert {s["source"] for s in run["samples"]} == {"cgroup v2 io.stat"}


def test_member_writes_come_from_the_writer_cgroup_and_the_resync(run):
    for s in recovering(run):
        units = {share[1] for share in s["shares"] if share[2]}
        assert "/loadgen.service" in units, (
            s["shares"],
            s["unit_io_stat"],
            s["subtree_control"],
            s["unit_procs"],
            s["top"],
        )
        assert "/" in units, s["shares"]
        labels = {share[0] for share in s["shares"]}
        assert "md50_resync (root cgroup)" in labels
        assert s["sentence"].startswith("md50: ") and "% of writes from" in s["sentence"]


def test_the_resync_reads_the_survivor_and_writes_the_new_member(run):
    copied = 0
    for s in recovering(run):
        units = {d: {u[0]: (u[1], u[2]) for u in us} for d, us in s["by_device"].items()}
        new, survivor = units.get(s["rebuilding_member"], {}), units.get(s["source_member"], {})
        # md's own writes in the root cgroup (superblock, bitmap) reach both members alike; what the
        # added disk gets beyond them is the resync's copy. md throttles the resync for other I/O, so an
        # interval may copy nothing (seen under TCG: both members' root writes equal, no read).
        if new.get("/", (0, 0))[1] > survivor.get("/", (0, 0))[1]:
            copied += 1
            assert survivor.get("/", (0, 0))[0] > 0, units  # ...reading the surviving one
        # dd's writes reach both members (raid1 mirrors them), under dd's cgroup.
        assert survivor.get("/loadgen.service", (0, 0))[1] > 0, units
    assert copied, "no sample saw the resync write the added disk"


def test_the_writer_is_the_busiest_process_with_its_unit(run):
    tops = [s["top"] for s in recovering(run)]
    assert any(top and top[0][1] == "dd" and top[0][2] == "loadgen.service" for top in tops), tops


def test_the_resync_thread_is_named_with_its_job(run):
    roles = [role for s in recovering(run) for _pid, comm, role in s["md_threads"] if comm == "md50_resync"]
    assert roles and all(role.startswith("md50 recovery ") for role in roles), roles
