"""raidtop's vmstat fields equal those sar -A printed on sysstat's own recorded inputs.

The method and the deliberate differences: test_sysstat_equivalence.py.
"""

from __future__ import annotations

import os
import re

from raidtop.collect.sampler import Sampler
from raidtop.collect.source import Root
from tests.collect.rates.sysstat_golden import (
    DATA,
    EXPECTED,
)
from tests.collect.rates.sysstat_replay import printed


def parse_sar_blocks(text: str) -> dict[str, list[dict[str, str]]]:
    """sar's text output: header's first column name -> one dict per interval row."""
    blocks: dict[str, list[dict[str, str]]] = {}
    columns: list[str] | None = None
    for line in text.splitlines():
        fields = line.split()
        if not fields:
            columns = None
            continue
        if columns is None:
            if re.fullmatch(r"\d\d:\d\d:\d\d", fields[0]) and not re.fullmatch(r"[\d.]+", fields[1]):
                columns = fields[1:]
                blocks.setdefault(columns[0], [])
            continue
        if fields[0] != "Average:" and len(fields) == len(columns) + 1:
            blocks[columns[0]].append(dict(zip(columns, fields[1:], strict=True)))
    return blocks


def test_vmstat_fields_equal_sar() -> None:
    """vmstat's cs, si, so, bi, bo, free and buff against ``sar -A`` on the same trees.

    sar's -w, -W, -B and -r reports share their sources and interval with vmstat:
    cswch/s is vmstat's cs, pswpin/s and pswpout/s are si and so in pages,
    pgpgin/s and pgpgout/s are bi and bo, kbmemfree and kbbuffers are free and buff.
    """
    blocks = parse_sar_blocks((EXPECTED / "expected.sar-A").read_text())
    page_kb = os.sysconf("SC_PAGE_SIZE") / 1024.0
    sampler = Sampler(DATA / "root1")
    sampler.sample()
    checked = 0
    for index, tree in enumerate(("root2", "root3")):
        sampler.root = Root(DATA / tree)
        vm = sampler.sample().vm
        assert vm is not None
        got = {
            "cswch/s": printed(vm.cs_s),
            "pswpin/s": printed(vm.si_kib_s / page_kb),
            "pswpout/s": printed(vm.so_kib_s / page_kb),
            "pgpgin/s": printed(vm.bi_kib_s),
            "pgpgout/s": printed(vm.bo_kib_s),
            "kbmemfree": str(vm.free_kib),
            "kbbuffers": str(vm.buff_kib),
        }
        want = {
            "cswch/s": blocks["proc/s"][index]["cswch/s"],
            "pswpin/s": blocks["pswpin/s"][index]["pswpin/s"],
            "pswpout/s": blocks["pswpin/s"][index]["pswpout/s"],
            "pgpgin/s": blocks["pgpgin/s"][index]["pgpgin/s"],
            "pgpgout/s": blocks["pgpgin/s"][index]["pgpgout/s"],
            "kbmemfree": blocks["kbmemfree"][index]["kbmemfree"],
            "kbbuffers": blocks["kbmemfree"][index]["kbbuffers"],
        }
        assert got == want, tree
        checked += 1
    assert checked == 2
