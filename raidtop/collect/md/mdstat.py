"""A tolerant parser for /proc/mdstat.

The kernel's md_seq_show() prints, per array, a header line
(``md0 : active (auto-read-only) raid1 sdb1[1] sda1[0](F)``), a status line
(``8387520 blocks super 1.0 [2/1] [U_]``), then optionally a progress line
(``[=>...]  recovery =  8.5% (16775552/195310144) finish=17.0min speed=259783K/sec``
or ``\\tresync=DELAYED``) and a bitmap line, and a blank line. Counts are
1 KiB blocks. People paste it into bug reports and mail, so the parser
accepts it without its first or last line, with tabs or no indentation,
with arrays cut after their first line, with wrapped lines and ``>``
quoting, and says in notes what it could not read instead of raising.

Two things mdstat cannot say: the ``[N]`` after a member is its descriptor
number, not its slot; and which unflagged member is being rebuilt onto. The
parser leaves such a member's slot ``None`` and, when the counts do not settle
it, its roles empty, rather than guess.
"""

from __future__ import annotations

from raidtop.collect.md.mdstat_array import AMBIGUOUS_ROLES, build_array
from raidtop.collect.md.mdstat_lines import FILE_NOTE, split_into_arrays
from raidtop.model.md import MdArray

__all__ = ["AMBIGUOUS_ROLES", "FILE_NOTE", "parse_mdstat"]


def parse_mdstat(text: str) -> tuple[list[MdArray], list[str]]:
    """Parse /proc/mdstat text into arrays (in file order) and notes.

    Never raises on bad input: whatever can be read is returned, and each
    note is a sentence saying what could not be read.
    """
    blocks, notes = split_into_arrays(text)
    arrays = []
    seen_names: set[str] = set()
    for block in blocks:
        array = build_array(block)
        if array.name in seen_names:
            notes.append(f"{FILE_NOTE}{array.name} appears twice; both entries are kept")
        seen_names.add(array.name)
        notes.extend(array.notes)
        arrays.append(array)
    return arrays, notes
