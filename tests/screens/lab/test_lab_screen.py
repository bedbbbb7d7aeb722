"""Pilot and snapshot tests of the Lab screen.

The degraded lab array comes from a real run: tests/data/lab/degraded-raid5
is what raidtop's lab and a 6.1 kernel showed in the VM harness right after
a raid5 member was failed and removed (see tests/data/lab/PROVENANCE.md).
Nothing here runs mdadm or losetup: a recording runner stands in.
"""

from __future__ import annotations

import fcntl
import json
import shutil
from pathlib import Path

import pytest

from raidtop.actions.action_log import ActionLog
from raidtop.actions.lab.core import Lab
from raidtop.actions.lab.preflight import LabEnvironment
from raidtop.actions.lab.commands import CommandEvent, CommandRunner
from raidtop.app.raidtop_app import RaidtopApp
from raidtop.config import Config
from raidtop.screens.dialogs import ConfirmDialog
from raidtop.screens.lab.form import LabForm
from raidtop.screens.lab.screen import LabScreen
from raidtop.widgets.text_table import TextTable

FIXTURE = Path(__file__).resolve().parents[2] / "data" / "lab" / "degraded-raid5"
SNAPSHOT_LAB = Path("/tmp/raidtop-ui-lab-snapshot")
"""A fixed lab directory: the screen's title shows it, and snapshots must not differ by checkout."""
CAPTURED_AT = 1795317902.5
READY = LabEnvironment(kernel="6.1.0-56-amd64")


class RecordingRunner(CommandRunner):
    """Records commands; runs nothing."""

    def __init__(self, log: ActionLog) -> None:
        super().__init__(log)
        self.commands: list[list[str]] = []

    def run(self, argv, *, input=None, timeout=120.0, check=True, **details) -> CommandEvent:
        self.commands.append(list(argv))
        display = " ".join(argv)
        started = CommandEvent(display, CAPTURED_AT)
        self._emit(started)
        done = CommandEvent(display, CAPTURED_AT, CAPTURED_AT, True)
        self.log.append("lab", display, "ok")
        self._emit(done)
        return done


@pytest.fixture(autouse=True)
def private_xdg(monkeypatch, tmp_path: Path):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("RAIDTOP_LAB_DIR", raising=False)


@pytest.fixture
def degraded_lab(tmp_path: Path):
    """The captured lab: its root, registry and action log, copied so tests may change them."""
    root = tmp_path / "root"
    shutil.copytree(FIXTURE / "root", root, symlinks=True)
    # The folder's name is fixed (the snapshot shows it): a second suite running
    # at the same time waits here instead of rewriting this one's registry.
    guard = open(f"{SNAPSHOT_LAB}.lock", "a")  # noqa: SIM115 (held, locked, across the yield)
    fcntl.flock(guard, fcntl.LOCK_EX)
    shutil.rmtree(SNAPSHOT_LAB, ignore_errors=True)
    shutil.copytree(FIXTURE / "lab", SNAPSHOT_LAB / "lab")
    shutil.copy(FIXTURE / "actions.log", tmp_path / "actions.log")
    log = ActionLog(tmp_path / "actions.log")
    lab = Lab(
        SNAPSHOT_LAB / "lab",
        root=root,
        runner=RecordingRunner(log),
        euid=0,
        which=lambda name: f"/usr/sbin/{name}",
        clock=lambda: CAPTURED_AT,
    )
    try:
        yield lab
    finally:
        shutil.rmtree(SNAPSHOT_LAB, ignore_errors=True)
        guard.close()  # releases the lock


def with_image_files(lab: Lab) -> None:
    """Put the images in the fixture root and record their inodes, so the guard sees lab disks.

    The capture's lab lived in /tmp/lab; the guard trusts only images in this
    lab's own folder, so the images (and the loop devices' backing files) move there.
    """
    doc = json.loads(lab.registry.path.read_text())
    for image in doc["images"]:
        image["path"] = str(lab.registry.images_dir / Path(image["path"]).name)
        backing = Path(lab.root.resolve(f"/sys/block/{image['loop']}/loop/backing_file"))
        if backing.exists():
            backing.write_text(image["path"] + "\n")
        path = lab.root.resolve(image["path"])
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_bytes(b"")
        image["inode"] = Path(path).stat().st_ino
    lab.registry.path.write_text(json.dumps(doc))


async def settle(pilot) -> None:
    # Workers read the registry and sysfs; wait for them and for the messages they post.
    for _ in range(3):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()


