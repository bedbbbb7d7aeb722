"""``raidtop watch``: the arrays' state and rebuild progress in a few lines of the terminal, updated live.

What ``watch cat /proc/mdstat`` is used for, said as the dashboard's Arrays
panel says it (the same rows: level, state, [n/m], [UU_], sync bar, speed,
ETA, notes), drawn inline under the shell prompt by Textual's inline mode.
``q`` or Ctrl+C ends it; its last lines stay on the terminal and the prompt
comes back below them. SIGHUP (the SSH session dropped) and SIGTERM end it
as ``q`` does.
"""

from __future__ import annotations

import asyncio
import os
import socket
import time
from typing import TYPE_CHECKING, ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.css.query import NoMatches

from raidtop.app.hangup import catch_exit_signals, leave_on_signal
from raidtop.app.messages import SamplingFailed, SnapshotReady
from raidtop.app.sampling import Sampling, sampler_for
from raidtop.app.terminal_app import TerminalApp
from raidtop.app.theme_choice import register_themes
from raidtop.config import Config
from raidtop.live.replay_position import ReplayPosition
from raidtop.live.state import LiveState
from raidtop.model.snapshot import Snapshot
from raidtop.model.units import counted
from raidtop.untrusted import plain
from raidtop.widgets.array_rows import MARKS_WIDTH, array_columns, array_row, marks_of
from raidtop.widgets.shown_text import PlainStatic
from raidtop.widgets.text_table import Column, TextTable

if TYPE_CHECKING:  # read only for --replay
    from raidtop.app.replay_player import ReplayPlayer
    from raidtop.collect.recording.read import Recording

NO_MD = "no md arrays on this machine (no /proc/mdstat: the md driver is not loaded) and no LVM RAID"


