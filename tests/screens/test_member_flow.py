"""One member-action flow and one key map, in the dashboard, the Lab screen and the demo.

The lab array is the captured degraded raid5 (tests/data/lab/degraded-raid5,
a real 6.1 kernel in the VM harness); a recording runner stands in for mdadm.
Each test that could change something checks afterwards that nothing ran.
"""

from __future__ import annotations

import ast
import threading
from pathlib import Path


from raidtop.actions.lab.core import Lab
from raidtop.actions.lab.members import LabMemberActions
from raidtop.app.raidtop_app import RaidtopApp
from raidtop.collect.sampler import Sampler
from raidtop.config import Config
from raidtop.model.member_verbs import MEMBER_KEYS, VERBS
from raidtop.screens.dialogs import ConfirmDialog
from raidtop.screens.lab.screen import LabScreen
from raidtop.widgets.arrays_panel import ArraysPanel
from raidtop.widgets.text_table import TextTable
from tests.screens.lab.test_lab_screen import READY, app_on, open_lab, settle, with_image_files
from tests.screens.lab.test_lab_screen import degraded_lab, private_xdg  # noqa: F401  (fixtures)

WIDGETS = Path(__file__).resolve().parents[2] / "raidtop" / "widgets"


def member_keys(bindings) -> dict[str, str]:
    """{binding id: key} of the member verbs among ``bindings``."""
    return {b.id: b.key for b in bindings if b.id and b.id.startswith("member-") and b.id != "members-back"}


def test_dashboard_lab_and_demo_share_one_key_per_verb():
    # The demo's member keys are the Arrays panel's (it runs on the dashboard).
    panel, lab = member_keys(ArraysPanel.BINDINGS), member_keys(LabScreen.BINDINGS)
    assert panel == lab == {k.binding_id: k.key for k in MEMBER_KEYS}
    assert {k.verb for k in MEMBER_KEYS} == set(VERBS)
    assert len({k.key for k in MEMBER_KEYS}) == len(MEMBER_KEYS)
    actions = {b.id: b.action for b in ArraysPanel.BINDINGS} | {b.id: b.action for b in LabScreen.BINDINGS}
    for key in MEMBER_KEYS:
        assert actions[key.binding_id] == f"member({key.verb!r})"
    # No member key may hide one of the Lab screen's own keys.
    others = {b.key for b in LabScreen.BINDINGS if not (b.id or "").startswith("member-")}
    assert not {k.key for k in MEMBER_KEYS} & {k for keys in others for k in keys.split(",")}


def test_the_arrays_panel_plans_nothing_itself():
    # The widget posts a message; reading sysfs and running mdadm belong to the screen's workers.
    for name in ("arrays_panel.py", "member_keys.py"):
        tree = ast.parse((WIDGETS / name).read_text())
        imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        imported |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        assert not {m for m in imported if m and m.startswith(("raidtop.actions", "raidtop.screens"))}, name


