"""The Benchmarks screen's keys, declared once: the screen binds them, the footer, help and palette show them."""

from __future__ import annotations

from textual.binding import Binding

from raidtop.actions.fio.presets import KEYED_PRESETS

BENCH_BINDINGS: list[Binding | tuple[str, str] | tuple[str, str, str]] = [
    Binding(
        "enter",
        "run_selected",
        "Run",
        id="bench-run",
        tooltip="Run the highlighted preset (after confirming the fio command); in the history, show a repeat's passes",
    ),
    *(
        Binding(
            str(n),
            f"run_preset({n - 1})",
            f"Run preset {n}",
            show=False,
            id=f"bench-run-{n}",
            tooltip=f"Run the preset listed as {n}",
        )
        for n in range(1, KEYED_PRESETS + 1)
    ),
    Binding(
        "t",
        "target",
        "Target",
        id="bench-target",
        tooltip="Choose the directory or device to benchmark (remembered)",
    ),
    Binding(
        "u",
        "runtime",
        "Runtime",
        show=False,
        id="bench-runtime",
        tooltip="Cycle the runtime of presets without their own: 5, 10, 15, 30, 60, 120 s",
    ),
    Binding(
        "r",
        "repeat",
        "Repeat",
        id="bench-repeat",
        tooltip="Run the highlighted preset N times: mean ± stddev and each pass",
    ),
    Binding(
        "w",
        "sweep",
        "Sweep",
        id="bench-sweep",
        tooltip="Run once per scheduler or read_ahead_kb value, then restore it",
    ),
    Binding(
        "x",
        "cancel_run",
        "Stop fio",
        id="bench-cancel",
        tooltip="Stop the running fio (SIGINT; its partial result is kept)",
    ),
    Binding(
        "m",
        "mark_baseline",
        "Baseline",
        id="bench-baseline",
        tooltip="Mark the highlighted run as its preset's baseline",
    ),
    Binding(
        "c",
        "view('compare')",
        "Compare",
        id="bench-compare",
        tooltip="Every run of the baseline's preset against it, % change",
    ),
    Binding(
        "g",
        "view('group')",
        "Passes",
        id="bench-group",
        tooltip="The passes of the highlighted repeat or sweep, with mean ± stddev",
    ),
    Binding("h", "view('results')", "History", show=False, id="bench-history", tooltip="Every stored run"),
    Binding(
        "e",
        "export",
        "Export",
        id="bench-export",
        tooltip="Write the rows in view as CSV and JSON under the data directory",
    ),
    Binding("escape,q", "back", "Back", id="bench-back", tooltip="Return to the dashboard (asks first while fio runs)"),
]
