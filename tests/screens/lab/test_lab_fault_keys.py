"""The Lab screen's fault keys: refused without device-mapper; one dialog → the planned commands → run and logged.

The lab is the captured degraded raid5 of tests/screens/lab/test_lab_screen.py
(a recording runner runs nothing); its root gets a /proc/misc listing
device-mapper where a test needs a kernel that has it (this host's has none).
"""

from __future__ import annotations

import shlex
from pathlib import Path

from raidtop.actions.lab.core import Lab
from raidtop.actions.lab.dmfault import plan_fault
from raidtop.actions.lab.dmtables import NO_DEVICE_MAPPER, FaultSpec
from raidtop.screens.dialogs import AskDialog, ConfirmDialog
from raidtop.widgets.text_table import TextTable

from tests.screens.lab.test_lab_screen import READY, app_on, open_lab, settle, with_image_files
from tests.screens.lab.test_lab_screen import degraded_lab, private_xdg  # noqa: F401 (fixtures used by name)

SECTORS = 131072  # the captured 64 MiB lab disks


def with_device_mapper(lab: Lab) -> None:
    """The root's kernel lists device-mapper, and the member's size is known (the dm table spans it)."""
    root = Path(lab.root.path)
    (root / "proc" / "misc").write_text("236 device-mapper\n237 loop-control\n")
    (root / "sys" / "block" / "loop2" / "size").write_text(f"{SECTORS}\n")


async def highlight(pilot, screen, member: str) -> None:
    screen.query_one("#lab-arrays", TextTable).move_cursor_to_key("md101")
    await pilot.pause()
    members = screen.query_one("#lab-members", TextTable)
    members.focus()
    members.move_cursor_to_key(member)
    await pilot.pause()


async def test_without_device_mapper_the_fault_key_refuses_with_a_sentence_and_asks_nothing(degraded_lab: Lab):  # noqa: F811 (the imported fixture)
    with_image_files(degraded_lab)  # the member is the lab's: only device-mapper is missing
    app = app_on(degraded_lab.root.path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_lab(pilot, degraded_lab, environment=READY, read_only=False)
        await highlight(pilot, screen, "loop2")
        await pilot.press("F")
        await settle(pilot)
        assert app.screen is screen  # no dialog
        refused = [n for n in app._notifications if n.title == "fault refused"]
        assert [n.message for n in refused] == [NO_DEVICE_MAPPER]
        assert degraded_lab.runner.commands == []


async def test_the_dialog_plans_the_faults_exact_commands_and_runs_them_only_on_yes(degraded_lab: Lab):  # noqa: F811 (the imported fixture)
    with_image_files(degraded_lab)
    with_device_mapper(degraded_lab)
    expected = [
        list(argv) for argv in plan_fault(degraded_lab, "md101", "loop2", FaultSpec("delay", delay_ms=25)).commands
    ]
    app = app_on(degraded_lab.root.path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_lab(pilot, degraded_lab, environment=READY, read_only=False)
        await highlight(pilot, screen, "loop2")
        await pilot.press("F")
        await settle(pilot)
        assert isinstance(app.screen, AskDialog)
        # A fault that does not parse keeps the dialog open and says how to write one.
        for key in "delay x":
            await pilot.press("space" if key == " " else key)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, AskDialog)
        assert any("whole milliseconds" in n.message for n in app._notifications)
        await pilot.press("backspace", "2", "5", "enter")
        await settle(pilot)
        assert isinstance(app.screen, ConfirmDialog)
        shown = str(app.screen.query_one("#confirm-command").render())
        assert shown.splitlines() == [shlex.join(argv) for argv in expected]
        assert "0 131072 delay /dev/loop2 0 25" in shown
        assert degraded_lab.runner.commands == []  # planning and asking run nothing
        await pilot.press("y")
        await settle(pilot)
        assert degraded_lab.runner.commands == expected
        timeline = degraded_lab.state().array("md101").timeline
        assert (timeline[-1].kind, timeline[-1].member) == ("fault", "loop2")
        log = screen.query_one("#lab-log", TextTable)
        assert log.rows[-1].cells[2] == " ".join(expected[-1])


async def test_clear_on_a_member_that_is_no_fault_says_so(degraded_lab: Lab):  # noqa: F811 (the imported fixture)
    with_image_files(degraded_lab)
    with_device_mapper(degraded_lab)
    app = app_on(degraded_lab.root.path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_lab(pilot, degraded_lab, environment=READY, read_only=False)
        await highlight(pilot, screen, "loop2")
        await pilot.press("C")
        await settle(pilot)
        assert app.screen is screen
        assert any(n.message == "loop2 is not behind a lab fault" for n in app._notifications)
        assert degraded_lab.runner.commands == []