async def open_lab(pilot, lab: Lab, **kwargs) -> LabScreen:
    screen = LabScreen(lab, **kwargs)
    await pilot.app.push_screen(screen)
    await settle(pilot)
    return screen


def app_on(root: Path) -> RaidtopApp:
    return RaidtopApp(Config(root=root, autostart_sampler=False))


def cells(table: TextTable, column: int) -> list[str]:
    return [row.cells[column].strip() for row in table.rows]


async def test_without_md_it_says_what_is_missing_and_offers_the_demo(tmp_path: Path):
    root = tmp_path / "bare"
    (root / "proc" / "sys" / "kernel").mkdir(parents=True)
    (root / "proc" / "sys" / "kernel" / "osrelease").write_text("6.18.44-fc-v669\n")
    lab = Lab(tmp_path / "lab", root=root, log=ActionLog(tmp_path / "a.log"), euid=1000, which=lambda name: None)
    app = app_on(root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_lab(pilot, lab, read_only=False)
        banner = str(screen.query_one("#lab-banner").render())
        assert "this kernel (6.18.44-fc-v669) has no md driver" in banner
        assert "sudo modprobe md_mod raid0 raid1 raid456 raid10" in banner
        assert "mdadm is not installed: install it: sudo apt install mdadm" in banner
        assert "losetup is not installed" in banner
        assert "the lab needs root" in banner and "sudo raidtop" in banner
        assert "raidtop --demo" in banner
        assert screen.has_class("-unavailable")
        assert not screen.check_action("member", ())
        # Nothing invites: the form is greyed out and the empty table says why, not "fill in the form".
        assert screen.query_one(LabForm).disabled
        arrays = screen.query_one("#lab-arrays", TextTable)
        assert arrays.placeholder == "no lab arrays: this machine cannot run the lab (see above)"
        for key in ("n", "S"):
            app.clear_notifications()
            await pilot.press(key)
            await pilot.pause()
            assert app.screen is screen  # no dialog: nothing can be created here
            # The key answers with the preflight's own sentence.
            assert [n.message for n in app._notifications] == [
                "the lab cannot run here: this kernel (6.18.44-fc-v669) has no md driver: /proc/mdstat is absent "
                "and /lib/modules/6.18.44-fc-v669 has no md_mod module; mdadm is not installed; losetup is not "
                "installed; the loop driver is not loaded; the lab needs root to attach loop devices and create md "
                "arrays (you are uid 1000) (raidtop lab doctor says what to do; raidtop --demo works meanwhile)"
            ]


async def test_the_degraded_array_shows_its_members_and_timeline(degraded_lab: Lab):
    app = app_on(degraded_lab.root.path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_lab(pilot, degraded_lab, environment=READY, read_only=False)
        arrays = screen.query_one("#lab-arrays", TextTable)
        assert cells(arrays, 0) == ["md100", "md101", "md102", "md103"]
        assert cells(arrays, 4) == ["ok", "degraded", "ok", "ok"]
        arrays.move_cursor_to_key("md101")
        await pilot.pause()
        members = screen.query_one("#lab-members", TextTable)
        assert [(r.cells[0], r.cells[2].strip()) for r in members.rows] == [
            ("loop2", "in_sync"),
            ("loop4", "in_sync"),
            ("loop3", "(removed: re-add with E)"),
        ]
        events = cells(screen.query_one("#lab-timeline", TextTable), 2)
        assert events[0].startswith("created — raid5 on 3 × 16 MiB")
        assert events[-2:] == ["loop3 failed — by the lab", "loop3 removed"]
        assert any(e.startswith("resync done in") for e in events)
        log = cells(screen.query_one("#lab-log", TextTable), 2)
        assert log[-2:] == ["mdadm /dev/md101 --fail /dev/loop3", "mdadm /dev/md101 --remove /dev/loop3"]


async def test_a_member_key_asks_with_the_exact_command_and_runs_it_only_on_yes(degraded_lab: Lab):
    with_image_files(degraded_lab)
    runner = degraded_lab.runner
    app = app_on(degraded_lab.root.path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_lab(pilot, degraded_lab, environment=READY, read_only=False)
        screen.query_one("#lab-arrays", TextTable).move_cursor_to_key("md101")
        await pilot.pause()
        members = screen.query_one("#lab-members", TextTable)
        members.focus()
        members.move_cursor_to_key("loop2")
        await pilot.press("f")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmDialog)
        assert str(app.screen.query_one("#confirm-command").render()) == "mdadm /dev/md101 --fail /dev/loop2"
        await pilot.press("n")
        await settle(pilot)
        assert runner.commands == []
        await pilot.press("f")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert runner.commands == [["mdadm", "/dev/md101", "--fail", "/dev/loop2"]]
        log = screen.query_one("#lab-log", TextTable)
        assert log.rows[-1].cells[1:] == ("ok", "mdadm /dev/md101 --fail /dev/loop2")
        timeline = degraded_lab.state().array("md101").timeline
        assert (timeline[-1].kind, timeline[-1].member) == ("failed", "loop2")


async def test_a_verb_the_guard_refuses_says_why_and_asks_nothing(degraded_lab: Lab):
    # Without the image files the loop devices cannot be proven to be the lab's.
    app = app_on(degraded_lab.root.path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_lab(pilot, degraded_lab, environment=READY, read_only=False)
        screen.query_one("#lab-arrays", TextTable).move_cursor_to_key("md101")
        await pilot.pause()
        await pilot.press("k")
        await settle(pilot)
        assert app.screen is screen
        assert any("md101 has member loop2" in n.message for n in app._notifications)
        assert degraded_lab.runner.commands == []


async def test_commands_appear_in_the_log_as_they_run(degraded_lab: Lab):
    app = app_on(degraded_lab.root.path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_lab(pilot, degraded_lab, environment=READY, read_only=False)
        log = screen.query_one("#lab-log", TextTable)
        before = len(log.rows)
        started = CommandEvent("mdadm --stop /dev/md103", 1.0)
        degraded_lab.runner._emit(started)
        await pilot.pause()
        assert log.rows[-1].cells[1:] == ("running", "mdadm --stop /dev/md103")
        degraded_lab.runner._emit(CommandEvent("mdadm --stop /dev/md103", 1.0, 2.0, False, "", "busy"))
        await pilot.pause()
        assert len(log.rows) == before + 1
        assert log.rows[-1].cells[1] == "failed" and log.rows[-1].cells[2].endswith("← busy")


async def test_create_shows_the_planned_commands_and_checks_the_form(degraded_lab: Lab):
    app = app_on(degraded_lab.root.path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_lab(pilot, degraded_lab, environment=READY, read_only=False)
        screen.query_one("#lab-disks").value = "1"
        await pilot.press("n")
        await pilot.pause()
        assert app.screen is screen
        assert "raid5 in the lab takes 3 to 16 disks, not 1" in str(screen.query_one("#lab-spec-error").render())
        screen.query_one("#lab-level").value = "raid1"
        screen.query_one("#lab-disks").value = "2"
        screen.query_one("#lab-size").value = "32M"
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog)
        command = str(app.screen.query_one("#confirm-command").render())
        assert (
            "mdadm --create /dev/md1NN --run --metadata=1.2 --level=1 --raid-devices=2 --bitmap=none "
            "/dev/loopA /dev/loopB" in command
        )
        assert command.count("losetup --find --show") == 2 and f"truncate -s {32 << 20}" in command
        await pilot.press("n")
        await settle(pilot)
        assert degraded_lab.runner.commands == []


def test_every_key_has_an_id_and_a_tooltip():
    for binding in LabScreen.BINDINGS:
        assert binding.id and binding.tooltip, binding


def test_degraded_lab_array_with_its_timeline(snap_compare, degraded_lab: Lab):
    async def open_it(pilot) -> None:
        screen = await open_lab(pilot, degraded_lab, environment=READY, read_only=False)
        screen.query_one("#lab-arrays", TextTable).move_cursor_to_key("md101")
        # Until the deferred scrolls to the logs' ends are done: one pause was too short on a loaded run.
        await settle(pilot)

    assert snap_compare(app_on(degraded_lab.root.path), terminal_size=(120, 40), run_before=open_it)


async def test_a_read_only_lab_says_why_n_creates_nothing(degraded_lab: Lab):
    app = app_on(degraded_lab.root.path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_lab(pilot, degraded_lab, environment=READY, read_only=True)
        assert screen.query_one(LabForm).disabled
        app.clear_notifications()
        await pilot.press("n")
        await pilot.pause()
        assert app.screen is screen
        assert [n.message for n in app._notifications] == [
            "the lab acts on the live system only, not on a --root tree or a replay"
        ]
