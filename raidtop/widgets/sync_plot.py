"""The array detail's sync plot: speed and progress of a resync/rebuild over the session, drawn with plotext."""

from __future__ import annotations

import plotext as plt
from rich.color import Color as RichColor
from rich.style import Style as RichStyle
from rich.text import Text

from raidtop.live.history import SyncPoint
from raidtop.model.md import MdEvent


def sync_plot(
    points: list[SyncPoint],
    width: int,
    height: int,
    speed_rgb: tuple,
    progress_rgb: tuple,
    events: list[MdEvent] | None = None,
    marker_rgb: tuple = (200, 80, 80),
) -> Text:
    """Sync speed (MiB/s, left axis) and progress (%, right axis) over the session.

    Events (a failure, an added disk, a rebuild milestone) are vertical lines,
    so cause and effect sit on one time axis.
    """
    plt.clear_figure()
    plt.theme("clear")
    plt.frame(False)
    running = [p for p in points if p.percent is not None]
    if len(running) < 2:
        return Text("no sync has run while raidtop watched this array", style="italic")
    start = running[0].time
    xs = [p.time - start for p in running]
    speeds = [(p.speed_kib_s or 0) / 1024 for p in running]
    percents = [p.percent for p in running if p.percent is not None]  # all of them: running has a percent
    # Our own legend line and axis labels: plotext's legend marks each series'
    # side with "L"/"⅃" glyphs, and its right-axis labels were cut to "88.".
    plt.plotsize(max(20, width), max(6, height - 1))
    plt.plot(xs, speeds, color=speed_rgb, marker="braille")
    plt.plot(xs, percents, color=progress_rgb, yside="right", marker="braille")
    for values, unit, side in ((speeds, "", "left"), (percents, "%", "right")):
        ticks, labels = _axis(values, unit)
        # plotext cuts the last character of right-side labels: give it a space to cut.
        plt.yticks(ticks, [label + " " if side == "right" else label for label in labels], yside=side)
    for event in events or ():
        at = event.time - start
        if xs[0] <= at <= xs[-1] and not event.event.startswith("Rebuild"):
            plt.vline(at, color=marker_rgb)
    plt.xlabel("seconds  (| marks an md event)" if events else "seconds")
    # A Style object, not "rgb(78, 161, 211)": Rich splits a style string at its spaces.
    legend = Text.assemble(
        ("━ speed MiB/s (left axis)", RichStyle(color=RichColor.from_rgb(*speed_rgb))),
        "   ",
        ("━ progress % (right axis)", RichStyle(color=RichColor.from_rgb(*progress_rgb))),
    )
    return Text("\n").join([legend, Text.from_ansi(plt.build())])


def _axis(values: list[float], unit: str) -> tuple[list[float], list[str]]:
    """Five evenly spaced ticks over ``values`` with labels of at most six characters."""
    low, high = min(values), max(values)
    if high - low < 1e-9:
        high = low + 1
    ticks = [low + (high - low) * i / 4 for i in range(5)]
    decimals = 0 if high - low >= 10 else 1
    return ticks, [f"{tick:.{decimals}f}{unit}" for tick in ticks]
