"""The failure lab against a real md kernel: lifecycles, guards, interrupts, teardown (the study: test_lab_study.py).

One boot runs everything (boots are the expensive part); each test asserts
its own part from the JSON the guest wrote. The guest half is
:func:`guest_main`, shipped into the VM as source (so the guest does not
import pytest over 9p) and run by the host's Python against the guest's
kernel; the CLI half (an interrupted ``raidtop lab create`` and the
``raidtop lab teardown`` after it) runs as real processes from bash.
"""

from __future__ import annotations

import inspect
import json
import os
import re
import textwrap
from pathlib import Path

import pytest

from .host_python import host_python

GUEST_SCRIPT = r"""
set -uo pipefail
. tests/realmd/guest_lib.sh
# Everything under /run, the guest's own fresh tmpfs: the host's /tmp shows through the overlay.
export RAIDTOP_LAB_DIR=/run/lab XDG_STATE_HOME=/run/lab-state XDG_DATA_HOME=/run/lab-data
PY={python}
cat > /run/lab_driver.py <<'DRIVER'
{driver}
DRIVER
PYTHONPATH="$PWD" "$PY" /run/lab_driver.py "$RESULTS" > "$RESULTS/driver.log" 2>&1
echo $? > "$RESULTS/driver.rc"

# An interrupted `raidtop lab create`, killed from outside once it has
# attached three of its six disks, then `raidtop lab teardown`.
export RAIDTOP_LAB_DIR=/run/lab-cli
"$PY" -m raidtop.cli.lab create --level 6 --disks 6 --size 16M > "$RESULTS/cli-create.log" 2>&1 &
pid=$!
registry=$RAIDTOP_LAB_DIR/registry.json
for ((i = 0; i < 6000; i++)); do
    if [[ -f $registry ]]; then
        mapfile -t attached < <(grep -o '"loop": "loop[0-9]*"' "$registry" || :)
        ((${{#attached[@]}} >= 3)) && break
    fi
    realmd_sleep 0.01
done
kill -9 "$pid"
wait "$pid"
echo $? > "$RESULTS/cli-create.rc"
# kill -9 ends raidtop, not a losetup it had started: one that was attaching the next
# disk attaches it after the kill. Let it finish, so the kernel's list below is what
# teardown finds (it detached one loop more than the list once, on a fresh clone's CI run).
for ((i = 0; i < 1000; i++)); do
    grep -qsx losetup /proc/[0-9]*/comm || break
    realmd_sleep 0.01
done
cp "$registry" "$RESULTS/cli-registry-before.json"
{{ cat /proc/mdstat
  for f in /sys/block/loop*/loop/backing_file; do [[ -f $f ]] && echo "$f $(< "$f")"; done
}} > "$RESULTS/cli-kernel-before.txt"
"$PY" -m raidtop.cli.lab teardown > "$RESULTS/cli-teardown.log" 2>&1
echo $? > "$RESULTS/cli-teardown.rc"
{{ cat /proc/mdstat
  for f in /sys/block/loop*/loop/backing_file; do [[ -f $f ]] && echo "$f $(< "$f")"; done
}} > "$RESULTS/cli-kernel-after.txt"
ls -A /run/lab-cli/images > "$RESULTS/cli-images-after.txt" 2>&1 || :
cp "$registry" "$RESULTS/cli-registry-after.json" 2>/dev/null || :
exit 0
"""


