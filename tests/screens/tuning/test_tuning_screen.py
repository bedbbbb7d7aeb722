"""Pilot tests of the Tuning screen: change through the confirm dialog, undo, refusals, no root,
ETA prediction, the change log and the rules; one SVG snapshot on fixed data; one run on a real
loop device (root only)."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.widgets import Input, OptionList, Static

from raidtop.actions.action_log import ActionLog
from raidtop.actions.tuning import TuningSession
from raidtop.app.raidtop_app import RaidtopApp
from raidtop.collect.sampler import Sampler
from raidtop.config import Config
from raidtop.screens.dialogs import ConfirmDialog
from raidtop.screens.dialogs import CommandDialog
from raidtop.screens.tuning.screen import TuningScreen
from raidtop.screens.tuning.dialogs import ChangeDialog, ChangeLogScreen, PersistDialog
from raidtop.widgets.text_table import TextTable

TUNING_DATA = Path(__file__).resolve().parents[2] / "data" / "ui" / "tuning"


def tuning_root(tmp_path: Path) -> Path:
    """The stored tuning tree plus what a 6.x kernel adds for md, at its defaults.

    The stored tree holds only copied files (its PROVENANCE.md); the md knobs,
    md6's sync_speed and /proc/sys/dev/raid are written here in the kernel's formats.
    """
    root = tmp_path / "root"
    shutil.copytree(TUNING_DATA, root, symlinks=True)
    for md in (root / "sys" / "block").glob("md*"):
        level = (md / "md" / "level").read_text().strip()
        (md / "md" / "sync_speed_min").write_text("1000 (system)\n")
        (md / "md" / "sync_speed_max").write_text("200000 (system)\n")
        if level in ("raid4", "raid5", "raid6"):
            (md / "md" / "stripe_cache_size").write_text("256\n")
            (md / "md" / "group_thread_cnt").write_text("0\n")
    (root / "sys" / "block" / "md6" / "md" / "sync_speed").write_text("12000\n")
    raid = root / "proc" / "sys" / "dev" / "raid"
    raid.mkdir(parents=True)
    (raid / "speed_limit_min").write_text("1000\n")
    (raid / "speed_limit_max").write_text("200000\n")
    return root


def make_app(root: Path) -> RaidtopApp:
    return RaidtopApp(Config(root=root, autostart_sampler=False))


async def open_tuning(pilot, root: Path, session: TuningSession, **where) -> TuningScreen:
    """Feed one fixed sample, then open the Tuning screen."""
    pilot.app.apply_snapshot(Sampler(root, clock=lambda: 1_600_000_000.0).sample())
    await pilot.pause()
    screen = TuningScreen(session=session, **where)
    pilot.app.push_screen(screen)
    await settle(pilot)
    return screen


async def settle(pilot) -> None:
    """Let the screen's workers finish and their messages render.

    Rounds, because one worker's answer may start the next (the dialog's check
    closes it, then the change is planned in a worker of its own).
    """
    for _ in range(3):
        await pilot.pause()
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()


async def highlight(pilot, screen: TuningScreen, attr: str) -> None:
    table = screen.query_one("#tuning-knobs", TextTable)
    table.focus()
    table.move_cursor_to_key(attr)
    await pilot.pause()


def text(screen, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tuning_root(tmp_path)


@pytest.fixture
def session(root: Path, tmp_path: Path) -> TuningSession:
    return TuningSession(root, ActionLog(tmp_path / "state" / "actions.log"), privileged=True)


def read(root: Path, rel: str) -> str:
    return (root / rel).read_text().strip()


async def test_change_through_the_confirm_dialog_then_undo(root, session):
    app = make_app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_tuning(pilot, root, session, device="sda")
        await highlight(pilot, screen, "read_ahead_kb")
        assert text(screen, "#detail-command") == "blockdev --setra 256 /dev/sda"
        await pilot.press("enter")
        assert isinstance(app.screen, ChangeDialog)
        await pilot.press(*"4096")  # the input starts with the current value selected: typing replaces it
        await settle(pilot)
        assert app.screen.query_one(Input).value == "4096"
        assert "Will run: blockdev --setra 8192 /dev/sda" in text(app.screen, "#change-preview")
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmDialog)
        assert text(app.screen, "#confirm-command") == "blockdev --setra 8192 /dev/sda"
        await pilot.press("y")
        await settle(pilot)
        assert app.screen is screen
        assert read(root, "sys/block/sda/queue/read_ahead_kb") == "4096"
        changes = screen.query_one("#tuning-changes", TextTable).rows
        assert [(r.cells[1], r.cells[2], r.cells[3], r.cells[4], r.cells[5]) for r in changes] == [
            ("sda", "read_ahead_kb", "128", "4096", "ok")
        ]
        knob = next(r for r in screen.query_one("#tuning-knobs", TextTable).rows if r.key == "read_ahead_kb")
        assert knob.cells[1] == "4096 KiB (setra 8192)" and knob.cells[3] == "128" and knob.styles[1] == "accent"

        await pilot.press("u")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmDialog)
        assert text(app.screen, "#confirm-command") == "blockdev --setra 256 /dev/sda"
        await pilot.press("y")
        await settle(pilot)
        assert read(root, "sys/block/sda/queue/read_ahead_kb") == "128"
        assert [e.details["new"] for e in session.logged_changes()] == ["4096", "128"]
        assert not screen.check_action("undo", ())


async def test_cancel_writes_nothing(root, session):
    app = make_app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_tuning(pilot, root, session, device="sda")
        await highlight(pilot, screen, "scheduler")
        await pilot.press("c")  # the footer key does what Enter does
        assert isinstance(app.screen, ChangeDialog)
        options = app.screen.query_one(OptionList)
        assert options.highlighted == 2  # bfq, the current scheduler
        await pilot.press("up", "enter")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmDialog)
        assert text(app.screen, "#confirm-command") == "echo kyber > /sys/block/sda/queue/scheduler"
        await pilot.press("n")
        await pilot.pause()
        assert read(root, "sys/block/sda/queue/scheduler") == "mq-deadline kyber [bfq] none"
        assert session.logged_changes() == []


async def test_a_refused_value_keeps_the_dialog_open_with_the_reason(root, session):
    app = make_app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_tuning(pilot, root, session, device="sda")
        await highlight(pilot, screen, "read_ahead_kb")
        await pilot.press("enter", *"130", "enter")
        await settle(pilot)
        assert isinstance(app.screen, ChangeDialog)
        assert "130 would become 128; use a multiple of 4" in text(app.screen, "#change-error")
        await pilot.press("escape")
        assert app.screen is screen
        assert read(root, "sys/block/sda/queue/read_ahead_kb") == "128"


async def test_a_speed_limit_during_a_rebuild_shows_the_predicted_eta(root, session):
    app = make_app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_tuning(pilot, root, session, array="md6")
        # md6 recovers 261584 KiB (per device) at 12000 K/s, below every limit.
        assert "md6 recover 75.0% at 11.7MiB/s" in text(screen, "#array-sync")
        assert "mkfs.xfs -d su=512k,sw=2 /dev/md6" in text(screen, "#array-align")
        await highlight(pilot, screen, "sync_speed_max")
        await pilot.press("enter", *"6000")
        await settle(pilot)
        preview = text(app.screen, "#change-preview")
        # Not 22 s x 2: md first stalls until its speed window (10 marks, each taken at a check
        # after 500 ms sleeps) has let go of the faster progress.
        assert "Predicted: md6 recover: 11.7MiB/s now, ETA 22s → 6000KiB/s, ETA 58s" in preview
        await pilot.press("enter")
        await settle(pilot)
        assert "Predicted: md6" in text(app.screen, "#confirm-details")
        await pilot.press("y")
        await settle(pilot)
        assert read(root, "sys/block/md6/md/sync_speed_max") == "6000"
        # The next samples show the effect: md now reports the slower rate.
        (root / "sys/block/md6/md/sync_speed").write_text("6100\n")
        # Changes carry wall-clock times, so the later sample must too.
        later = time.time() + 10
        app.apply_snapshot(Sampler(root, clock=lambda: later).sample())
        await pilot.pause()
        effect = text(screen, "#array-effect")
        assert effect.startswith("md6: 11.7MiB/s before sync_speed_max=6000 → 6100KiB/s") and "settling" in effect


async def test_without_root_the_command_to_run_with_sudo_is_shown(root, tmp_path, monkeypatch):
    session = TuningSession(root, ActionLog(tmp_path / "log"), privileged=False)
    # Stand in for a user who cannot write the kernel's root-owned files.
    monkeypatch.setattr(TuningSession, "needs_sudo", property(lambda self: True))
    monkeypatch.setattr(session, "can_write", lambda plan: False)
    app = make_app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_tuning(pilot, root, session, device="sda")
        assert screen.has_class("-not-root")
        await highlight(pilot, screen, "nr_requests")
        assert text(screen, "#detail-command") == "echo 64 | sudo tee /sys/block/sda/queue/nr_requests"
        await pilot.press("enter", *"128", "enter")
        await settle(pilot)
        assert isinstance(app.screen, CommandDialog)
        assert text(app.screen, "#command-text") == "echo 128 | sudo tee /sys/block/sda/queue/nr_requests"
        await pilot.press("escape")
        assert read(root, "sys/block/sda/queue/nr_requests") == "64"
        assert session.logged_changes() == []


async def test_change_log_and_make_permanent(root, session):
    session.set("sda", "nomerges", "2")
    session.set("raid", "speed_limit_min", "30000")
    app = make_app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_tuning(pilot, root, session, device="sda")
        await pilot.press("L")
        await settle(pilot)
        assert isinstance(app.screen, ChangeLogScreen)
        rows = app.screen.query_one(TextTable).rows
        assert [(r.cells[1], r.cells[2], r.cells[3], r.cells[4]) for r in rows] == [
            ("raid", "speed_limit_min", "1000", "30000"),
            ("sda", "nomerges", "0", "2"),
        ]
        await pilot.press("escape")
        await pilot.press("g")
        await settle(pilot)
        assert isinstance(app.screen, PersistDialog)
        udev = app.screen.query_one("#persist-udev-text").text
        assert 'ACTION=="add|change", SUBSYSTEM=="block", KERNEL=="sda", ATTR{queue/nomerges}="2"' in udev
        assert "dev.raid.speed_limit_min = 30000" in app.screen.query_one("#persist-sysctl-text").text
        target = root.parent / "saved" / "70-raidtop-tuning.rules"
        app.screen.query_one("#persist-udev-path", Input).value = str(target)
        app.screen.save("udev")
        await pilot.pause()
        await settle(pilot)
        assert target.read_text() == udev
        # /etc needs an explicit yes naming the file; "no" leaves it unwritten.
        app.screen.query_one("#persist-udev-path", Input).value = "/etc/raidtop-test-never/70-raidtop-tuning.rules"
        app.screen.save("udev")
        await pilot.pause()
        await settle(pilot)
        assert isinstance(app.screen, ConfirmDialog)
        assert text(app.screen, "#confirm-title") == "Write /etc/raidtop-test-never/70-raidtop-tuning.rules?"
        await pilot.press("n")
        assert not Path("/etc/raidtop-test-never").exists()
        assert screen.check_action("generate_rules", ())


async def test_a_partition_opens_its_disk(root, session):
    (root / "sys" / "block" / "sda" / "sda1").mkdir()
    (root / "sys" / "block" / "sda" / "sda1" / "partition").write_text("1\n")
    (root / "sys" / "class" / "block").mkdir(parents=True)
    (root / "sys" / "class" / "block" / "sda1").symlink_to("../../block/sda/sda1")
    app = make_app(root)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_tuning(pilot, root, session, device="sda1")
        assert screen.target_name == "sda"
        assert screen.query_one("#tuning-targets", TextTable).cursor_key == "sda"


def test_tuning_screen_snapshot(snap_compare, tmp_path):
    root = tuning_root(tmp_path)
    session = TuningSession(root, ActionLog(tmp_path / "log"), privileged=True)

    async def open_md6(pilot) -> None:
        screen = await open_tuning(pilot, root, session, array="md6")
        # The sample raises DegradedArray toasts on the dashboard; they are not this screen.
        pilot.app.clear_notifications()
        await highlight(pilot, screen, "sync_speed_max")

    assert snap_compare(make_app(root), terminal_size=(120, 40), run_before=open_md6)


# ---------------------------------------------------------------- a real loop device


@pytest.fixture
def loop_device(tmp_path: Path) -> Iterator[str]:
    if os.geteuid() != 0 or shutil.which("losetup") is None:
        reason = "needs root and losetup to attach a loop device"
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI must run this test: {reason}")
        pytest.skip(reason)
    image = tmp_path / "disk.img"
    with open(image, "wb") as handle:
        handle.truncate(16 * 1024 * 1024)
    device = subprocess.run(
        ["losetup", "--find", "--show", str(image)], check=True, capture_output=True, text=True
    ).stdout.strip()
    try:
        yield os.path.basename(device)
    finally:
        subprocess.run(["losetup", "-d", device], check=False)


@pytest.mark.live
async def test_on_a_loop_device_change_and_undo(loop_device, tmp_path):
    session = TuningSession("/", ActionLog(tmp_path / "log"))
    path = Path(f"/sys/block/{loop_device}/queue/scheduler")
    before = path.read_text().split()
    active = next(w[1:-1] for w in before if w.startswith("["))
    offered = [w.strip("[]") for w in before]
    wanted = next(s for s in offered if s != active)
    app = RaidtopApp(Config(root=Path("/"), autostart_sampler=False))
    async with app.run_test(size=(120, 40)) as pilot:
        screen = TuningScreen(device=loop_device, session=session)
        app.push_screen(screen)
        await pilot.pause()
        await highlight(pilot, screen, "scheduler")
        await pilot.press("enter")
        app.screen.query_one(OptionList).highlighted = offered.index(wanted)
        await pilot.press("enter")
        await settle(pilot)
        assert text(app.screen, "#confirm-command") == f"echo {wanted} > /sys/block/{loop_device}/queue/scheduler"
        await pilot.press("y")
        await settle(pilot)
        assert f"[{wanted}]" in path.read_text()
        await pilot.press("u")
        await settle(pilot)
        await pilot.press("y")
        await settle(pilot)
        assert f"[{active}]" in path.read_text()
        assert [e.details["new"] for e in session.logged_changes()][:2] == [wanted, active]
