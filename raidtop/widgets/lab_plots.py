"""The plot of a lab experiment: a study's levels side by side, a trade-off curve, bitmap resync bars or sweep lines.

Drawn with plotext (pure: no I/O) into a Rich ``Text``, like the fio plot.
The widget takes plain series (label, xs, ys) so it needs nothing from the
actions layer; the screen turns an experiment's rows into series.
"""

from __future__ import annotations

from collections.abc import Sequence

import plotext as plt
from rich.text import Text
from textual.color import Color
from textual.widgets import Static

from raidtop.model.frozen import frozen_dataclass
from raidtop.untrusted import plain

RGB = tuple[int, int, int]


@frozen_dataclass
class Series:
    """One line (or set of points) of a plot."""

    label: str
    xs: tuple[float, ...]
    ys: tuple[float, ...]
    names: tuple[str, ...] = ()
    """A short name per point, written next to it (the trade-off's limits)."""


@frozen_dataclass
class PlotSpec:
    """What to draw: the series, the axes' titles, and points or bars."""

    series: tuple[Series, ...]
    xlabel: str
    ylabel: str
    kind: str = "scatter"
    """``scatter`` (points joined in order), ``bar`` (one bar per x label), ``grouped`` (the series' bars
    side by side per name of the first series: a study's levels) or ``empty``."""
    message: str = ""
    """What to say instead of a plot (``empty``)."""


def experiment_plot(spec: PlotSpec, width: int, height: int, colours: Sequence[RGB]) -> Text:
    """``spec`` drawn at ``width`` × ``height`` in ``colours`` (one per series, reused in turn)."""
    if spec.kind == "empty" or not any(s.xs for s in spec.series):
        return Text(plain(spec.message or "nothing to plot"), style="italic")
    plt.clear_figure()
    plt.plotsize(max(30, width), max(6, height))
    plt.theme("clear")
    plt.frame(False)
    if spec.kind == "grouped":
        plt.multiple_bar(
            [plain(n) for n in spec.series[0].names],
            [list(s.ys) for s in spec.series],
            labels=[plain(s.label) for s in spec.series],
            color=[colours[i % len(colours)] for i in range(len(spec.series))],
        )
    for index, series in enumerate(spec.series if spec.kind != "grouped" else ()):
        colour = colours[index % len(colours)]
        label = plain(series.label)
        if spec.kind == "bar":
            plt.bar([plain(n) for n in series.names], list(series.ys), label=label, color=colour, width=0.4)
        else:
            plt.plot(list(series.xs), list(series.ys), label=label, color=colour, marker="braille")
            plt.scatter(list(series.xs), list(series.ys), color=colour, marker="●")
            for x, y, name in zip(series.xs, series.ys, series.names):
                plt.text(plain(name), x, y, color=colour)
    plt.xlabel(plain(spec.xlabel))
    plt.ylabel(plain(spec.ylabel))
    return Text.from_ansi(plt.build())


class ExperimentPlot(Static):
    """Shows :func:`experiment_plot` of the spec it is given, in the current theme's colours."""

    DEFAULT_CSS = "ExperimentPlot { height: 1fr; min-height: 8; }"

    def show(self, spec: PlotSpec) -> None:
        """Redraw ``spec`` at the widget's size."""
        theme = self.app.current_theme
        colours = [
            Color.parse(c).rgb
            for c in (
                theme.primary,
                theme.accent or theme.secondary or theme.primary,
                theme.warning or theme.primary,
                theme.success or theme.primary,
            )
        ]
        width, height = self.size
        self.update(experiment_plot(spec, width or 60, height or 12, colours))