def guest_main(results: str) -> None:
    """Runs inside the VM: every in-process lab scenario; writes one JSON file per part."""
    import json
    import os
    import signal
    import subprocess
    import time
    import traceback
    from dataclasses import asdict
    from pathlib import Path

    from raidtop.actions.lab.core import Lab
    from raidtop.actions.lab.members import LabMemberActions
    from raidtop.actions.lab.spec import LabSpec
    from raidtop.actions.member_actions import ActionRefused
    from raidtop.output.md_json import array_to_json
    from raidtop.collect.sampler import Sampler

    out = Path(results)
    lab = Lab()
    actions = LabMemberActions(lab, cache_s=0)
    sampler = Sampler("/")
    size = 16 << 20

    def save(name, data):
        (out / f"{name}.json").write_text(json.dumps(data, indent=1, default=str))

    def part(name, function):
        started = time.monotonic()
        try:
            data = function()
            data["seconds"] = round(time.monotonic() - started, 2)
            save(name, data)
        except Exception:  # noqa: BLE001 - any failure is this step's result, saved for the host
            save(name, {"error": traceback.format_exc(), "seconds": round(time.monotonic() - started, 2)})

    def members_of(name):
        return sorted(os.listdir(f"/sys/block/{name}/slaves"))

    def loops_with_images(prefix):
        found = {}
        for entry in os.listdir("/sys/block"):
            try:
                backing = Path(f"/sys/block/{entry}/loop/backing_file").read_text().strip()
            except OSError:
                continue
            if backing.startswith(prefix):
                found[entry] = backing
        return found

    def wait_whole(name):
        # raid6 may rebuild two disks one after the other: idle and whole, or wait again.
        for _ in range(10):
            record = lab.wait_idle(name, 300)
            if Path(f"/sys/block/{name}/md/degraded").read_text().strip() == "0":
                return record
        return record

    def lifecycle():
        steps = []

        def capture(label, name, **expect):
            snapshot = sampler.sample()
            array = next((a for a in snapshot.arrays if a.name == name), None)
            detail = subprocess.run(["mdadm", "--detail", f"/dev/{name}"], capture_output=True, text=True).stdout
            steps.append(
                {
                    "label": label,
                    "array": name,
                    "expect": expect,
                    "raidtop": array_to_json(array) if array else None,
                    "health": array.health if array else None,
                    "status": array.status if array else None,
                    "mdadm_detail": detail,
                    "mdstat": Path("/proc/mdstat").read_text(),
                }
            )

        specs = (("raid1", 2, True), ("raid5", 3, False), ("raid6", 4, False), ("raid10", 4, True))
        names = {}
        for level, disks, bitmap in specs:
            names[level] = lab.create(LabSpec(level, disks, size, bitmap=bitmap)).name
        for name in names.values():
            lab.wait_idle(name, 300)
            capture("created", name, health="ok")

        # raid1 with a bitmap: fail, remove, re-add, add a spare, replace onto it, check.
        md = names["raid1"]
        first, second = members_of(md)
        actions.run("fail", md, first)
        capture("fail", md, health="degraded", faulty=[first])
        actions.run("remove", md, first)
        capture("remove", md, health="degraded", absent=[first])
        actions.run("re_add", md, None)
        wait_whole(md)
        capture("re_add", md, health="ok", in_sync=[first, second])
        actions.run("add_spare", md, None)
        spare = sorted(set(members_of(md)) - {first, second})[0]
        capture("add_spare", md, health="ok", spare=[spare])
        actions.run("replace", md, second)
        wait_whole(md)
        capture("replace", md, health="ok", in_sync=[first, spare], faulty=[second])
        actions.run("check", md, None)
        lab.wait_idle(md, 300)
        capture("check", md, health="ok", mismatch_cnt=0)

        # raid5: fail, remove, add a fresh disk, check.
        md = names["raid5"]
        victim = members_of(md)[1]
        actions.run("fail", md, victim)
        capture("fail", md, health="degraded", faulty=[victim])
        actions.run("remove", md, victim)
        capture("remove", md, health="degraded", absent=[victim])
        # The Lab screen's snapshot test is drawn from exactly this moment.
        from tests.realmd.trace import DEFAULT_SOURCES, capture as trace_capture

        save(
            "fixture-degraded-raid5",
            {
                "trace": trace_capture(
                    "degraded raid5", Path("/"), DEFAULT_SOURCES + ("sys/block/md*/slaves", "sys/block/loop*/loop")
                ),
                "registry": json.loads(lab.registry.path.read_text()),
                "actions": [json.loads(line) for line in Path(lab.runner.log.path).read_text().splitlines()],
            },
        )
        actions.run("add", md, None)
        wait_whole(md)
        capture("add", md, health="ok", absent=[victim])
        actions.run("check", md, None)
        lab.wait_idle(md, 300)
        capture("check", md, health="ok", mismatch_cnt=0)

        # raid6: two disks fail and it is still only degraded; two fresh disks make it whole.
        md = names["raid6"]
        victims = members_of(md)[:2]
        for victim in victims:
            actions.run("fail", md, victim)
        capture("fail-two", md, health="degraded", faulty=victims)
        for victim in victims:
            actions.run("remove", md, victim)
        capture("remove-two", md, health="degraded", absent=victims)
        actions.run("add", md, None)
        actions.run("add", md, None)
        wait_whole(md)
        capture("add-two", md, health="ok", absent=victims)

        # raid10 with a bitmap: fail, remove, add; then replace onto a spare.
        md = names["raid10"]
        victim = members_of(md)[2]
        actions.run("fail", md, victim)
        capture("fail", md, health="degraded", faulty=[victim])
        actions.run("remove", md, victim)
        capture("remove", md, health="degraded", absent=[victim])
        actions.run("add", md, None)
        wait_whole(md)
        capture("add", md, health="ok", absent=[victim])
        actions.run("add_spare", md, None)
        keep = members_of(md)
        target = sorted(m for m in keep if Path(f"/sys/block/{md}/md/dev-{m}/slot").read_text().strip() != "none")[0]
        actions.run("replace", md, target)
        wait_whole(md)
        capture("replace", md, health="ok", faulty=[target])

        state = lab.state()
        return {
            "arrays": names,
            "steps": steps,
            "registry_rebuilds": {a.name: [asdict(r) for r in a.rebuilds] for a in state.arrays},
            "timelines": {a.name: [asdict(e) for e in a.timeline] for a in state.arrays},
            "history_rebuilds": [asdict(r) for r in lab.store.rebuilds()],
        }

    def guards():
        refusals = {}
        # A raid0 lab array: nothing to fail.
        raid0 = lab.create(LabSpec("raid0", 2, size)).name
        try:
            actions.run("fail", raid0, members_of(raid0)[0])
        except ActionRefused as exc:
            refusals["raid0-fail"] = str(exc)
        # An array made outside the lab, on loop devices the lab did not make.
        foreign = []
        for index in range(3):
            image = f"/run/lab-foreign-{index}.img"
            subprocess.run(["truncate", "-s", "16M", image], check=True)
            foreign.append(
                subprocess.run(
                    ["losetup", "--find", "--show", image], check=True, capture_output=True, text=True
                ).stdout.strip()
            )
        subprocess.run(
            ["mdadm", "--create", "/dev/md0", "--run", "--level=1", "--raid-devices=2", *foreign[:2]],
            input="y\n" * 4,
            capture_output=True,
            text=True,
            check=True,
        )
        refusals["handles-md0"] = actions.handles("md0")
        for verb in ("fail", "remove", "add", "check"):
            try:
                actions.run(verb, "md0", os.path.basename(foreign[0]))
            except ActionRefused as exc:
                refusals[f"md0-{verb}"] = str(exc)
        # A lab array someone added a foreign disk to, behind the lab's back.
        lab_raid1 = lab.create(LabSpec("raid1", 2, size)).name
        lab.wait_idle(lab_raid1, 300)
        subprocess.run(["mdadm", f"/dev/{lab_raid1}", "--add", foreign[2]], check=True, capture_output=True)
        lab_member = [m for m in members_of(lab_raid1) if m != os.path.basename(foreign[2])][0]
        for verb in ("fail", "remove", "add", "re_add", "add_spare", "replace", "check", "repair", "speed_limit"):
            try:
                actions.run(verb, lab_raid1, lab_member)
            except ActionRefused as exc:
                refusals[f"mixed-{verb}"] = str(exc)
        before = loops_with_images("/run/lab-foreign-")
        report = lab.teardown()
        after = {
            "mdstat": Path("/proc/mdstat").read_text(),
            "foreign_loops": loops_with_images("/run/lab-foreign-"),
            "foreign_files": sorted(p.name for p in Path("/run").glob("lab-foreign-*.img")),
        }
        # Now clean up by hand what the lab rightly refused to touch.
        subprocess.run(["mdadm", f"/dev/{lab_raid1}", "--fail", foreign[2]], capture_output=True)
        subprocess.run(["mdadm", "--stop", f"/dev/{lab_raid1}"], capture_output=True)
        subprocess.run(["mdadm", "--stop", "/dev/md0"], capture_output=True)
        report2 = lab.teardown()
        for device in foreign:
            subprocess.run(["losetup", "-d", device], capture_output=True)
        for index in range(3):
            Path(f"/run/lab-foreign-{index}.img").unlink()
        return {
            "refusals": refusals,
            "lab_raid1": lab_raid1,
            "foreign": foreign,
            "foreign_before": before,
            "teardown": {"done": report.done, "gone": report.gone, "kept": report.kept},
            "after_first_teardown": after,
            "teardown2": {"done": report2.done, "gone": report2.gone, "kept": report2.kept},
        }

    def filesystem():
        # ext4 told the stripe geometry (mkfs is userland: it works in any guest).
        name = lab.create(LabSpec("raid5", 3, 32 << 20, 64, fs="ext4")).name
        tune2fs = subprocess.run(["tune2fs", "-l", f"/dev/{name}"], capture_output=True, text=True).stdout
        result = {"array": name, "tune2fs": tune2fs, "timeline": [e.kind for e in lab.state().array(name).timeline]}
        # Mounting needs an ext4 driver in the guest kernel, which the harness may not load.
        # Either way the lab must end clean: mounted (and unmounted at teardown) or rolled back.
        arrays_before = sorted(a.name for a in lab.state().arrays)
        loops_before = loops_with_images(str(lab.lab_dir))
        try:
            mounted = lab.create(LabSpec("raid1", 2, 16 << 20, fs="ext4", mount_point="/run/lab-mnt")).name
            result["mount"] = {"ok": True, "array": mounted, "mounts": Path("/proc/mounts").read_text()}
        except Exception as exc:  # noqa: BLE001 - any failure is this step's result, saved for the host
            result["mount"] = {
                "ok": False,
                "error": str(exc),
                "arrays_before": arrays_before,
                "arrays_after": sorted(a.name for a in lab.state().arrays),
                "loops_before": loops_before,
                "loops_after": loops_with_images(str(lab.lab_dir)),
                "mdstat": Path("/proc/mdstat").read_text(),
            }
        return result

    def lifecycle_teardown():
        before = {"mdstat": Path("/proc/mdstat").read_text(), "loops": loops_with_images(str(lab.lab_dir))}
        report = lab.teardown()
        return {
            "before": before,
            "report": {"done": report.done, "gone": report.gone, "kept": report.kept},
            "mounts": Path("/proc/mounts").read_text(),
            "mdstat": Path("/proc/mdstat").read_text(),
            "loops": loops_with_images(str(lab.lab_dir)),
            "images": sorted(os.listdir(lab.registry.images_dir)),
            "registry": json.loads(lab.registry.path.read_text()),
        }

    def interrupted(step, occurrence, lab_dir):
        # The child dies by SIGKILL at `step`: no finally, no atexit, like a crash.
        os.environ["RAIDTOP_LAB_DIR"] = lab_dir
        child = os.fork()
        if child == 0:
            seen = {"n": 0}

            def hook(label):
                if label == step:
                    seen["n"] += 1
                    if seen["n"] == occurrence:
                        os.kill(os.getpid(), signal.SIGKILL)

            try:
                Lab(Path(lab_dir)).create(LabSpec("raid5", 4, size), on_step=hook)
            finally:
                os._exit(0)
        _pid, status = os.waitpid(child, 0)
        victim_lab = Lab(Path(lab_dir))
        registry_before = json.loads(victim_lab.registry.path.read_text())
        kernel_before = {"mdstat": Path("/proc/mdstat").read_text(), "loops": loops_with_images(lab_dir)}
        report = victim_lab.teardown()
        return {
            "killed": os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL,
            "registry_before": registry_before,
            "kernel_before": kernel_before,
            "report": {"done": report.done, "gone": report.gone, "kept": report.kept},
            "mdstat": Path("/proc/mdstat").read_text(),
            "loops": loops_with_images(lab_dir),
            "images": sorted(os.listdir(Path(lab_dir) / "images")),
            "registry_after": json.loads(victim_lab.registry.path.read_text()),
        }

    part("lifecycle", lifecycle)
    part("filesystem", filesystem)
    part("lifecycle-teardown", lifecycle_teardown)
    part("guards", guards)
    part("interrupt-loop-attached", lambda: interrupted("loop-attached", 2, "/run/lab-kill-loop"))
    part("interrupt-array-created", lambda: interrupted("array-created", 1, "/run/lab-kill-md"))


