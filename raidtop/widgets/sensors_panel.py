"""The Sensors panel: every hwmon temperature and fan, like ``sensors``."""

from __future__ import annotations

from textual.app import ComposeResult

from raidtop.presentation.format import DASH
from raidtop.model.snapshot import Sensor, Snapshot
from raidtop.widgets.panel import Panel
from raidtop.widgets.text_table import Column, Row, TextTable
from raidtop.model.units import counted

SENSOR_COLUMNS = [
    Column("chip", "Chip", 12, "left", min_width=10),
    Column("label", "Label", 12, "left", min_width=11),
    Column("value", "Value", 9),
    Column("limits", "max/crit", 9),
]
NO_SENSORS = "no sensors exposed on this machine"


def sensor_row(index: int, sensor: Sensor) -> Row:
    """One reading with units; past high or crit it takes the warning tones."""
    unit = "°C" if sensor.kind == "temp" else " RPM"
    value = (
        DASH
        if sensor.value is None
        else f"{sensor.value:.1f}{unit}"
        if sensor.kind == "temp"
        else f"{sensor.value:.0f}{unit}"
    )
    level = sensor.level
    tone = {"crit": "crit", "high": "warn"}.get(level)
    return Row(
        f"{sensor.chip}/{sensor.label}/{index}",
        (sensor.chip, sensor.label, value, _limits(sensor.high, sensor.crit)),
        (None, None, tone, "dim"),
    )


def _limits(high: float | None, crit: float | None) -> str:
    if high is None and crit is None:
        return ""
    return "/".join("" if v is None else f"{v:.0f}" for v in (high, crit))


class SensorsPanel(Panel):
    """Temperatures (CPU, NVMe composite, drivetemp) and fans."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.border_title = "Sensors"

    def compose(self) -> ComposeResult:
        table = TextTable(SENSOR_COLUMNS, id="sensor-table")
        table.placeholder = NO_SENSORS
        yield table

    def show(self, snap: Snapshot) -> None:
        """Render the snapshot's sensors, hottest first."""
        sensors = snap.sensors
        # One NVMe composite per drive: thousands of readings on a big server,
        # so rows are made only for the lines on screen.
        keys = [f"{s.chip}/{s.label}/{i}" for i, s in enumerate(sensors)]
        self.query_one(TextTable).set_row_source(keys, lambda i: sensor_row(i, sensors[i]), NO_SENSORS)
        hot = sum(1 for s in sensors if s.level != "ok")
        self.set_subtitle(counted(len(keys), "reading") + (f" · {hot} past limit" if hot else "") if keys else "")