class WatchApp(TerminalApp[None]):
    """The arrays' rows, inline: a title line, the column header, one line per array.

    Args:
        config: the root, interval, theme and ``--replay`` recording to watch.
        recording: the parsed ``config.replay`` when the caller has read it already.
        md_loaded: the md driver is there; without it and without any array (LVM RAID) the watch
            says so and ends, instead of watching for arrays that cannot appear.
    """

    INLINE_PADDING = 0
    # Lines among the shell's: no frame above and below, the terminal's own background.
    CSS = """
    Screen:inline { border-top: none; border-bottom: none; background: ansi_default; scrollbar-size: 0 0; }
    #watch-title { height: auto; color: $text-muted; background: ansi_default; }
    #watch-arrays { height: auto; scrollbar-size: 0 0; background: ansi_default; }
    #watch-notes { height: auto; color: $text-warning; background: ansi_default; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(
            "q,ctrl+c", "quit", "Quit", id="watch-quit", tooltip="Stop watching; the last lines stay", priority=True
        )
    ]

    def __init__(self, config: Config, recording: Recording | None = None, *, md_loaded: bool = True) -> None:
        super().__init__()
        self.config = config
        self.md_loaded = md_loaded
        """The root has a /proc/mdstat (checked by the caller: no file I/O on the event loop)."""
        self.live = LiveState()
        """The latest snapshot (what the rows show) and its history."""
        self.exit_signal: int | None = None
        """The signal that ended the watch (SIGHUP, SIGTERM), or None."""
        sampler, _notes = sampler_for(Config(root=config.root, smart_interval=0.0, replay=config.replay), None)
        self.sampling = Sampling(self, sampler, config.interval, self.live, lambda _snapshot: None)
        self._player: ReplayPlayer | None = None
        if config.replay is not None:
            from raidtop.app.replay_player import ReplayPlayer
            from raidtop.collect.recording.replayer import load_for_replay
            from raidtop.presentation.judgement import judged_replayer

            loaded = recording if recording is not None else load_for_replay(config.replay)
            replayer = judged_replayer(loaded)
            self._player = ReplayPlayer(self, replayer, ReplayPosition(), self.sampling.wake, lambda _message: None)
        # A bad theme falls back to the default; the title line says so (a toast has no room inline).
        self._theme_problems = register_themes(self, config.theme)

    def compose(self) -> ComposeResult:
        yield PlainStatic(self._title(None), id="watch-title")
        table = TextTable(_columns(self._width())[0], id="watch-arrays", show_cursor=False)
        table.can_focus = False
        table.placeholder = "waiting for the first sample…"
        yield table
        yield PlainStatic("", id="watch-notes")

    def on_mount(self) -> None:
        self._release_signals = catch_exit_signals(asyncio.get_running_loop(), self._end_on_signal)
        if self._player is not None:
            self._player.start()
        else:
            self.sampling.start()

    def on_unmount(self) -> None:
        release = getattr(self, "_release_signals", None)
        if release is not None:
            release()
        self.sampling.stop()

    def _end_on_signal(self, signum: int) -> None:
        if self.exit_signal is None:
            self.exit_signal = signum
            leave_on_signal(self, signum)

    @on(SamplingFailed)
    def _sampling_failed(self, message: SamplingFailed) -> None:
        self.query_one("#watch-title", PlainStatic).update(plain(message.text))

    @on(SnapshotReady)
    def _show(self, message: SnapshotReady) -> None:
        snap = message.snapshot
        self.live.add(snap)
        if not snap.arrays and self._player is None and not self.md_loaded:
            self.exit(return_code=0, message=f"raidtop watch: {NO_MD}")
            return
        try:
            self.show(snap)
        except NoMatches:
            # A snapshot that lands while the app shuts down (a replay at speed) finds no rows to fill.
            return

    def show(self, snap: Snapshot) -> None:
        """The title line and one row per array, in the columns the terminal's width holds."""
        columns, bar = _columns(self._width())
        table = self.query_one("#watch-arrays", TextTable)
        if columns != table.columns:
            table.set_columns(columns)
        disks = {d.name: d for d in snap.disks}
        alerts = snap.degraded_alerts
        marks = {a.name: marks_of(a, disks, snap) for a in snap.arrays}
        # Degraded arrays first: when the terminal holds fewer lines than there are arrays, the ones cut
        # off the bottom are healthy ones, and the title counts the degraded ones either way.
        arrays = sorted(snap.arrays, key=lambda a: a.name not in alerts)
        rows = [array_row(a, a.name in alerts, columns, bar, snap.time, marks[a.name]) for a in arrays]
        # The notes get lines of their own, whole: in a column they were cut ("degraded ≥…") at 80 columns.
        notes = [f"{name}: " + " · ".join(text for text, _ in shown) for name, shown in marks.items() if shown]
        self.query_one("#watch-notes", PlainStatic).update("\n".join(notes))
        waiting = "no md arrays yet (md is loaded): watching for one to appear"
        table.set_rows(rows, "the recording holds no md arrays" if self._player is not None else waiting)
        table.styles.height = max(1, len(rows)) + 1
        self.query_one("#watch-title", PlainStatic).update(self._title(snap))

    def _title(self, snap: Snapshot | None) -> str:
        where = socket.gethostname() if str(self.config.root) == "/" else f"root {os.path.abspath(self.config.root)}"
        if self._player is not None:
            where = f"replay of {self.config.replay}"
        when = time.strftime("%H:%M:%S", time.localtime(snap.time)) if snap is not None else "…"
        if snap is not None and snap.arrays:
            when += f" · {counted(len(snap.arrays), 'array')}"
            if snap.degraded_alerts:
                when += f", {len(snap.degraded_alerts)} degraded"
        problems = f" · {'; '.join(self._theme_problems)}" if self._theme_problems else ""
        return f"raidtop watch · {where} · every {self.config.interval:g} s · {when} · q quits{problems}"

    def _width(self) -> int:
        return max(40, self.size.width or 80)


def _columns(width: int) -> tuple[list[Column], int]:
    """The Arrays panel's columns for ``width`` cells, but for Notes (shown on lines of their own)."""
    columns, bar = array_columns(width + MARKS_WIDTH[0])
    return [c for c in columns if c.key != "marks"], bar