# ---------------------------------------------------------------- host side


@pytest.fixture(scope="module")
def lab_results(vm_image, tmp_path_factory) -> Path:
    """Boot once, run every lab scenario, return the results folder."""
    from .vm import run_in_guest

    driver = textwrap.dedent(inspect.getsource(guest_main)) + "\n\nimport sys\nguest_main(sys.argv[1])\n"
    script = GUEST_SCRIPT.format(python=host_python(), driver=driver)
    results = tmp_path_factory.mktemp("lab") / "results"
    outcome = run_in_guest(script, timeout=420, results_dir=results, image=vm_image)
    print(f"\nlab boot: qemu wall {outcome.elapsed:.1f}s")
    assert outcome.returncode == 0, outcome.describe_failure()
    assert (results / "driver.rc").read_text().strip() == "0", (results / "driver.log").read_text()
    if os.environ.get("REALMD_UPDATE_FIXTURES") == "1":
        write_ui_fixture(results)
    return results


UI_FIXTURE = Path(__file__).resolve().parents[1] / "data" / "lab" / "degraded-raid5"


def write_ui_fixture(results: Path, destination: Path = UI_FIXTURE) -> None:
    """Turn the degraded-raid5 capture into the Lab screen's fixture (root, registry, action log)."""
    import shutil

    from .trace import materialize

    capture = json.loads((results / "fixture-degraded-raid5.json").read_text())
    shutil.rmtree(destination, ignore_errors=True)
    materialize(capture["trace"], destination / "root")
    (destination / "lab").mkdir(parents=True)
    (destination / "lab" / "registry.json").write_text(json.dumps(capture["registry"], indent=1) + "\n")
    (destination / "actions.log").write_text("".join(json.dumps(a) + "\n" for a in capture["actions"]))


