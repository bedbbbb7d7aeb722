"""The fleet screen: worst first, Enter drills into a host, problems in words, untrusted names as text."""

from __future__ import annotations

import re
import threading

from raidtop.fleet.model import FleetArray, FleetHost, FleetMember, FleetReading
from raidtop.app.fleet_app import FleetApp
from raidtop.widgets.fleet_table import FleetTable
from tests.fleet.fleet_data import StaticSource, sample_fleet
from tests.hostile import terminal_bytes


def painted(app) -> str:
    """The painted screen without styling: what a reader sees."""
    return re.sub(r"\x1b\[[0-9;:]*[A-Za-z]", "", terminal_bytes(app).decode())


def cells(table: FleetTable) -> list[list[str]]:
    return [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]


async def test_worst_first_and_enter_opens_a_host() -> None:
    app = FleetApp(StaticSource(sample_fleet()), "test", interval_s=60)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        await pilot.pause(0.3)
        table = app.screen.query_one(FleetTable)
        rows = cells(table)
        assert rows[0][0] == "web3:10719" and rows[0][3] == "unreadable" and "exporter down" in rows[0][5]
        assert rows[1][:4] == ["store7:10719", "md5", "raid5", "degraded"]
        rebuild = next(r for r in rows if r[0] == "db1:10719")
        assert rebuild[3] == "recovering" and "%" in rebuild[5] and rebuild[6] and rebuild[7]
        table.move_cursor(row=next(i for i, r in enumerate(rows) if r[0] == "db1:10719"))
        await pilot.press("enter")
        await pilot.pause()
        members = cells(app.screen.query_one("#host-members", FleetTable))
        assert {r[1]: r[2] for r in members} == {"loop0": "in_sync", "loop3": "rebuilding", "loop2": "in_sync"}
        await pilot.press("escape")
        assert app.screen.query_one(FleetTable).id == "fleet-table"


async def test_nothing_readable_is_said_in_words() -> None:
    reading = FleetReading(problem="Prometheus at http://x:9090 is unreachable: [Errno 111] Connection refused")
    app = FleetApp(StaticSource(reading), "http://x:9090", interval_s=60)
    async with app.run_test(size=(100, 20)) as pilot:
        await pilot.pause(0.3)
        status = str(app.screen.query_one("#fleet-status").render())
        assert "is unreachable" in status and app.screen.query_one(FleetTable).row_count == 0


async def test_names_from_hosts_are_shown_as_text_never_markup() -> None:
    hostile = "[b]evil[/b]\x1b[2J"
    host = FleetHost(hostile, (FleetArray("md0", "clean", "raid1", 2, 0, members=(FleetMember("[red]x", "in_sync"),)),))
    app = FleetApp(StaticSource(FleetReading(hosts=(host,))), "t", interval_s=60)
    async with app.run_test(size=(100, 20)) as pilot:
        await pilot.pause(0.3)
        shown = cells(app.screen.query_one(FleetTable))[0][0]
        assert shown.startswith("[b]evil[/b]") and "\x1b" not in shown


class HeldSource:
    """Answers only once released, as a slow Prometheus or ssh does on the first refresh."""

    def __init__(self, reading: FleetReading) -> None:
        self.reading = reading
        self.released = threading.Event()

    def read(self) -> FleetReading:
        self.released.wait(10)
        return self.reading


async def test_the_first_frame_with_data_shows_every_cell_whole() -> None:
    # Columns used to keep the width of their labels until the second refresh: `127.  md6 raid5 recov 2/3`.
    rebuilding = FleetArray("md6", "recovering", "raid5", 3, 1, "recover", 4.0e9, 1.0e10, 1.1e6, 5400.0)
    hosts = (
        FleetHost("127.0.0.1:10719", (rebuilding,)),
        FleetHost("storage-node-07.example.net:10719", (FleetArray("md127", "degraded", "raid6", 8, 1),)),
    )
    source = HeldSource(FleetReading(hosts=hosts, time=1_600_000_000.0))
    app = FleetApp(source, "http://prometheus:9090", interval_s=60)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        before = painted(app)
        assert "waiting for the first answer" in before
        assert "Host" not in before, "no table is drawn before the first answer"
        source.released.set()
        for _ in range(50):
            await pilot.pause(0.05)
            if app.reading is not None:
                break
        await pilot.pause()
        lines = painted(app).splitlines()
        first = next(line for line in lines if "md6" in line).split()
        second = next(line for line in lines if "md127" in line).split()
        assert first[:5] == ["127.0.0.1:10719", "md6", "raid5", "recovering", "2/3"]
        assert second[:5] == ["storage-node-07.example.net:10719", "md127", "raid6", "degraded", "7/8"]


async def test_a_long_reason_for_an_unreadable_host_leaves_alerts_on_a_120_column_screen() -> None:
    reason = "cannot parse http://web9.example.internal:10719/metrics: line 7 is not a sample, it is a comment"
    reading = sample_fleet()
    hosts = (FleetHost("web9:10719", problem=reason), *reading.hosts)
    app = FleetApp(StaticSource(FleetReading(hosts=hosts, time=reading.time)), "test", interval_s=60)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        await pilot.pause(0.3)
        table = app.screen.query_one(FleetTable)
        shown = cells(table)[0][5]
        assert shown.endswith("…") and len(shown) <= 32 and reason.startswith(shown[:-1])
        for _ in range(100):  # a bounded wait for the table's first paint, not a timing assertion
            if "Alerts firing" in painted(app):
                break
            await pilot.pause(0.05)
        assert "Alerts firing" in painted(app)
        await pilot.press("enter")
        await pilot.pause()
        assert reason in painted(app).replace("\n", "")
