"""The one dialogs module: one-line and several-line input, validation, literal text.

Driven through the screens that use them (the Benchmarks keys) and directly.
"""

from __future__ import annotations

import re
from pathlib import Path

from textual.widgets import Button

from raidtop.app.raidtop_app import RaidtopApp
from raidtop.config import Config
from raidtop.screens.dialogs import AskDialog, ConfirmDialog, FormDialog, InputLine
from raidtop.screens.bench.dialogs import target_dialog

from tests.conftest import DATA

ESC_TITLE = "\x1b]0;pwned\x07"


def make_app() -> RaidtopApp:
    return RaidtopApp(Config(root=DATA / "root1", autostart_sampler=False))


async def test_a_validated_answer_keeps_the_dialog_open_until_it_is_valid():
    answers: list = []
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        dialog = AskDialog(
            "passes?", value="5", validate=lambda t: None if t == "3" else "give 3", input_type="integer"
        )
        app.push_screen(dialog, answers.append)
        await pilot.pause()
        field = dialog.query_one("#ask-input")
        field.value = "0"
        await pilot.press("enter")
        await pilot.pause()
        # Refused: still open, what was typed kept, nothing answered.
        assert app.screen is dialog and field.value == "0" and answers == []
        field.value = "3"
        await pilot.press("enter")
        await pilot.pause()
    assert answers == ["3"]


async def test_escape_answers_none_and_empty_is_an_answer():
    answers: list = []
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        app.push_screen(AskDialog("filter?", value="sd"), answers.append)
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        app.push_screen(AskDialog("filter?", value="  "), answers.append)
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
    assert answers == [None, ""]


async def test_the_target_form_answers_both_lines_stripped():
    answers: list = []
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        app.push_screen(target_dialog("/srv/bench", ""), answers.append)
        await pilot.pause()
        app.screen.query_one("#bench-override-input").value = " loop7 "
        app.screen.query_one("#bench-override-input").focus()
        await pilot.press("enter")
        await pilot.pause()
    assert answers == [("/srv/bench", "loop7")]


async def test_form_labels_and_values_are_literal_text():
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        form = FormDialog([InputLine(f"Target [/] {ESC_TITLE}", f"/srv/[b]x{ESC_TITLE}")])
        app.push_screen(form)
        await pilot.pause()
        label = str(form.query_one("Label").render())
        assert "[/]" in label and "\x1b" not in label and "\x07" not in label
        assert form.query_one("Input").value == f"/srv/[b]x{ESC_TITLE}"  # the value is edited as given


async def test_every_confirmation_goes_ahead_on_y_and_cancels_on_n_escape_or_a_bare_enter():
    answers: list = []
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        for key in ("y", "enter", "n", "escape"):
            app.push_screen(ConfirmDialog("Fail sdb in md0?", "mdadm /dev/md0 --fail /dev/sdb"), answers.append)
            await pilot.pause()
            labels = [str(button.label) for button in app.screen.query(Button)]
            assert labels == ["Copy command (C)", "Cancel (n/Esc)", "Run it (y)"]
            await pilot.press(key)
            await pilot.pause()
        # Tab to the go-ahead button, then Enter: the button with the focus answers, as buttons do.
        app.push_screen(ConfirmDialog("Quit raidtop while this runs?", "fio …", go="Quit"), answers.append)
        await pilot.pause()
        assert [str(b.label) for b in app.screen.query(Button)][-1] == "Quit (y)"
        await pilot.press("tab", "enter")
        await pilot.pause()
    assert answers == [True, False, False, False, True]


async def test_the_value_dialog_names_the_same_answers_where_letters_are_typed(tmp_path: Path):
    from raidtop.actions.tuning import read_knobs
    from raidtop.screens.tuning.dialogs import ChangeDialog
    from tests.actions.tuning.test_tuning_validation import tuning_root

    knob = next(k for k in read_knobs(tuning_root(tmp_path), "sda") if k.attr == "read_ahead_kb")
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        app.push_screen(ChangeDialog(knob, lambda text: (None, [])))
        await pilot.pause()
        assert [str(b.label) for b in app.screen.query(Button)] == ["Cancel (Esc)", "Continue (Enter)"]


def test_no_dialog_draws_its_own_answer_buttons():
    # One confirmation style: every Cancel/go pair comes from dialogs.answer_buttons.
    import raidtop

    package = Path(raidtop.__file__).parent
    own = [
        str(path.relative_to(package))
        for path in package.rglob("*.py")
        if path.name != "dialogs.py" or path.parent.name != "screens"
        if re.search(r"Button\(\s*f?\"Cancel", path.read_text())
    ]
    assert own == []