def _part(results: Path, name: str) -> dict:
    data = json.loads((results / f"{name}.json").read_text())
    assert "error" not in data, data["error"]
    return data


def _mdadm_roles(detail: str) -> dict[str, str]:
    """Member → role words from ``mdadm --detail``'s device table (the kernel's own report)."""
    roles = {}
    for line in detail.splitlines():
        match = re.match(r"\s*(?:\d+|-)\s+\d+\s+\d+\s+(?:\d+|-)\s+(.+?)\s+/dev/(\S+)\s*$", line)
        if match:
            roles[match.group(2)] = match.group(1)
    return roles


def _mdadm_state(detail: str) -> str:
    match = re.search(r"^\s*State : (.+)$", detail, re.MULTILINE)
    return match.group(1).strip() if match else ""


def test_each_step_snapshot_matches_what_the_kernel_reports(lab_results: Path):
    steps = _part(lab_results, "lifecycle")["steps"]
    labels = [(s["array"], s["label"]) for s in steps]
    assert len(labels) >= 20
    for step in steps:
        where = f"{step['array']} after {step['label']}"
        array, expect = step["raidtop"], step["expect"]
        assert array is not None, where
        mdadm_roles = _mdadm_roles(step["mdadm_detail"])
        mdadm_state = _mdadm_state(step["mdadm_detail"])
        ours = {m["name"]: m["roles"] for m in array["members"]}
        # Same members as mdadm lists, and the same verdict on each.
        assert set(ours) == set(mdadm_roles), (where, ours, mdadm_roles)
        for name, roles in ours.items():
            words = mdadm_roles[name]
            if "faulty" in roles:
                assert "faulty" in words, (where, name, roles, words)
            elif "spare" in roles and not any(w in words for w in ("rebuilding",)):
                assert "spare" in words, (where, name, roles, words)
            else:
                assert "active sync" in words, (where, name, roles, words)
        assert ("degraded" in mdadm_state) == (step["health"] == "degraded"), (where, mdadm_state, step["health"])
        # /proc/mdstat's [UU_] is the pattern raidtop shows.
        assert f"[{step['status']}]" in step["mdstat"], where
        # And the state the step was meant to reach.
        assert step["health"] == expect["health"], where
        for name in expect.get("faulty", []):
            assert "faulty" in ours.get(name, []), (where, name, ours)
        for name in expect.get("absent", []):
            assert name not in ours, (where, name)
        for name in expect.get("in_sync", []):
            assert "in_sync" in ours.get(name, []), (where, name, ours)
        for name in expect.get("spare", []):
            assert "spare" in ours.get(name, []), (where, name, ours)
        if "mismatch_cnt" in expect:
            assert array["mismatch_cnt"] == expect["mismatch_cnt"], where


