"""The fio progress plot: throughput over latency, one point per second of a run.

Drawn with plotext (pure: no I/O) into a Rich ``Text``; the widget only
picks the theme's colours and its own size. It takes any points that have
the attributes of :class:`ProgressSample` (``ProgressPoint`` from the fio
process module has them) so that widgets need not import actions.
"""

from __future__ import annotations

from typing import Protocol
from collections.abc import Sequence

import plotext as plt
from rich.text import Text
from textual.color import Color
from textual.widgets import Static

RGB = tuple[int, int, int]


class ProgressSample(Protocol):
    """What the plot reads from one per-second point of a fio job."""

    @property
    def t_s(self) -> float: ...
    @property
    def iops(self) -> float: ...
    @property
    def mib_s(self) -> float: ...
    @property
    def read_lat_us(self) -> float | None: ...
    @property
    def write_lat_us(self) -> float | None: ...


def short_number(value: float) -> str:
    """An axis label of at most four characters: ``9.5``, ``617``, ``1.2k``, ``31k``, ``1.2M``."""
    for limit, scale, suffix in ((1e9, 1e6, "M"), (1e6, 1e3, "k")):
        if value >= limit / 1000:
            number = value / scale
            return f"{number:.1f}{suffix}" if number < 10 else f"{number:.0f}{suffix}"
    return f"{value:.1f}" if value < 10 else f"{value:.0f}"


def _ticks(values: list[float], count: int = 3) -> tuple[list[float], list[str]]:
    low, high = min(values), max(values)
    if high == low:
        return [low], [short_number(low)]
    ticks = [low + (high - low) * i / (count - 1) for i in range(count)]
    return ticks, [short_number(t) for t in ticks]


NO_RUN = "no run yet: pick a preset and press Enter"
"""What the plot says before any run."""


def progress_plot(
    points: Sequence[ProgressSample],
    width: int,
    height: int,
    colours: tuple[RGB, RGB, RGB],
    empty: str = NO_RUN,
) -> Text:
    """Throughput (IOPS on the left axis, MiB/s on the right) over read and write latency, per second.

    A job's block size is fixed, so IOPS and MiB/s trace the same line: one
    line, two scales. Two separate figures are stacked because plotext's
    subplots share one size setting and misplace axes at small heights. Tick
    labels are set here, short; the right-hand ones carry a trailing space
    because without a frame plotext starts them one column late and cuts
    their last character.
    """
    if len(points) < 2:
        return Text(
            "the plot starts after fio's second status report" if points else empty,
            style="italic",
        )
    iops_rgb, write_rgb, read_rgb = colours
    xs = [p.t_s for p in points]
    width = max(30, width)
    top_height = max(5, height * 3 // 5)
    iops = [p.iops for p in points]
    mb = [p.mib_s for p in points]
    plt.clear_figure()
    plt.plotsize(width, top_height)
    plt.theme("clear")
    plt.frame(False)
    plt.plot(xs, mb, color=iops_rgb, marker="braille", yside="right")
    plt.plot(xs, iops, label="IOPS (left) · MiB/s (right)", color=iops_rgb, marker="braille")
    ticks, labels = _ticks(iops)
    plt.yticks(ticks, [label.rjust(5) for label in labels], yside="left")
    ticks, labels = _ticks(mb)
    plt.yticks(ticks, [label + " " for label in labels], yside="right")
    plt.xticks([])
    top = plt.build()
    plt.clear_figure()
    plt.plotsize(width, max(4, height - top_height))
    plt.theme("clear")
    plt.frame(False)
    every: list[float] = []
    for name, rgb, attr in (("read", read_rgb, "read_lat_us"), ("write", write_rgb, "write_lat_us")):
        lat = [(p.t_s, getattr(p, attr) / 1000) for p in points if getattr(p, attr) is not None]
        if lat:
            plt.plot([t for t, _ in lat], [v for _, v in lat], label=f"{name} latency ms", color=rgb, marker="braille")
            every += [v for _, v in lat]
    if every:
        ticks, labels = _ticks(every, 2)
        plt.yticks(ticks, [label.rjust(5) for label in labels], yside="left")
    plt.xlabel("seconds")
    bottom = plt.build()
    return Text.from_ansi(top.rstrip("\n") + "\n" + bottom)


class FioProgressPlot(Static):
    """Shows :func:`progress_plot` of the points it is given, in the current theme's colours."""

    def show_points(self, points: Sequence[ProgressSample], empty: str = NO_RUN) -> None:
        """Redraw from ``points`` (a live run's so far, or a stored run's); ``empty`` is said when there are none."""
        theme = self.app.current_theme
        # Throughput in the primary colour; write and read latency in two others every theme defines.
        colours = (
            Color.parse(theme.primary).rgb,
            Color.parse(theme.accent or theme.secondary or theme.primary).rgb,
            Color.parse(theme.warning or theme.primary).rgb,
        )
        width, height = self.size
        self.update(progress_plot(points, width or 60, height or 10, colours, empty))
