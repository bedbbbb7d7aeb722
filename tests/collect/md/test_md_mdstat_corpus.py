"""Every /proc/mdstat sample in tests/data/md/mdstat, every JSON field checked.

The expected values below were read off each file by hand (see
tests/data/md/PROVENANCE.md for where each file comes from), applying the
rules the parser documents (the tables are in mdstat_expected_*.py, one per source):

* mdstat shows no mismatch_cnt, sync_speed_min/max or stripe_cache_size, no
  member slot (``[N]`` is a descriptor number) and no error counts: ``None``.
* An unflagged member is ``in_sync`` only when the count of ``U`` equals the
  count of unflagged members (or the level has no ``[UU]``); otherwise its
  roles are unknown (``[]``).
* No ``super`` on a status line means 0.90 metadata; an inactive array has no
  usable size; ``bitmap`` is ``none`` for an active array whose entry is
  complete and shows no bitmap line.
* raid0/linear print no ``[n/m]``; raid_disks is the number of members.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from raidtop.collect.md.mdstat import parse_mdstat
from raidtop.output.md_json import array_to_json
from tests.collect.md.mdstat_expected_libstorage_parser_cases import LIBSTORAGE_PARSER_CASES
from tests.collect.md.mdstat_expected_libstorage_systems import LIBSTORAGE_SYSTEMS
from tests.collect.md.mdstat_expected_node_exporter import INITIAL_2015, KERNEL_TABS_2016, TABS_2016
from tests.collect.md.mdstat_expected_procfs import NODE_EXPORTER, PROCFS
from tests.collect.md.mdstat_expected_pymdstat_01_09 import PYMDSTAT_01_09
from tests.collect.md.mdstat_expected_pymdstat_10_16 import PYMDSTAT_10_16

DATA = Path(__file__).resolve().parents[2] / "data" / "md" / "mdstat"


# One table per source; each holds the expected JSON of that source's samples.
EXPECTED = {
    "prometheus-procfs__proc_mdstat": PROCFS,
    "prometheus-node_exporter__proc_mdstat": NODE_EXPORTER,
    "prometheus-node_exporter__mdstat_initial_2015": INITIAL_2015,
    "prometheus-node_exporter__proc_mdstat_tabs_2016": TABS_2016,
    "prometheus-node_exporter__proc_mdstat_kernel_tabs_2016-09": KERNEL_TABS_2016,
    **PYMDSTAT_01_09,
    **PYMDSTAT_10_16,
    **LIBSTORAGE_SYSTEMS,
    **LIBSTORAGE_PARSER_CASES,
}


def test_every_sample_has_expectations():
    assert sorted(EXPECTED) == sorted(p.name for p in DATA.iterdir())
    assert len(EXPECTED) >= 30


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_json_field(name):
    arrays, _notes = parse_mdstat((DATA / name).read_text())
    assert [array_to_json(a) for a in arrays] == EXPECTED[name]


# Fields outside the JSON schema, checked where the corpus shows them.


def _by_name(name):
    arrays, notes = parse_mdstat((DATA / name).read_text())
    return {a.name: a for a in arrays}, notes


def test_read_only_and_auto_read_only():
    arrays, _ = _by_name("prometheus-procfs__proc_mdstat")
    assert (arrays["md101"].read_only, arrays["md101"].auto_read_only) == (True, False)
    assert (arrays["md11"].read_only, arrays["md11"].auto_read_only) == (False, True)
    assert (arrays["md0"].read_only, arrays["md0"].auto_read_only) == (False, False)
    ddf, _ = _by_name("libstorage-ng__md-ddf1_proc_mdstat")
    assert ddf["md125"].auto_read_only


def test_containers_and_their_members():
    arrays, _ = _by_name("libstorage-ng__md-imsm1_proc_mdstat")
    assert arrays["md127"].is_container
    assert (arrays["md125"].container, arrays["md125"].container_member) == ("md127", "1")
    assert (arrays["md126"].container, arrays["md126"].container_member) == ("md127", "0")
    assert arrays["md127"].container is None


def test_status_and_counts_strings():
    arrays, _ = _by_name("prometheus-procfs__proc_mdstat")
    assert arrays["md7"].status_string == "[U_UU]"
    assert arrays["md7"].counts_string == "[4/3]"
    assert arrays["md42"].status_string == "[UU_]"
    assert arrays["md10"].status_string is None  # raid0 prints none
    assert arrays["md10"].counts_string is None


def test_descriptor_numbers_are_kept_but_not_used_as_slots():
    arrays, _ = _by_name("prometheus-procfs__proc_mdstat")
    md3 = arrays["md3"]
    assert [(m.name, m.number, m.slot) for m in md3.members[:2]] == [("sda1", 8, None), ("sdh1", 7, None)]


def test_ambiguous_rebuild_member_is_noted():
    _, notes = _by_name("nicolargo-pymdstat__mdstat.05")
    assert any("md127" in n and "in sync" in n for n in notes)


def test_clean_kernel_files_give_no_notes():
    for name in (
        "prometheus-procfs__proc_mdstat",
        "libstorage-ng__md-ddf1_proc_mdstat",
        "nicolargo-pymdstat__mdstat.01",
    ):
        _, notes = _by_name(name)
        assert notes == [], name