def test_rebuild_times_are_measured_and_stored(lab_results: Path):
    data = _part(lab_results, "lifecycle")
    names = data["arrays"]
    rebuilds = data["registry_rebuilds"]
    kinds = {level: [r["kind"] for r in rebuilds[name]] for level, name in names.items()}
    for level in ("raid1", "raid5", "raid6", "raid10"):
        assert kinds[level][0] == "resync", (level, kinds[level])
        assert "recovery" in kinds[level], (level, kinds[level])
    assert "replace" in kinds["raid1"] and "replace" in kinds["raid10"]
    for level, name in names.items():
        for rebuild in rebuilds[name]:
            assert rebuild["finished"] > rebuild["started"], (level, rebuild)
    stored = {(r["array"], r["kind"], round(r["seconds"], 6)) for r in data["history_rebuilds"]}
    for name, records in rebuilds.items():
        for rebuild in records:
            assert (name, rebuild["kind"], round(rebuild["finished"] - rebuild["started"], 6)) in stored
    timeline = [e["kind"] for e in data["timelines"][names["raid5"]]]
    assert timeline[:3] == ["created", "resync_start", "resync_done"], timeline
    for kind in ("failed", "removed", "added", "recovery_start", "recovery_done", "check_start", "check_done"):
        assert kind in timeline, (kind, timeline)
    assert (
        timeline.index("failed") < timeline.index("removed") < timeline.index("added") < timeline.index("recovery_done")
    )


