"""Issue 29: C copies what a screen shows to the clipboard through OSC 52 (the terminal's clipboard, also over SSH)."""

from __future__ import annotations

import base64

from raidtop.app.raidtop_app import RaidtopApp
from raidtop.screens.array_detail import ArrayDetailScreen
from raidtop.screens.dialogs import CommandDialog, ConfirmDialog
from raidtop.screens.explain import ExplainScreen, explanation_for
from raidtop.screens.smart import SmartScreen

from tests.app.test_find_palette import HOSTILE, SERIAL, found_snapshot

COMMAND = "mdadm /dev/md6 --fail /dev/sdr"


def osc52(text: str) -> str:
    """The sequence a terminal turns into a clipboard write."""
    return f"\x1b]52;c;{base64.b64encode(text.encode()).decode()}\a"


def capture_writes(app) -> list[str]:
    """Everything written to the terminal from now on."""
    written: list[str] = []
    driver = app._driver
    original = driver.write

    def write(data: str) -> None:
        written.append(data)
        original(data)

    driver.write = write
    return written


def notices(app) -> list[str]:
    return [n.message for n in app._notifications]


async def test_the_confirmation_copies_its_exact_command_and_stays_open(static_config):
    app = RaidtopApp(static_config)
    async with app.run_test(size=(120, 40)) as pilot:
        answers: list[bool | None] = []
        app.push_screen(ConfirmDialog("Fail sdr of md6?", COMMAND), answers.append)
        await pilot.pause()
        written = capture_writes(app)
        await pilot.press("C")
        await pilot.pause()
        assert osc52(COMMAND) in "".join(written)
        assert app.clipboard == COMMAND
        assert any(f"copied the command to the clipboard: {COMMAND}" in n for n in notices(app))
        assert isinstance(app.screen, ConfirmDialog) and answers == []  # nothing answered, nothing run
        await pilot.click("#confirm-copy")  # the button does the same
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog) and answers == []


async def test_commands_to_run_by_hand_are_copied_one_a_line(static_config):
    app = RaidtopApp(static_config)
    async with app.run_test(size=(120, 40)) as pilot:
        app.push_screen(CommandDialog("Run these as root", [COMMAND, "mdadm /dev/md6 --remove /dev/sdr"]))
        await pilot.pause()
        await pilot.press("C")
        assert app.clipboard == f"{COMMAND}\nmdadm /dev/md6 --remove /dev/sdr"


async def test_smart_copies_the_serial_and_never_a_control_character(static_config):
    app = RaidtopApp(static_config)
    async with app.run_test(size=(120, 40)) as pilot:
        app.apply_snapshot(found_snapshot())
        app.push_screen(SmartScreen("sdq"))
        await pilot.pause()
        written = capture_writes(app)
        await pilot.press("C")
        await pilot.pause()
        assert app.clipboard == SERIAL and osc52(SERIAL) in "".join(written)
        assert any(f"copied sdq's serial to the clipboard: {SERIAL}" in n for n in notices(app))
        await pilot.press("escape")
        app.push_screen(SmartScreen("sdr"))
        await pilot.pause()
        await pilot.press("C")
        assert "\x1b" not in app.clipboard and app.clipboard.startswith("[bold]EVIL[/bold]")
        assert len(app.clipboard) == len(HOSTILE)  # the escape replaced, not the rest dropped
        await pilot.press("escape")
        app.push_screen(SmartScreen("sds"))  # a disk with no serial known
        await pilot.pause()
        await pilot.press("C")
        assert "no serial number known for sds: nothing copied" in notices(app)[-1]


async def test_explain_and_array_detail_copy_what_they_show(static_config):
    app = RaidtopApp(static_config)
    async with app.run_test(size=(120, 40)) as pilot:
        snap = found_snapshot()
        app.apply_snapshot(snap)
        build = explanation_for("disks", "disk-table", "sdq")
        assert build is not None
        explanation = build(snap)
        assert explanation is not None
        app.push_screen(ExplainScreen(explanation, build, snap.time))
        await pilot.pause()
        await pilot.press("C")
        copied = app.clipboard.splitlines()
        assert copied[0].startswith(explanation.title)
        first = explanation.lines[0]
        assert f"{first.name}: {first.formula} = {first.numbers} = {first.result}" in copied
        await pilot.press("escape")
        app.push_screen(ArrayDetailScreen("md6"))
        await pilot.pause()
        await pilot.press("C")
        copied = app.clipboard.splitlines()
        assert copied[0] == "md6" and "Level: raid6" in copied and "Health: degraded" in copied
