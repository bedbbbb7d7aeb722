"""Every /proc/mdstat sample in tests/data/md/mdstat, every JSON field checked.

The expected values below were read off each file by hand (see
tests/data/md/PROVENANCE.md for where each file comes from), applying the
rules the parser documents:

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

from raidtop.output.md_json import array_to_json
from raidtop.collect.md.mdstat import parse_mdstat

DATA = Path(__file__).resolve().parents[1] / "data" / "md" / "mdstat"


def member(name, *roles):
    """A member as mdstat shows it: no slot, no error count."""
    return {"name": name, "slot": None, "roles": list(roles), "errors": None}


def sync(action, percent, done, total, speed, eta_kernel):
    """A sync line. ``percent`` is the kernel's printed one; raidtop computes it from the
    counts (the printed per-mille is truncated twice). raidtop's own ETA and rate
    come from the tracker, not the parser, so they are None here."""
    exact = round(done * 100 / total, 2) if done is not None and total else percent
    assert percent is None or abs(exact - percent) < 1.6  # the kernel's rounding, no more
    return {
        "action": action,
        "percent": exact,
        "done_kib": done,
        "total_kib": total,
        "speed_kib_s": speed,
        "eta_s_kernel": eta_kernel,
        "eta_s": None,
        "eta_basis": None,
        "rate_kib_s": None,
        "stalled": False,
    }


WAIT_DELAYED = sync("delayed", None, None, None, None, None)
WAIT_PENDING = sync("pending", None, None, None, None, None)


def array(name, level, state, health, raid_disks, degraded, size_kib, chunk_kib, layout, metadata, bitmap, members, sync):
    """Every schema field; the four sysfs-only ones are None because mdstat never shows them."""
    return {
        "name": name,
        "level": level,
        "state": state,
        "health": health,
        "raid_disks": raid_disks,
        "degraded": degraded,
        "size_kib": size_kib,
        "chunk_kib": chunk_kib,
        "layout": layout,
        "metadata": metadata,
        "bitmap": bitmap,
        "members": members,
        "sync": sync,
        "mismatch_cnt": None,
        "sync_speed_min": None,
        "sync_speed_max": None,
        "stripe_cache_size": None,
    }


IN = "in_sync"

# ---------------------------------------------------------------- prometheus fixtures

PROCFS = [
    array("md3", "raid6", "active", "ok", 8, 0, 5853468288, 64, "left-symmetric", "1.2", "none",
          [member("sda1", IN), member("sdh1", IN), member("sdg1", IN), member("sdf1", IN), member("sde1", IN),
           member("sdd1", IN), member("sdc1", IN), member("sdb1", IN), member("sdd1", "spare"),
           member("sdd2", "spare")], None),
    array("md127", "raid1", "active", "ok", 2, 0, 312319552, None, None, "0.90", "none",
          [member("sdi2", IN), member("sdj2", IN)], None),
    array("md0", "raid1", "active", "ok", 2, 0, 248896, None, None, "0.90", "none",
          [member("sdi1", IN), member("sdj1", IN)], None),
    array("md4", "raid1", "inactive", "inactive", 2, 0, None, None, None, "0.90", None,
          [member("sda3", "faulty"), member("sdb3", "spare")], None),
    array("md6", "raid1", "active", "degraded", 2, 1, 195310144, None, None, "0.90", "none",
          [member("sdb2", "faulty"), member("sdc", "spare"), member("sda2", IN)],
          sync("recover", 8.5, 16775552, 195310144, 259783, 1020.0)),
    array("md8", "raid1", "active", "ok", 2, 0, 195310144, None, None, "0.90", "none",
          [member("sdb1", IN), member("sda1", IN), member("sdc", "spare"), member("sde", "spare")],
          sync("resync", 8.5, 16775552, 195310144, 259783, 1020.0)),
    array("md201", "raid1", "active", "ok", 2, 0, 1993728, None, None, "1.2", "none",
          [member("sda3", IN), member("sdb3", IN)],
          sync("check", 5.7, 114176, 1993728, 114176, 12.0)),
    array("md7", "raid6", "active", "degraded", 4, 1, 7813735424, 512, "left-symmetric", "1.2", "internal",
          [member("sdb1", IN), member("sde1", IN), member("sdd1", IN), member("sdc1", "faulty")], None),
    array("md9", "raid1", "active", "ok", 4, 0, 523968, None, None, "1.2", "none",
          [member("sdc2", IN), member("sdd2", IN), member("sdb2", IN), member("sda2", IN),
           member("sde", "faulty"), member("sdf", "faulty"), member("sdg", "spare")], WAIT_DELAYED),
    array("md10", "raid0", "active", "ok", 2, None, 314159265, 64, None, "0.90", "none",
          [member("sda1", IN), member("sdb1", IN)], None),
    array("md11", "raid1", "active", "ok", 2, 0, 4190208, None, None, "1.2", "none",
          [member("sdb2", IN), member("sdc2", IN), member("sdc3", "faulty"), member("hda", "spare"),
           member("ssdc2", "spare")], WAIT_PENDING),
    array("md12", "raid0", "active", "ok", 2, None, 3886394368, 512, None, "1.2", "none",
          [member("sdc2", IN), member("sdd2", IN)], None),
    array("md126", "raid0", "active", "ok", 2, None, 1855870976, 128, None, "external:/md127/0", "none",
          [member("sdb", IN), member("sdc", IN)], None),
    array("md219", "container", "inactive", "ok", None, None, None, None, None, "external:imsm", None,
          [member("sdb", "spare"), member("sdc", "spare"), member("sda", "spare")], None),
    array("md00", "raid0", "active", "ok", 1, None, 4186624, 256, None, "1.2", "none",
          [member("xvdb", IN)], None),
    array("md120", "linear", "active", "ok", 2, None, 2095104, None, None, "1.2", "none",
          [member("sda1", IN), member("sdb1", IN)], None),
    array("md101", "raid0", "active", "ok", 3, None, 322560, 512, None, "1.2", "none",
          [member("sdb", IN), member("sdd", IN), member("sdc", IN)], None),
    array("md42", "raid5", "active", "degraded", 3, 1, 1953381440, 64, "left-symmetric", "1.2", "internal",
          [member("sda1", "spare"), member("sdd1", IN), member("sde1", IN)],
          sync("reshape", 56.1, 1096879076, 1953381440, 7640, 112086.0)),
]
# node_exporter's fixture is procfs's without the md42 reshape (diffed by hand).
NODE_EXPORTER = PROCFS[:-1]

# The older fixtures before (F)/(S) flags were added: the same arrays, fewer members.
_PLAIN_MD3 = array("md3", "raid6", "active", "ok", 8, 0, 5853468288, 64, "left-symmetric", "1.2", "none",
                   [member("sda1", IN), member("sdh1", IN), member("sdg1", IN), member("sdf1", IN),
                    member("sde1", IN), member("sdd1", IN), member("sdc1", IN), member("sdb1", IN)], None)
_PLAIN_MD4 = array("md4", "raid1", "inactive", "inactive", 2, 0, None, None, None, "0.90", None,
                   [member("sda3"), member("sdb3")], None)
# [2/1] [U_] with two unflagged members: mdstat cannot say which one is rebuilt onto.
_PLAIN_MD6 = array("md6", "raid1", "active", "degraded", 2, 1, 195310144, None, None, "0.90", "none",
                   [member("sdb2"), member("sda2")], sync("recover", 8.5, 16775552, 195310144, 259783, 1020.0))
_PLAIN_MD8 = array("md8", "raid1", "active", "ok", 2, 0, 195310144, None, None, "0.90", "none",
                   [member("sdb1", IN), member("sda1", IN)],
                   sync("resync", 8.5, 16775552, 195310144, 259783, 1020.0))
# [4/3] [U_UU] with four unflagged members: again ambiguous.
_PLAIN_MD7 = array("md7", "raid6", "active", "degraded", 4, 1, 7813735424, 512, "left-symmetric", "1.2", "internal",
                   [member("sdb1"), member("sde1"), member("sdd1"), member("sdc1")], None)
_PLAIN_MD9 = array("md9", "raid1", "active", "ok", 4, 0, 523968, None, None, "1.2", "none",
                   [member("sdc2", IN), member("sdd2", IN), member("sdb2", IN), member("sda2", IN)], WAIT_DELAYED)
_PLAIN_MD10 = array("md10", "raid0", "active", "ok", 2, None, 314159265, 64, None, "0.90", "none",
                    [member("sda1", IN), member("sdb1", IN)], None)
_PLAIN_MD11 = array("md11", "raid1", "active", "ok", 2, 0, 4190208, None, None, "1.2", "none",
                    [member("sdb2", IN), member("sdc2", IN)], WAIT_PENDING)
_MD127 = PROCFS[1]
_MD0 = PROCFS[2]

INITIAL_2015 = [_PLAIN_MD3, _MD127, _MD0, _PLAIN_MD4, _PLAIN_MD6, _PLAIN_MD8, _PLAIN_MD7]
TABS_2016 = INITIAL_2015 + [_PLAIN_MD9, _PLAIN_MD10]
KERNEL_TABS_2016 = TABS_2016 + [_PLAIN_MD11]

# ---------------------------------------------------------------- pymdstat samples

_LOOP_RAID4 = array("md127", "raid4", "active", "degraded", 4, 1, 10475520, 32, "parity-last", "1.2", "none",
                    [member("loop2"), member("loop1"), member("loop0")],
                    sync("reshape", 2.1, 115168, 5237760, 23033, 222.0))

PYMDSTAT = {
    "nicolargo-pymdstat__mdstat.01": [],
    "nicolargo-pymdstat__mdstat.02": [
        array("md_d0", "raid5", "active", "ok", 5, 0, 1250241792, 64, "left-symmetric", "1.2", "internal",
              [member("sde1", IN), member("sdf1", IN), member("sdb1", IN), member("sdd1", IN), member("sdc1", IN)],
              None),
    ],
    "nicolargo-pymdstat__mdstat.03": [
        array("md0", "raid5", "active", "degraded", 4, 1, 1465151808, 64, "left-symmetric", "0.90", "none",
              [member("sda1", IN), member("sdd1", IN), member("sdb1", IN)], None),
    ],
    "nicolargo-pymdstat__mdstat.04": [
        array("md1", "raid1", "active", "ok", 2, 0, 136448, None, None, "0.90", "none",
              [member("sdb2", IN), member("sda2", IN)], None),
        array("md2", "raid1", "active", "ok", 2, 0, 129596288, None, None, "0.90", "none",
              [member("sdb3", IN), member("sda3", IN)], None),
        array("md3", "raid5", "active", "ok", 10, 0, 1318680576, 1024, "left-symmetric", "0.90", "none",
              [member(f"sd{c}1", IN) for c in "lkjihgfedc"], None),
        array("md0", "raid1", "active", "ok", 2, 0, 16787776, None, None, "0.90", "none",
              [member("sdb1", IN), member("sda1", IN)], None),
    ],
    "nicolargo-pymdstat__mdstat.05": [
        array("md127", "raid5", "active", "degraded", 6, 1, 1464725760, 64, "left-symmetric", "0.90", "none",
              [member(f"sd{c}1") for c in "hgfedc"],
              sync("recover", 12.6, 37043392, 292945152, 33440, 7650.0)),
    ],
    "nicolargo-pymdstat__mdstat.06": [
        array("md0", "raid6", "active", "ok", 7, 0, 1225557760, 256, "left-symmetric", "0.90", "internal",
              [member(f"sd{c}1", IN) for c in "fedcba"] + [member("hdb1", IN)], None),
    ],
    "nicolargo-pymdstat__mdstat.07": [
        array("md1", "raid1", "active", "degraded", 6, 2, 488383936, None, None, "0.90", "none",
              [member("sde1", "faulty"), member("sdg1", IN), member("sdb1", IN), member("sdd1", IN),
               member("sdc1", IN)], None),
    ],
    "nicolargo-pymdstat__mdstat.08": [
        array("md0", "raid5", "inactive", "inactive", 4, 0, None, 128, "left-symmetric", "0.90", None,
              [member("sdd1"), member("sdc1"), member("sda1")], None),
    ],
    "nicolargo-pymdstat__mdstat.09": [
        array("md0", "raid1", "active", "ok", 2, 0, 3709312, None, None, "0.90", "none",
              [member("sdf1", IN), member("sde1", IN)], None),
        array("md1", "raid1", "active", "ok", 2, 0, 200704, None, None, "0.90", "none",
              [member("sdf2", IN), member("sde2", IN)], None),
        array("md2", None, "inactive", "inactive", None, None, None, None, None, "0.90", None,
              [member("sdb", "spare"), member("sdc", "spare"), member("sdd", "spare"), member("sda", "spare")],
              None),
    ],
    "nicolargo-pymdstat__mdstat.10": [
        array("md129", "raid1", "active", "ok", 2, 0, 15825920, None, None, "1.2", "none",
              [member("sda3", IN), member("sdd3", IN)], None),
        array("md128", "raid1", "active", "ok", 2, 0, 126887936, None, None, "1.2", "internal",
              [member("sda2", IN), member("sdd2", IN)], None),
        array("md125", "raid0", "active", "ok", 6, None, 2306837760, 128, None, "1.2", "none",
              [member(f"sd{c}", IN) for c in "gcfheb"], None),
        array("md126", "raid0", "active", "ok", 2, None, 999948288, 3072, None, "1.2", "none",
              [member("nvme0n1", IN), member("nvme1n1", IN)], None),
    ],
    "nicolargo-pymdstat__mdstat.11": [
        array("md127", None, "inactive", "inactive", None, None, None, None, None, "1.2", None,
              [member("sda"), member("sdb"), member("sdc", "spare")], None),
    ],
    "nicolargo-pymdstat__mdstat.12": [
        array("md127", "raid0", "active", "ok", 2, None, 10475520, 32, None, "1.2", "none",
              [member("loop1", IN), member("loop0", IN)], None),
    ],
    "nicolargo-pymdstat__mdstat.13": [_LOOP_RAID4],
    "nicolargo-pymdstat__mdstat.14": [
        array("md127", "raid0", "active", "ok", 2, None, 4188160, 256, None, "1.2", "none",
              [member("sda", IN), member("sdb", IN)], None),
    ],
    "nicolargo-pymdstat__mdstat.15": [
        array("md3", "raid6", "active", "ok", 8, 0, 17581481472, 64, "left-symmetric", "1.2", "none",
              [member("sdh6", IN)] + [member(f"sd{c}6", IN) for c in "agfedcb"], None),
        array("md2", "raid6", "active", "ok", 8, 0, 17552612736, 64, "left-symmetric", "1.2", "none",
              [member("sdh5", IN)] + [member(f"sd{c}5", IN) for c in "agfedcb"], None),
        array("md1", "raid1", "active", "ok", 8, 0, 2097088, None, None, "0.90", "none",
              [member("sdh2", IN)] + [member(f"sd{c}2", IN) for c in "abcdefg"], None),
        array("md0", "raid1", "active", "ok", 8, 0, 2490176, None, None, "0.90", "none",
              [member("sdh1", IN)] + [member(f"sd{c}1", IN) for c in "abcdefg"], None),
    ],
    "nicolargo-pymdstat__mdstat.16": [
        array("md1", "raid5", "active", "ok", 8, 0, 95705752576, 512, "left-symmetric", "1.2", "internal",
              [member(f"sd{c}", IN) for c in "dfbahceg"], None),
    ],
}

# ---------------------------------------------------------------- libstorage-ng samples

_DDF_MEMBERS = [member("sdb", "spare"), member("sdd", "spare"), member("sdc", "spare")]

LIBSTORAGE = {
    "libstorage-ng__md+lvm1_proc_mdstat": [
        array("md0", "raid1", "active", "ok", 2, 0, 29301632, None, None, "1.0", "internal",
              [member("sdd1", IN), member("sdc1", IN)], None),
        array("md127", "raid1", "active", "ok", 2, 0, 29301632, None, None, "1.0", "internal",
              [member("sdd2", IN), member("sdc2", IN)], None),
    ],
    "libstorage-ng__md-ddf1_proc_mdstat": [
        array("md125", "raid1", "active", "ok", 2, 0, 5242880, None, None, "external:/md127/1", "none",
              [member("sdb", IN), member("sdd", IN)], None),
        array("md126", "raid0", "active", "ok", 2, None, 10485760, 512, None, "external:/md127/0", "none",
              [member("sdb", IN), member("sdd", IN)], None),
        array("md127", "container", "inactive", "ok", None, None, None, None, None, "external:ddf", None,
              _DDF_MEMBERS, None),
    ],
    "libstorage-ng__md-imsm1_proc_mdstat": [
        array("md125", "raid1", "active", "ok", 2, 0, 5242880, None, None, "external:/md127/1", "none",
              [member("sdb", IN), member("sdc", IN)], None),
        array("md127", "container", "inactive", "ok", None, None, None, None, None, "external:imsm", None,
              [member("sdd", "spare"), member("sdc", "spare"), member("sdb", "spare")], None),
        array("md126", "raid0", "active", "ok", 2, None, 10485760, 128, None, "external:/md127/0", "none",
              [member("sdb", IN), member("sdd", IN)], None),
    ],
    "libstorage-ng__md1_proc_mdstat": [
        array("md0", "raid5", "active", "ok", 3, 0, 33521664, 512, "left-symmetric", "1.2", "none",
              [member("sdc", IN), member("sdd", "spare"), member("sda", IN), member("sdb", IN)], None),
    ],
    "libstorage-ng__md2_proc_mdstat": [
        array("md0", "raid0", "active", "ok", 2, None, 33553408, 512, None, "1.0", "none",
              [member("md2", IN), member("md1", IN)], None),
        array("md2", "raid1", "active", "ok", 2, 0, 16777088, None, None, "1.0", "none",
              [member("sdd", IN), member("sdc", IN)], None),
        array("md1", "raid1", "active", "ok", 2, 0, 16777088, None, None, "1.0", "none",
              [member("sdb", IN), member("sda", IN)], None),
    ],
    "libstorage-ng__md3_proc_mdstat": [
        array(name, "raid0", "active", "ok", 2, None, size, 512, None, "1.2", "none",
              [member(first, IN), member(second, IN)], None)
        for name, size, first, second in [
            ("md_test5", 3353600, "sdb12", "sdb11"),
            ("md_test4", 3353600, "sdb10", "sdb9"),
            ("md126", 3353600, "sdb8", "sdb7"),
            ("md127", 3352576, "sdb6", "sdb5"),
            ("md1", 3353600, "sdb4", "sdb3"),
            ("md0", 3352576, "sdb2", "sdb1"),
        ]
    ],
    "libstorage-ng__proc-mdstat-cc_parse1": [
        array("md0", "raid1", "active", "ok", 2, 0, 8387520, None, None, "1.0", "internal",
              [member("sdb1", IN), member("sda1", IN)], sync("resync", 23.4, 1963200, 8387520, 23178, 276.0)),
    ],
    "libstorage-ng__proc-mdstat-cc_parse2": [
        array("md125", "raid1", "active", "ok", 2, 0, 4194304, None, None, "external:/md127/0", "none",
              [member("sda", IN), member("sdb", IN)], None),
        array("md126", "raid0", "active", "ok", 2, None, 8378790, 128, None, "external:/md127/1", "none",
              [member("sda", IN), member("sdb", IN)], None),
        array("md127", "container", "inactive", "ok", None, None, None, None, None, "external:imsm", None,
              [member("sdb", "spare"), member("sda", "spare")], None),
    ],
    "libstorage-ng__proc-mdstat-cc_parse3": [
        array("md125", "raid1", "active", "ok", 2, 0, 7355904, None, None, "external:/md127/1", "none",
              [member("sda", IN), member("sdb", IN)], None),
        array("md126", "raid0", "active", "ok", 2, None, 1999872, 512, None, "external:/md127/0", "none",
              [member("sda", IN), member("sdb", IN)], None),
        array("md127", "container", "inactive", "ok", None, None, None, None, None, "external:ddf", None,
              [member("sdb", "spare"), member("sda", "spare")], None),
    ],
    # A faulty member still listed while [3/3] [UUU]: three unflagged, three U.
    "libstorage-ng__proc-mdstat-cc_parse4": [
        array("md0", "raid5", "active", "ok", 3, 0, 33521664, 512, "left-symmetric", "1.2", "none",
              [member("sdd", "faulty"), member("sdc", IN), member("sdb", IN), member("sda", IN)], None),
    ],
    "libstorage-ng__proc-mdstat-cc_parse5": [
        array("md_test", "raid0", "active", "ok", 2, None, 8000512, 512, None, "1.2", "none",
              [member("sda1", IN), member("sdb1", IN)], None),
    ],
    "libstorage-ng__proc-mdstat-cc_parse6": [
        array("md0", "raid5", "active", "ok", 3, 0, 4190208, 512, "left-symmetric", "1.2", "none",
              [member("sdd1", IN), member("sde1", IN), member("sdf1", IN), member("sdb1", "journal")], None),
    ],
    "libstorage-ng__proc-mdstat-cc_parse7": [
        array("md0", "raid10", "active", "ok", 6, 0, 100604928, 512, "near=2", "1.2", "internal",
              [member(f"sd{c}1", IN) for c in "bcdefg"], None),
    ],
    "libstorage-ng__proc-mdstat-cc_parse_empty2": [],
    "libstorage-ng__proc-mdstat-cc_parse_inactive_noncontainer": [
        array("md126", None, "inactive", "inactive", None, None, None, None, None, "1.0", None,
              [member("sde1", "spare")], None),
        array("md127", "raid5", "active", "ok", 3, 0, 2094848, 128, "left-symmetric", "1.0", "internal",
              [member("sdb1", IN), member("sdc1", IN), member("sda1", IN)], None),
    ],
}

EXPECTED = {
    "prometheus-procfs__proc_mdstat": PROCFS,
    "prometheus-node_exporter__proc_mdstat": NODE_EXPORTER,
    "prometheus-node_exporter__mdstat_initial_2015": INITIAL_2015,
    "prometheus-node_exporter__proc_mdstat_tabs_2016": TABS_2016,
    "prometheus-node_exporter__proc_mdstat_kernel_tabs_2016-09": KERNEL_TABS_2016,
    **PYMDSTAT,
    **LIBSTORAGE,
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
    for name in ("prometheus-procfs__proc_mdstat", "libstorage-ng__md-ddf1_proc_mdstat", "nicolargo-pymdstat__mdstat.01"):
        _, notes = _by_name(name)
        assert notes == [], name