def test_a_filesystem_is_aligned_to_the_stripe_and_a_failed_mount_rolls_back(lab_results: Path):
    data = _part(lab_results, "filesystem")
    # raid5 on 3 disks, 64 KiB chunks: 16 blocks of 4 KiB per chunk, 2 data chunks per stripe.
    assert re.search(r"RAID stride:\s+16$", data["tune2fs"], re.MULTILINE), data["tune2fs"]
    assert re.search(r"RAID stripe width:\s+32$", data["tune2fs"], re.MULTILINE)
    assert data["timeline"][-1] == "mkfs"
    mount = data["mount"]
    if mount["ok"]:
        assert f"/dev/{mount['array']} /run/lab-mnt ext4" in mount["mounts"]
    else:
        # The guest kernel could not mount ext4: the half-made array was torn down at once.
        assert "mount /dev/md" in mount["error"]
        assert mount["arrays_after"] == mount["arrays_before"]
        assert mount["loops_after"] == mount["loops_before"]
        assert mount["mdstat"].count(" : active") == len(mount["arrays_before"])


def test_teardown_leaves_no_array_loop_or_image(lab_results: Path):
    data = _part(lab_results, "lifecycle-teardown")
    assert len(data["before"]["loops"]) >= 17  # the lab's disks were really there
    assert data["report"]["kept"] == []
    if _part(lab_results, "filesystem")["mount"]["ok"]:
        assert "unmounted /run/lab-mnt" in data["report"]["done"]
    assert "/run/lab-mnt" not in data["mounts"]
    assert re.search(r"^md\d+ :", data["mdstat"], re.MULTILINE) is None, data["mdstat"]
    assert data["loops"] == {}
    assert data["images"] == []
    assert data["registry"]["images"] == [] and data["registry"]["arrays"] == []


