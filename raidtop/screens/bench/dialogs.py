"""The Benchmarks screen's questions: the target (and a raw-device override) and a pass count."""

from __future__ import annotations

from raidtop.screens.dialogs import AskDialog, FormDialog, InputLine

MAX_PASSES = 100


def _passes_problem(text: str) -> str | None:
    """Why ``text`` is no pass count, or ``None``."""
    return (
        None if text.isdigit() and 1 <= int(text) <= MAX_PASSES else f"give a number of passes from 1 to {MAX_PASSES}"
    )


def target_dialog(current: str, override: str) -> FormDialog:
    """Ask for the target (a directory or a block device) and an optional raw-device override."""
    return FormDialog(
        [
            InputLine(
                "Benchmark target: a directory (fio writes a test file there) or a block device",
                current,
                "/srv/bench or /dev/loop7",
                "bench-target-input",
            ),
            InputLine(
                "Raw device not created by raidtop's lab? Type its name here to allow fio to destroy its data:",
                override,
                "e.g. loop7 (leave empty for directories and lab devices)",
                "bench-override-input",
            ),
        ],
        width=84,
    )


def passes_dialog(preset: str) -> AskDialog:
    """Ask how many times to run ``preset``."""
    return AskDialog(
        f"Repeat {preset}: how many passes? (tuning guides use 5)",
        value="5",
        validate=_passes_problem,
        input_type="integer",
        width=60,
        input_id="bench-count-input",
    )
