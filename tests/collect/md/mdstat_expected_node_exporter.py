"""Expected arrays of node_exporter's older mdstat fixtures (2015; 2016 with tabs): procfs's, before (F)/(S) flags."""

from __future__ import annotations

from tests.collect.md.mdstat_expected import IN, WAIT_DELAYED, WAIT_PENDING, array, member, sync
from tests.collect.md.mdstat_expected_procfs import PROCFS

# The older fixtures before (F)/(S) flags were added: the same arrays, fewer members.
_PLAIN_MD3 = array(
    "md3",
    "raid6",
    "active",
    "ok",
    8,
    0,
    5853468288,
    64,
    "left-symmetric",
    "1.2",
    "none",
    [
        member("sda1", IN),
        member("sdh1", IN),
        member("sdg1", IN),
        member("sdf1", IN),
        member("sde1", IN),
        member("sdd1", IN),
        member("sdc1", IN),
        member("sdb1", IN),
    ],
    None,
)
_PLAIN_MD4 = array(
    "md4", "raid1", "inactive", "inactive", 2, 0, None, None, None, "0.90", None, [member("sda3"), member("sdb3")], None
)
# [2/1] [U_] with two unflagged members: mdstat cannot say which one is rebuilt onto.
_PLAIN_MD6 = array(
    "md6",
    "raid1",
    "active",
    "degraded",
    2,
    1,
    195310144,
    None,
    None,
    "0.90",
    "none",
    [member("sdb2"), member("sda2")],
    sync("recover", 8.5, 16775552, 195310144, 259783, 1020.0),
)
_PLAIN_MD8 = array(
    "md8",
    "raid1",
    "active",
    "ok",
    2,
    0,
    195310144,
    None,
    None,
    "0.90",
    "none",
    [member("sdb1", IN), member("sda1", IN)],
    sync("resync", 8.5, 16775552, 195310144, 259783, 1020.0),
)
# [4/3] [U_UU] with four unflagged members: again ambiguous.
_PLAIN_MD7 = array(
    "md7",
    "raid6",
    "active",
    "degraded",
    4,
    1,
    7813735424,
    512,
    "left-symmetric",
    "1.2",
    "internal",
    [member("sdb1"), member("sde1"), member("sdd1"), member("sdc1")],
    None,
)
_PLAIN_MD9 = array(
    "md9",
    "raid1",
    "active",
    "ok",
    4,
    0,
    523968,
    None,
    None,
    "1.2",
    "none",
    [member("sdc2", IN), member("sdd2", IN), member("sdb2", IN), member("sda2", IN)],
    WAIT_DELAYED,
)
_PLAIN_MD10 = array(
    "md10",
    "raid0",
    "active",
    "ok",
    2,
    None,
    314159265,
    64,
    None,
    "0.90",
    "none",
    [member("sda1", IN), member("sdb1", IN)],
    None,
)
_PLAIN_MD11 = array(
    "md11",
    "raid1",
    "active",
    "ok",
    2,
    0,
    4190208,
    None,
    None,
    "1.2",
    "none",
    [member("sdb2", IN), member("sdc2", IN)],
    WAIT_PENDING,
)
_MD127 = PROCFS[1]
_MD0 = PROCFS[2]

INITIAL_2015 = [_PLAIN_MD3, _MD127, _MD0, _PLAIN_MD4, _PLAIN_MD6, _PLAIN_MD8, _PLAIN_MD7]
TABS_2016 = INITIAL_2015 + [_PLAIN_MD9, _PLAIN_MD10]
KERNEL_TABS_2016 = TABS_2016 + [_PLAIN_MD11]
