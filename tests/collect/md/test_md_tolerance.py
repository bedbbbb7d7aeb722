"""Real mdstat files as people paste them: incomplete, re-indented, mailed.

Each case starts from a real sample in tests/data/md/mdstat and damages it
the way copies get damaged; the arrays it still shows must all come back.
"""

from __future__ import annotations

from pathlib import Path

from raidtop.output.md_json import array_to_json
from raidtop.collect.md.mdstat import parse_mdstat

DATA = Path(__file__).resolve().parents[2] / "data" / "md" / "mdstat"
PROCFS = (DATA / "prometheus-procfs__proc_mdstat").read_text()


def as_json(text: str) -> list[dict]:
    return [array_to_json(a) for a in parse_mdstat(text)[0]]


REFERENCE = as_json(PROCFS)


def test_without_personalities_line():
    text = PROCFS.split("\n", 1)[1]
    arrays, notes = parse_mdstat(text)
    assert [array_to_json(a) for a in arrays] == REFERENCE
    assert "/proc/mdstat: no 'Personalities' line; the copy may be incomplete" in notes


def test_without_unused_devices_line():
    text = PROCFS.replace("unused devices: <none>\n", "")
    arrays, notes = parse_mdstat(text)
    assert [array_to_json(a) for a in arrays] == REFERENCE
    assert any("unused devices" in n for n in notes)


def test_bare_personalities_line():
    arrays, notes = parse_mdstat((DATA / "nicolargo-pymdstat__mdstat.01").read_text())
    assert arrays == [] and notes == []
    arrays, notes = parse_mdstat("Personalities :\n")
    assert arrays == []


def test_array_cut_after_its_first_line_at_the_end():
    text = PROCFS.split("md42 :")[0] + "md42 : active raid5 sda1[3](S) sdd1[0] sde1[1]\n"
    arrays, notes = parse_mdstat(text)
    assert [array_to_json(a) for a in arrays[:-1]] == REFERENCE[:-1]
    md42 = array_to_json(arrays[-1])
    assert md42 == {
        "name": "md42",
        "level": "raid5",
        "state": "active",
        "health": "ok",
        "raid_disks": None,
        "degraded": None,
        "size_kib": None,
        "chunk_kib": None,
        "layout": None,
        "metadata": None,
        "bitmap": None,
        # Without [UU_] nothing says whether the unflagged members are in sync.
        "members": [
            {"name": "sda1", "slot": None, "roles": ["spare"], "errors": None},
            {"name": "sdd1", "slot": None, "roles": [], "errors": None},
            {"name": "sde1", "slot": None, "roles": [], "errors": None},
        ],
        "sync": None,
        "mismatch_cnt": None,
        "sync_speed_min": None,
        "sync_speed_max": None,
        "stripe_cache_size": None,
    }
    assert "md42: only the first line of its entry is present" in notes


def test_array_cut_after_its_first_line_in_the_middle():
    lines = PROCFS.split("\n")
    start = lines.index("md6 : active raid1 sdb2[2](F) sdc[1](S) sda2[0]")
    del lines[start + 1 : start + 4]  # status, progress and blank line of md6
    arrays, notes = parse_mdstat("\n".join(lines))
    names = [a.name for a in arrays]
    assert names == [a["name"] for a in REFERENCE]
    md6 = arrays[names.index("md6")]
    assert md6.level == "raid1" and md6.size_kib is None and md6.sync is None
    assert [m.roles for m in md6.members] == [("faulty",), ("spare",), ()]
    md8 = array_to_json(arrays[names.index("md8")])
    assert md8 == REFERENCE[names.index("md8")]
    assert "md6: only the first line of its entry is present" in notes


def test_tab_indentation():
    text = "\n".join("\t" + line.lstrip() if line.startswith(" ") else line for line in PROCFS.split("\n"))
    assert as_json(text) == REFERENCE
    # The real 2016 fixture mixes tabs and spaces; it is covered field by field too.
    assert [a["name"] for a in as_json((DATA / "prometheus-node_exporter__proc_mdstat_tabs_2016").read_text())] == [
        "md3",
        "md127",
        "md0",
        "md4",
        "md6",
        "md8",
        "md7",
        "md9",
        "md10",
    ]


def test_missing_indentation():
    text = "\n".join(line.lstrip() for line in PROCFS.split("\n"))
    arrays, notes = parse_mdstat(text)
    assert [array_to_json(a) for a in arrays] == REFERENCE
    assert notes == []


