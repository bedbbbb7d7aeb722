"""``mdadm --detail --export`` samples, every field read off the files by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from raidtop.collect.md.mdadm_export import parse_mdadm_export
from raidtop.model.md import MdadmDevice, MdadmExport

DATA = Path(__file__).resolve().parents[2] / "data" / "md" / "mdadm-detail-export"


def dev(name, role):
    return MdadmDevice(name=name, role=role, dev=f"/dev/{name}")


def raid0_md3(uuid, devname, name, first, second):
    """libstorage-ng's md3 mockup: six two-partition raid0 arrays on sdb."""
    return MdadmExport(
        level="raid0", raid_devices=2, metadata="1.2", uuid=uuid, name=name, devname=devname, devices=(first, second)
    )


EXPECTED = {
    "libstorage-ng__md+lvm1_detail_export_md0": MdadmExport(
        level="raid1",
        raid_devices=2,
        metadata="1.0",
        uuid="623f3da0:9f31bf71:164fbf53:58ffcd65",
        name="any:0",
        devices=(dev("sdd1", "1"), dev("sdc1", "0")),
    ),
    "libstorage-ng__md+lvm1_detail_export_md127": MdadmExport(
        level="raid1",
        raid_devices=2,
        metadata="1.0",
        uuid="fcb43c8a:ec953676:9d0a703d:89cf2f42",
        name="any:md-b",
        devname="md-b",
        devices=(dev("sdd2", "1"), dev("sdc2", "0")),
    ),
    "libstorage-ng__md-ddf1_detail_export_md125": MdadmExport(
        level="raid1",
        raid_devices=2,
        uuid="7176ee6c:157fad2a:03304d57:5154c195",
        devname="b",
        container="/dev/md/ddf0",
        member="1",
        devices=(dev("sdd", "1"), dev("sdb", "0")),
    ),
    "libstorage-ng__md-ddf1_detail_export_md126": MdadmExport(
        level="raid0",
        raid_devices=2,
        uuid="44d1de20:051ec20c:9b464412:c1402fbf",
        devname="a",
        container="/dev/md/ddf0",
        member="0",
        devices=(dev("sdd", "1"), dev("sdb", "0")),
    ),
    "libstorage-ng__md-ddf1_detail_export_md127": MdadmExport(
        level="container",
        raid_devices=3,
        metadata="ddf",
        uuid="ff03741d:35e167d9:7975b563:f63ad6a1",
        devname="ddf0",
        devices=(dev("sdc", "spare"), dev("sdd", "spare"), dev("sdb", "spare")),
    ),
    "libstorage-ng__md-imsm1_detail_export_md125": MdadmExport(
        level="raid1",
        raid_devices=2,
        uuid="76c4b28a:fdeeacfb:4c011925:c3f3fbe0",
        devname="b",
        container="/dev/md/imsm0",
        member="1",
        devices=(dev("sdc", "0"), dev("sdb", "1")),
    ),
    "libstorage-ng__md-imsm1_detail_export_md126": MdadmExport(
        level="raid0",
        raid_devices=2,
        uuid="8f600ff3:ccc9872c:539cd6c8:91e3b4a1",
        devname="a",
        container="/dev/md/imsm0",
        member="0",
        devices=(dev("sdd", "0"), dev("sdb", "1")),
    ),
    "libstorage-ng__md-imsm1_detail_export_md127": MdadmExport(
        level="container",
        raid_devices=3,
        metadata="imsm",
        uuid="955f4f3a:dea4bc4d:f597c49e:c118251c",
        devname="imsm0",
        devices=(dev("sdc", "spare"), dev("sdd", "spare"), dev("sdb", "spare")),
    ),
    "libstorage-ng__md3_detail_export_md0": raid0_md3(
        "3615d8bc:263fad71:78782364:ddf8dd58", None, "e146:0", dev("sdb2", "1"), dev("sdb1", "0")
    ),
    "libstorage-ng__md3_detail_export_md1": raid0_md3(
        "0ea71d45:8bed4762:7e2112f0:67d0a563", None, "e146:1", dev("sdb4", "1"), dev("sdb3", "0")
    ),
    "libstorage-ng__md3_detail_export_md126": raid0_md3(
        "d18642aa:6cec3364:52da8d3b:e6229373", "test3", "e146:test3", dev("sdb7", "0"), dev("sdb8", "1")
    ),
    "libstorage-ng__md3_detail_export_md127": raid0_md3(
        "5d1cea4b:8d7dfcb2:3380fe48:b1934d2a", "test2", "e146:test2", dev("sdb6", "1"), dev("sdb5", "0")
    ),
    "libstorage-ng__md3_detail_export_md_test4": raid0_md3(
        "529c9212:439ae1e7:54ce8595:19604ae5", "test4", "e146:test4", dev("sdb9", "0"), dev("sdb10", "1")
    ),
    "libstorage-ng__md3_detail_export_md_test5": raid0_md3(
        "04ac694a:d5170a17:75bf9d81:6ec1f71f", "test5", "e146:test5", dev("sdb11", "0"), dev("sdb12", "1")
    ),
    "libstorage-ng__mdadm-detail-cc_parse1": MdadmExport(
        level="raid1",
        raid_devices=2,
        metadata="1.0",
        uuid="35dd06d4:b4e9e248:9262c3ad:02b61654",
        name="linux:0",
        devices=(dev("sda1", "0"), dev("sdb1", "1")),
    ),
    # Odd "MD_DEVICE_ev_*" keys: devices are named from their _DEV path, not the key.
    "libstorage-ng__mdadm-detail-cc_parse2": MdadmExport(
        level="raid10",
        raid_devices=4,
        metadata="1.2",
        uuid="bc9eb9bb:cba04711:7e4155f7:808630e7",
        name="kassandra:test",
        devname="test",
        devices=(dev("sdd2", "3"), dev("sdc2", "2"), dev("sdd3", "1"), dev("sdc3", "spare"), dev("sdc1", "0")),
    ),
}


def test_every_sample_has_expectations():
    assert sorted(EXPECTED) == sorted(p.name for p in DATA.iterdir())


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_field(name):
    parsed, notes = parse_mdadm_export((DATA / name).read_text())
    assert parsed == EXPECTED[name]
    assert notes == []


def test_damaged_export_is_noted():
    parsed, notes = parse_mdadm_export("MD_LEVEL=raid1\nMD_DEVICES=two\ngarbage\nMD_FOO=bar\nMD_DEVICE_x_ROLE=0\n")
    assert parsed.level == "raid1" and parsed.raid_devices is None
    assert parsed.other == (("MD_FOO", "bar"),)
    assert parsed.devices == (MdadmDevice(name="x", role="0", dev=None),)
    assert len(notes) == 2