def test_the_lab_refuses_arrays_that_are_not_entirely_its_own(lab_results: Path):
    data = _part(lab_results, "guards")
    refusals = data["refusals"]
    assert "raid0 has no redundancy" in refusals["raid0-fail"]
    assert refusals["handles-md0"] is False
    for verb in ("fail", "remove", "add", "check"):
        assert "md0 was not created by raidtop's lab" in refusals[f"md0-{verb}"]
    foreign = data["foreign"][2].removeprefix("/dev/")
    for verb in ("fail", "remove", "add", "re_add", "add_spare", "replace", "check", "repair", "speed_limit"):
        assert f"has member {foreign}, a loop device raidtop's lab did not create" in refusals[f"mixed-{verb}"], verb
    # Teardown stopped nothing that held a foreign disk, and touched no foreign file.
    after = data["after_first_teardown"]
    assert "md0 : active raid1" in after["mdstat"]
    assert f"{data['lab_raid1']} : active raid1" in after["mdstat"]
    assert any(data["lab_raid1"] in line and "left running" in line for line in data["teardown"]["kept"])
    assert after["foreign_loops"] == data["foreign_before"] and len(after["foreign_loops"]) == 3
    assert after["foreign_files"] == ["lab-foreign-0.img", "lab-foreign-1.img", "lab-foreign-2.img"]
    # Once the foreign disk was gone the lab finished its own cleanup.
    assert data["teardown2"]["kept"] == []


@pytest.mark.parametrize("part", ["interrupt-loop-attached", "interrupt-array-created"])
def test_teardown_after_a_crash_during_creation_cleans_everything(lab_results: Path, part: str):
    data = _part(lab_results, part)
    assert data["killed"]
    registry = data["registry_before"]
    assert registry["arrays"][0]["state"] == "creating"
    made = [i["path"] for i in registry["images"]]
    if part == "interrupt-loop-attached":
        # Killed between losetup and the registry write: the loop is known only by path and inode.
        assert [i["state"] for i in registry["images"]] == ["attached", "attaching"]
        assert len(data["kernel_before"]["loops"]) == 2
    else:
        assert all(i["state"] == "attached" for i in registry["images"]) and len(made) == 4
        assert re.search(r"^md1\d\d : active raid5", data["kernel_before"]["mdstat"], re.MULTILINE)
    assert data["report"]["kept"] == []
    assert re.search(r"^md\d+ :", data["mdstat"], re.MULTILINE) is None
    assert data["loops"] == {}
    assert data["images"] == []
    assert data["registry_after"]["images"] == [] and data["registry_after"]["arrays"] == []


def test_cli_teardown_after_killing_cli_create(lab_results: Path):
    assert (lab_results / "cli-create.rc").read_text().strip() == "137"  # killed by SIGKILL
    assert "created /dev/" not in (lab_results / "cli-create.log").read_text()
    before = json.loads((lab_results / "cli-registry-before.json").read_text())
    assert before["arrays"][0]["state"] == "creating"
    attached_before = (lab_results / "cli-kernel-before.txt").read_text().count("/run/lab-cli/images/")
    assert attached_before >= 3
    assert (lab_results / "cli-teardown.rc").read_text().strip() == "0", (lab_results / "cli-teardown.log").read_text()
    teardown_log = (lab_results / "cli-teardown.log").read_text()
    assert teardown_log.count("$ losetup -d /dev/loop") == attached_before
    after = (lab_results / "cli-kernel-after.txt").read_text()
    assert "/run/lab-cli" not in after and re.search(r"^md\d+ :", after, re.MULTILINE) is None
    assert (lab_results / "cli-images-after.txt").read_text().strip() == ""
    registry = json.loads((lab_results / "cli-registry-after.json").read_text())
    assert registry["images"] == [] and registry["arrays"] == []