def test_delayed_and_pending_with_and_without_tab():
    with_tab = parse_mdstat((DATA / "prometheus-node_exporter__proc_mdstat_kernel_tabs_2016-09").read_text())[0]
    without = parse_mdstat(PROCFS)[0]
    for arrays in (with_tab, without):
        by_name = {a.name: a for a in arrays}
        assert by_name["md9"].sync.action == "delayed"
        assert by_name["md11"].sync.action == "pending"
    pasted = "md9 : active raid1 sdb2[1] sda2[0]\n523968 blocks super 1.2 [2/2] [UU]\nresync=DELAYED\n"
    assert parse_mdstat(pasted)[0][0].sync.action == "delayed"


def test_mail_quoted_copy():
    quoted = "\n".join("> " + line for line in PROCFS.split("\n"))
    arrays, notes = parse_mdstat(quoted)
    assert [array_to_json(a) for a in arrays] == REFERENCE
    assert "/proc/mdstat: removed '>' mail quoting" in notes
    twice = "\n".join(">> " + line for line in PROCFS.split("\n"))
    assert as_json(twice) == REFERENCE


def test_mail_wrapped_lines():
    header = (
        "md3 : active raid6 sda1[8] sdh1[7] sdg1[6] sdf1[5] sde1[11] sdd1[3] sdc1[10] sdb1[9] sdd1[10](S) sdd2[11](S)"
    )
    wrapped_header = header.replace(" sdc1[10]", "\n sdc1[10]")
    status = "      1953381440 blocks super 1.2 level 5, 64k chunk, algorithm 2 [3/2] [UU_]"
    progress = "      [===========>.........]  reshape = 56.1% (1096879076/1953381440) finish=1868.1min speed=7640K/sec"
    text = (
        PROCFS.replace(header, wrapped_header)
        .replace(status, status.replace(" [3/2]", "\n [3/2]"))
        .replace(progress, progress.replace(" finish=", "\n finish="))
    )
    arrays, notes = parse_mdstat(text)
    assert [array_to_json(a) for a in arrays] == REFERENCE
    assert "md3: member list continued on a second line (wrapped copy)" in notes


def test_quoted_printable_mail_body():
    text = PROCFS.replace("finish=", "finish=3D").replace("speed=", "speed=3D").replace("resync=", "resync=3D")
    arrays, notes = parse_mdstat(text)
    assert [array_to_json(a) for a in arrays] == REFERENCE
    assert "/proc/mdstat: decoded a quoted-printable mail copy" in notes


def test_crlf_and_non_breaking_spaces():
    text = PROCFS.replace("\n", "\r\n").replace("blocks super", "blocks\xa0super")
    assert as_json(text) == REFERENCE


def test_garbage_lines_are_noted_not_fatal():
    text = PROCFS.replace("md127 : active", "%%% pasted by hand %%%\nmd127 : active", 1)
    arrays, notes = parse_mdstat(text)
    assert [array_to_json(a) for a in arrays] == REFERENCE
    assert any("not understood" in n for n in notes)


def test_lines_before_any_header_are_noted():
    text = "      248896 blocks [2/2] [UU]\n\n" + PROCFS
    arrays, notes = parse_mdstat(text)
    assert len(arrays) == len(REFERENCE)
    assert "/proc/mdstat: 1 line(s) outside any array entry were not understood" in notes


def test_only_a_status_fragment_is_not_an_array():
    assert parse_mdstat("bitmap: 0/30 pages [0KB], 65536KB chunk\n")[0] == []
    assert parse_mdstat("")[0] == [] and parse_mdstat("")[1] == []


def test_newer_kernel_broken_raid0():
    # 5.x kernels print "broken" for a raid0/linear array that lost a member.
    text = (
        "Personalities : [raid0] \nmd0 : broken raid0 sdb[1] sda[0]\n"
        "      2093056 blocks super 1.2 512k chunks\n\nunused devices: <none>\n"
    )
    md0 = parse_mdstat(text)[0][0]
    assert (md0.level, md0.state, md0.health, md0.size_kib) == ("raid0", "broken", "failed", 2093056)


def test_replacement_and_write_mostly_flags():
    text = (
        "Personalities : [raid1] \n"
        "md5 : active raid1 sdd1[2](R) sdc1[1](W) sdb1[0]\n"
        "      1047552 blocks super 1.2 [2/2] [UU]\n"
        "      [=>...................]  recovery =  9.7% (102400/1047552) finish=0.3min speed=51200K/sec\n"
        "\nunused devices: <none>\n"
    )
    md5 = parse_mdstat(text)[0][0]
    assert [(m.name, m.roles) for m in md5.members] == [
        ("sdd1", ("replacement",)),
        ("sdc1", ("in_sync", "write_mostly")),
        ("sdb1", ("in_sync",)),
    ]