class ThreadNoting(LabMemberActions):
    """The lab's own member actions, noting which thread planned each verb."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.planned_on: list[threading.Thread] = []

    def command(self, verb, array, member):
        self.planned_on.append(threading.current_thread())
        return super().command(verb, array, member)


async def test_dashboard_member_key_posts_the_verb_and_confirms_the_exact_command(degraded_lab: Lab):  # noqa: F811 (the fixture imported above)
    with_image_files(degraded_lab)
    root = degraded_lab.root.path
    registry_before = degraded_lab.registry.path.read_bytes()
    messages = []
    app = RaidtopApp(Config(root=root, autostart_sampler=False))
    actions = ThreadNoting(degraded_lab, live_only=False)
    app.lab, app.lab_actions = degraded_lab, actions
    async with app.run_test(size=(120, 40), message_hook=messages.append) as pilot:
        app.apply_snapshot(Sampler(root).sample())
        await settle(pilot)  # the flow's survey worker finds md101 is a lab array
        panel = app.screen.query_one(ArraysPanel)
        panel.expand_for_actions("md101")
        await settle(pilot)
        panel.query_one("#member-table", TextTable).move_cursor_to_key("md101/loop2")
        assert panel.check_action("member", ("fail",))
        await pilot.press("f")
        await settle(pilot)
        # The hook sees a message at each widget it bubbles through: count each message once.
        posted = list({id(m): m for m in messages if isinstance(m, ArraysPanel.MemberVerb)}.values())
        assert [(m.array, m.member, m.verb) for m in posted] == [("md101", "loop2", "fail")]
        assert actions.planned_on and all(t is not threading.main_thread() for t in actions.planned_on)
        assert isinstance(app.screen, ConfirmDialog)
        assert str(app.screen.query_one("#confirm-command").render()) == "mdadm /dev/md101 --fail /dev/loop2"
        await pilot.press("n")
        await settle(pilot)
    assert degraded_lab.runner.commands == []
    assert degraded_lab.registry.path.read_bytes() == registry_before


async def test_dashboard_keeps_its_own_key_where_no_array_can_be_changed(degraded_lab: Lab):  # noqa: F811 (the fixture imported above)
    # Same root, but no lab registry entry is trusted: f is the dashboard's filter again.
    root = degraded_lab.root.path
    app = RaidtopApp(Config(root=root, autostart_sampler=False))
    async with app.run_test(size=(120, 40)) as pilot:
        app.apply_snapshot(Sampler(root).sample())
        await settle(pilot)
        panel = app.screen.query_one(ArraysPanel)
        panel.expand_for_actions("md101")
        await settle(pilot)
        assert not panel.check_action("member", ("fail",))
        await pilot.press("f")
        await pilot.pause()
        # The dashboard's own f: the device filter (an AskDialog since the dialogs were made one module).
        assert type(app.screen).__name__ == "AskDialog"
        assert "Show devices whose name" in str(app.screen.query_one("Label").content)
    assert degraded_lab.runner.commands == []


async def test_lab_screen_plans_off_the_ui_thread_with_the_same_key(degraded_lab: Lab):  # noqa: F811 (the fixture imported above)
    with_image_files(degraded_lab)
    app = app_on(degraded_lab.root.path)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_lab(pilot, degraded_lab, environment=READY, read_only=False)
        actions = ThreadNoting(degraded_lab, live_only=False)
        screen._actions = actions
        screen.query_one("#lab-arrays", TextTable).move_cursor_to_key("md101")
        await pilot.pause()
        members = screen.query_one("#lab-members", TextTable)
        members.focus()
        members.move_cursor_to_key("loop3")  # the removed disk: E puts it back
        await pilot.press("E")
        await settle(pilot)
        assert actions.planned_on and all(t is not threading.main_thread() for t in actions.planned_on)
        assert isinstance(app.screen, ConfirmDialog)
        assert str(app.screen.query_one("#confirm-command").render()) == "mdadm /dev/md101 --re-add /dev/loop3"
        await pilot.press("n")
        await settle(pilot)
    assert degraded_lab.runner.commands == []


async def test_demo_hides_the_verbs_it_does_not_simulate():
    app = RaidtopApp(Config(demo=True, interval=0.5))
    async with app.run_test(size=(120, 40)) as pilot:
        panel = app.screen.query_one(ArraysPanel)
        for _ in range(400):  # bounded wait for the sampler and the flow's survey, not a timing assertion
            if panel.check_action("member", ("fail",)):
                break
            await pilot.pause(0.05)
        offered = {k.verb for k in MEMBER_KEYS if panel.check_action("member", (k.verb,))}
        assert offered == {"fail", "remove", "add"}
        before = [m.name for m in app.demo.sim.members]
        await pilot.press("L")  # speed limit: not simulated, so the key does nothing here
        await pilot.pause(0.2)  # (the demo's sampler never completes: no waiting for all workers)
        assert [m.name for m in app.demo.sim.members] == before
        assert app.screen is app.dashboard
