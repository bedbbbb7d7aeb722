"""raidtop's md events beside ``mdadm --monitor`` on a real kernel (issue 13).

One boot runs tests/realmd/guest_monitor.py: mdadm 4.2's monitor (1 s
polls, alerts to a program) and raidtop's Sampler (every 0.5 s) watch the
same arrays while the guest stops one, replaces a disk, breaks a raid10 and
a raid0, and interrupts a resync with ``mdadm --readonly``. The event lists
must agree except for the differences the README documents
(monitor_compare.py). With ``REALMD_UPDATE_DATA=1`` the passing run also
refreshes the traces the unit tests replay (tests/data/realmd/monitor_*).
About 60 s of guest time.
"""

from __future__ import annotations

import json
import os

import pytest

from .guest_python import raidtop_python, reach_interpreter_script
from .monitor_compare import compare, save_results
from .scenario_trace import step_from_driver

SCENARIOS = {
    "stop": "md30",
    "replace": "md31",
    "raid10_broken": "md32",
    "raid0_broken": "md33",
    "readonly_pending": "md34",
    "check_milestones": "md35",
}


def _boot(vm_image, results) -> dict:
    from .vm import run_in_guest

    python = raidtop_python()
    guest = run_in_guest(
        reach_interpreter_script(python) + f"{python} -m tests.realmd.guest_monitor\n",
        timeout=300,
        results_dir=results,
        image=vm_image,
    )
    assert guest.returncode == 0, guest.describe_failure()
    return {name: json.loads((results / f"monitor_{name}.json").read_text()) for name in SCENARIOS}


def _verdict(result: dict, name: str) -> dict:
    steps = [step_from_driver(step) for step in result["steps"]]
    return compare(steps, SCENARIOS[name], result["mdadm_events"])


@pytest.fixture(scope="module")
def monitor_run(vm_image, tmp_path_factory):
    """The scenarios' results; a second boot where the first one's event lists disagree.

    mdadm polls every second and raidtop every half second, each in its own
    process on a TCG guest, and either can miss a state that lasts less than
    its poll: in 2 of 6 boots here (readonly_pending, and once replace with the
    host loaded) one list differed and the next boot agreed. Which sample
    caught a short state is not a difference between the tools; a real
    difference repeats in the second boot. The same for a scenario whose own
    wait timed out in the guest (seen once: readonly_pending's). Both verdicts are kept for the
    failure message. (Left to do: say which states were missed.)
    """
    first = tmp_path_factory.mktemp("monitor") / "results"
    out = _boot(vm_image, first)
    disagree = [name for name in SCENARIOS if out[name]["error"] is not None or not _verdict(out[name], name)["agree"]]
    if disagree:
        again = _boot(vm_image, tmp_path_factory.mktemp("monitor-again") / "results")
        for name in disagree:
            first_error = out[name]["error"]
            again[name]["first_run_verdict"] = first_error if first_error else _verdict(out[name], name)
            out[name] = again[name]
    if os.environ.get("REALMD_UPDATE_DATA") == "1" and not disagree and all(r["error"] is None for r in out.values()):
        save_results(first, "monitor_")
    return out


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_raidtop_events_match_mdadm_monitor(monitor_run, name):
    result = monitor_run[name]
    assert result["error"] is None, result["error"]
    verdict = _verdict(result, name)
    print(json.dumps(verdict))
    assert verdict["agree"], json.dumps({"second_run": verdict, "first_run": result.get("first_run_verdict")})


def test_replace_ends_with_an_expected_fail(monitor_run):
    events = [e for step in monitor_run["replace"]["steps"] for e in step["reported"]["events"]]
    tail = [(e["event"], e["member"]) for e in events if e["event"] in ("RebuildFinished", "Fail", "SpareActive")][-3:]
    devices = monitor_run["replace"]["facts"]["devices"]
    assert tail == [("RebuildFinished", None), ("Fail", devices["replaced"][5:]), ("SpareActive", devices["new"][5:])]


@pytest.mark.parametrize(("name", "array"), [("raid10_broken", "md32"), ("raid0_broken", "md33")])
def test_broken_arrays_raise_array_failed_and_refuse_writes(monitor_run, name, array):
    result = monitor_run[name]
    events = [e["event"] for step in result["steps"] for e in step["reported"]["events"] if e["array"] == array]
    assert events.count("ArrayFailed") == 1
    assert result["facts"]["write_after_broken"] != "ok"


def test_read_only_pending_resync_is_pending(monitor_run):
    result = monitor_run["readonly_pending"]
    assert "resync=PENDING" in result["facts"]["mdstat_readonly"]
    readonly = [
        a
        for step in result["steps"]
        if step["label"] == "readonly"
        for a in step["reported"]["arrays"]
        if a["name"] == "md34"
    ]
    assert readonly and all(a["sync"] and a["sync"]["action"] == "pending" for a in readonly)
