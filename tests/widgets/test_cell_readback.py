"""Issue 23: no number is ever cut or glued — every table of every screen, read back cell by cell.

Each entry of :data:`SCREENS` opens one screen with long names and large
values; the test renders it at four terminal sizes and, for every table on
screen, splits each painted line on the table's column boundaries and reads
each cell back against the text it was given:

* no two cells touch: a blank ends one or starts the next;
* a cell cut by the window's edge (a table scrolling sideways) is blank;
* a cell reads exactly its text, or, where that does not fit, its text cut
  with ``…`` (a prefix of it), or — for a number — a shorter form of the
  same number: equal to it at the precision shown (``21.3k`` for 21304).

The oracle parses numbers itself; it never calls the table's fitting code.
A new table is covered by adding one entry to SCREENS (cell_readback_screens.py);
the oracle and the table readers are in cell_oracle.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.widgets.cell_oracle import check_screen, reads_back
from tests.widgets.cell_readback_screens import SCREENS

SIZES = ((80, 24), (100, 30), (120, 40), (200, 60))


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
@pytest.mark.parametrize("case", list(SCREENS))
async def test_every_cell_reads_back(case: str, size: tuple[int, int], tmp_path: Path, monkeypatch):
    for kind in ("DATA", "CONFIG", "STATE"):
        monkeypatch.setenv(f"XDG_{kind}_HOME", str(tmp_path / kind.lower()))
    make_app, prepare = SCREENS[case]
    app = make_app(tmp_path)
    async with app.run_test(size=size) as pilot:
        await prepare(pilot)
        await pilot.pause()
        tables, faults = check_screen(app)
    assert tables, f"{case}: no table on screen"
    assert not faults, "\n".join(faults[:20])


@pytest.mark.parametrize(
    ("given", "shown", "ok"),
    [
        ("21304", "21304", True),
        ("21304", "21.3k", True),
        ("21304", "21k", True),
        ("21304", "213", False),
        ("021304", "21k", True),
        ("8", "08", False),
        ("60000.00", "60000.0", True),
        ("60000.00", "6000", False),
        ("1279K/s", "1.2M/s", True),
        ("1279K/s", "1279", False),
        ("mq-deadline", "mq-dead…", True),
        ("mq-deadline", "mq-deadli", False),
        ("4294967295", "4.3G", True),
        ("4294967295", "4.2G", False),
        ("2576980992 B", "2.4 GiB", True),
        ("2576980992 B", "2576980992", False),
        ("21304", "…", False),
    ],
)
def test_the_oracle_tells_a_shorter_number_from_a_cut_one(given: str, shown: str, ok: bool):
    assert reads_back(given, shown, 10) is ok
