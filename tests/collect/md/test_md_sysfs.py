"""sysfs md reading on the prometheus-procfs corpus tree, alone and with its /proc/mdstat.

The tree is the corpus's, rebuilt with its rdN symlinks (tests/data/md/PROVENANCE.md).
Trees written in a 6.1 kernel's formats are read in test_md_read.py.
"""

from __future__ import annotations

from raidtop.collect.md.read import read_md
from raidtop.collect.md.sysfs import read_md_sysfs
from raidtop.output.md_json import array_to_json
from tests.collect.md.md_sysfs_trees import (
    DATA,
    IN,
    array,
    member,
)

PROCFS_ROOT = DATA / "roots" / "prometheus-procfs"


# Read off tests/data/md/roots/prometheus-procfs/sys/block/*/md by hand. The tree
# has no size, layout, bitmap/, slot or errors files: slots come from rdN links.
PROCFS_SYSFS = [
    array(
        "md0",
        "raid0",
        "clean",
        "ok",
        2,
        None,
        None,
        512,
        None,
        "1.2",
        None,
        [member("sdg", 0, IN), member("sdh", 1, IN)],
        None,
        None,
        None,
        None,
        None,
    ),
    array(
        "md1",
        "raid1",
        "clean",
        "ok",
        2,
        0,
        None,
        None,
        None,
        "1.2",
        None,
        [member("sdi", 0, IN), member("sdj", 1, IN)],
        None,
        None,
        None,
        None,
        None,
    ),
    array(
        "md4",
        "raid4",
        "clean",
        "ok",
        3,
        0,
        None,
        512,
        None,
        "1.2",
        None,
        [member("sdk", 0, IN), member("sdl", 1, IN), member("sdm", 2, IN)],
        None,
        None,
        None,
        None,
        None,
    ),
    array(
        "md5",
        "raid5",
        "clean",
        "degraded",
        3,
        1,
        None,
        512,
        None,
        "1.2",
        None,
        [member("sdn", 0, IN), member("sdo", 1, IN), member("sdp", 2, ["faulty"]), member("sdaa", None, ["spare"])],
        None,
        None,
        None,
        None,
        None,
    ),
    # sync_completed "1569888 / 2093056" sectors: 784944 of 1046528 KiB, 75.0 %.
    array(
        "md6",
        "raid6",
        "active",
        "degraded",
        4,
        1,
        None,
        512,
        None,
        "1.2",
        None,
        [member("sdq", 0, IN), member("sdr", 1, IN), member("sds", 2, IN), member("sdt", 3, ["spare"])],
        {
            "action": "recover",
            "percent": 75.0,
            "done_kib": 784944,
            "total_kib": 1046528,
            "speed_kib_s": None,
            "eta_s_kernel": None,
            "eta_s": None,
            "eta_basis": None,
            "rate_kib_s": None,
            "stalled": False,
        },
        None,
        None,
        None,
        None,
    ),
    array(
        "md7",
        "container",
        "inactive",
        "ok",
        None,
        None,
        None,
        None,
        None,
        "1.2",
        None,
        [],
        None,
        None,
        None,
        None,
        None,
    ),
    # raid_disks "11 (10)": a reshape from 10 to 11 devices; no rdN links, so no slots.
    array(
        "md8",
        "raid5",
        "active",
        "ok",
        11,
        0,
        None,
        512,
        None,
        "1.2",
        None,
        [member("sdy", None, IN), member("sdz", None, IN)],
        {
            "action": "reshape",
            "percent": None,
            "done_kib": None,
            "total_kib": None,
            "speed_kib_s": None,
            "eta_s_kernel": None,
            "eta_s": None,
            "eta_basis": None,
            "rate_kib_s": None,
            "stalled": False,
        },
        None,
        None,
        None,
        None,
    ),
    array(
        "md10",
        "raid10",
        "clean",
        "ok",
        4,
        0,
        None,
        512,
        None,
        "1.2",
        None,
        [member("sdu", 0, IN), member("sdv", 1, IN), member("sdw", 2, IN), member("sdx", 3, IN)],
        None,
        None,
        None,
        None,
        None,
    ),
]


def test_procfs_sysfs_tree_every_field():
    arrays, notes = read_md_sysfs(PROCFS_ROOT)
    assert [array_to_json(a) for a in arrays] == PROCFS_SYSFS
    assert notes == []
    by_name = {a.name: a for a in arrays}
    assert by_name["md5"].status_string == "[UU_]"
    assert by_name["md6"].status_string == "[UUU_]"
    assert by_name["md6"].counts_string == "[4/3]"
    assert by_name["md0"].uuid == "155f29ff-1716-4107-b362-52307ef86cac"
    assert all(a.source == "sysfs" for a in arrays)


def test_procfs_root_with_its_mdstat():
    """The fixture's sysfs and mdstat came from different systems; both are kept, sysfs first."""
    reading = read_md(PROCFS_ROOT)
    sources = {a.name: a.source for a in reading.arrays}
    for name in ("md0", "md4", "md6", "md7", "md8", "md10"):
        assert sources[name] == "sysfs"
        assert any(n.startswith(f"{name}: sysfs and /proc/mdstat describe different arrays") for n in reading.notes)
    # md1 and md5 exist only in sysfs, md42 and the rest only in mdstat.
    assert sources["md1"] == sources["md5"] == "sysfs"
    assert sources["md42"] == sources["md219"] == "mdstat"
    names = [a.name for a in reading.arrays]
    assert names[:4] == ["md0", "md00", "md1", "md3"]  # md2 before md10
    assert names.index("md10") < names.index("md11") < names.index("md42") < names.index("md101")
    assert reading.md_driver_present
