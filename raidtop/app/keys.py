"""The app's own keys: everywhere (quit, help, pause, interval, mute, theme, record), in a replay, in the demo."""

from __future__ import annotations

from textual.binding import Binding

PRESENT = Binding(
    "P",
    "demo('toggle_present')",
    "Presenter",
    id="demo-present",
    tooltip="Demo: presenter mode on or off (only the simulated array, what md just did in words, one key per step)",
)
DEMO_BINDINGS = [
    Binding(
        "z",
        "demo('reset')",
        "Reset demo",
        id="demo-reset",
        tooltip="Demo: back to the start (a whole simulated array, the recording from its start)",
    ),
    Binding(
        "left_square_bracket",
        "demo_speed(-1)",
        "Slower rebuild",
        id="demo-rebuild-slower",
        tooltip="Demo: lower the simulated array's sync speed limit (its ETA grows)",
    ),
    Binding(
        "right_square_bracket",
        "demo_speed(1)",
        "Faster rebuild",
        id="demo-rebuild-faster",
        tooltip="Demo: raise the simulated array's sync speed limit (its ETA shrinks)",
    ),
    PRESENT,
]
"""Shown only with --demo (the app's check_action hides them elsewhere)."""
DEMO_VERBS = frozenset({"reset", "toggle_present", "change_speed"})
"""What ``demo(verb)`` keys ask of the app's demo stage (its methods of these names); ``demo_speed`` steps the speed."""

APP_BINDINGS: list[Binding] = [
    Binding("q", "quit", "Quit", id="quit", tooltip="Leave raidtop"),
    Binding("question_mark,f1", "help", "Help", id="help", tooltip="List every key"),
    Binding("p", "toggle_pause", "Pause", id="pause", tooltip="Stop or resume sampling"),
    # + and - change the interval (as in btop): named after it, not after a speed they make the opposite of.
    Binding(
        "plus,equals_sign",
        "interval(1)",
        "Interval +",
        id="interval-up",
        tooltip="Sample less often (longer interval)",
    ),
    Binding(
        "minus,underscore",
        "interval(-1)",
        "Interval -",
        id="interval-down",
        tooltip="Sample more often (shorter interval)",
    ),
    Binding(
        "M",
        "toggle_mute",
        "Mute notices",
        show=False,
        id="mute-notices",
        tooltip="Stop or resume md event pop-ups (e keeps them all)",
    ),
    Binding("T", "next_theme", "Theme", show=False, id="next-theme", tooltip="Switch to the next raidtop theme"),
    Binding(
        "R",
        "toggle_recording",
        "Record",
        show=False,
        id="record",
        tooltip="Start or stop recording what raidtop reads (for --replay)",
    ),
    Binding("full_stop", "replay_step(1)", "Step", id="replay-step", tooltip="Replay: show the next sample"),
    Binding("comma", "replay_step(-1)", "Back", id="replay-back", tooltip="Replay: show the previous sample"),
    Binding(
        "greater_than_sign",
        "replay_speed(1)",
        "Faster",
        id="replay-faster",
        tooltip="Replay: play faster (up to 60×)",
    ),
    Binding(
        "less_than_sign",
        "replay_speed(-1)",
        "Slower",
        id="replay-slower",
        tooltip="Replay: play slower (down to 1×)",
    ),
    Binding("j", "replay_jump", "Jump", id="replay-jump", tooltip="Replay: jump to a time (+30s, -2m, 50%, 14:05)"),
    *DEMO_BINDINGS,
]
"""Every key the app itself answers, in footer and help order."""

REPLAY_ACTIONS = frozenset({"replay_step", "replay_speed", "replay_jump"})
"""Shown only with --replay."""
