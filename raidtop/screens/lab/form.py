"""The Lab screen's "New array" form: level, disks, size, chunk, filesystem, mount, bitmap and the job buttons."""

from __future__ import annotations

from typing import cast

from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Button, Checkbox, Input, Label, Select, Static

from raidtop.actions.lab.spec import (
    CHUNK_CHOICES_KIB,
    DEFAULT_CHUNK_KIB,
    LEVELS,
    LabSpec,
    SpecError,
    parse_size,
    validate,
)
from raidtop.widgets.panel import Panel
from raidtop.widgets.shown_text import PlainStatic


class LabForm(Panel):
    """Describes one lab array; :meth:`spec` validates it and shows what is wrong under the fields."""

    DEFAULT_CSS = """
    LabForm { width: 30; height: 1fr; }
    LabForm #lab-form { padding: 0 1; scrollbar-size: 1 1; }
    LabForm .form-row { height: 1; margin-bottom: 1; }
    LabForm .form-row Label { width: 7; color: $text-muted; }
    LabForm .form-row Input, LabForm .form-row Select { width: 1fr; }
    LabForm Checkbox { margin-bottom: 1; }
    LabForm Button { width: 100%; margin-bottom: 1; }
    LabForm #lab-spec-error { color: $text-error; height: auto; }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.border_title = "New array"

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="lab-form"):
            with Horizontal(classes="form-row"):
                yield Label("Level")
                yield Select(
                    [(f"raid{n}", LEVELS[n]) for n in LEVELS],
                    value="raid5",
                    allow_blank=False,
                    id="lab-level",
                    compact=True,
                )
            with Horizontal(classes="form-row"):
                yield Label("Disks")
                yield Input("4", id="lab-disks", compact=True, type="integer")
            with Horizontal(classes="form-row"):
                yield Label("Size")
                yield Input("64M", id="lab-size", compact=True, tooltip="Each disk: 64M, 1G…")
            with Horizontal(classes="form-row"):
                yield Label("Chunk")
                yield Select(
                    [(f"{c} KiB", c) for c in CHUNK_CHOICES_KIB],
                    value=DEFAULT_CHUNK_KIB,
                    allow_blank=False,
                    id="lab-chunk",
                    compact=True,
                )
            with Horizontal(classes="form-row"):
                yield Label("FS")
                yield Select(
                    [("none", ""), ("ext4", "ext4"), ("xfs", "xfs")],
                    value="",
                    allow_blank=False,
                    id="lab-fs",
                    compact=True,
                )
            with Horizontal(classes="form-row"):
                yield Label("Mount")
                yield Input("", placeholder="(none)", id="lab-mount", compact=True)
            yield Checkbox("write-intent bitmap", id="lab-bitmap", compact=True)
            yield PlainStatic("", id="lab-spec-error")
            # The buttons post Button.Pressed; the screen decides whether the job may run.
            yield Button("Create (n)", id="lab-create-button", variant="primary", compact=True)
            yield Button("Study (S)", id="lab-study-button", compact=True)
            yield Button("Teardown (t)", id="lab-teardown-button", variant="warning", compact=True)

    def spec(self) -> LabSpec | None:
        """The array the form describes, validated; None (with the reason shown) when it is not valid."""
        try:
            disks_text = self.query_one("#lab-disks", Input).value.strip()
            if not disks_text.isdigit():
                raise SpecError("disks must be a whole number")
            # Every Select here has allow_blank=False, so each value is one of its options.
            fs = cast(str, self.query_one("#lab-fs", Select).value) or None
            mount = self.query_one("#lab-mount", Input).value.strip() or None
            spec = validate(
                LabSpec(
                    cast(str, self.query_one("#lab-level", Select).value),
                    int(disks_text),
                    parse_size(self.query_one("#lab-size", Input).value),
                    cast(int, self.query_one("#lab-chunk", Select).value),
                    self.query_one("#lab-bitmap", Checkbox).value,
                    fs,
                    mount,
                )
            )
        except SpecError as exc:
            self.show_error(str(exc))
            return None
        self.show_error("")
        return spec

    def disk_size(self) -> int | None:
        """The size field in bytes (the study uses only this); None with the reason shown."""
        try:
            return parse_size(self.query_one("#lab-size", Input).value)
        except SpecError as exc:
            self.show_error(str(exc))
            return None

    def show_error(self, text: str) -> None:
        """Show what is wrong with the form (empty: nothing)."""
        self.query_one("#lab-spec-error", Static).update(text)
