"""Mirrors with empty slots by design (QNAP's ``[24/4]``), told apart from mirrors that lost a disk.

QNAP and Synology build their system arrays as raid1 with one slot per bay
the firmware might ever see (24, 32, 12...) and fill as many as there are
disks: ``md9 : active raid1 sda1[26] sdd1[27] sdb1[24] sdc1[25] ... [24/4]
[UUUU____________________]`` (netdata #11180, beszel #2061, Pulse #1688).
md counts the 20 empty slots as ``degraded``, and so did every monitor that
believed it. Four in-sync copies are not a degraded array.

The rule, from md's own counts and member states (:func:`judge_sparse`): a
raid1 whose empty slots all follow the filled ones (``UUUU____``, never
``U_UU``), with no faulty member, no sync running, every slotted member in
sync, at least two working copies and more empty slots than filled ones. A
real loss fails it: a 2-disk raid1 with one missing (``[2/1]``), a 3-disk one
missing one (``[3/2]``), any raid4/5/6/10. Where the rule cannot tell (a
one-bay box, a 4-slot mirror built with two), the user states the expected
member count in the config and that decides (:func:`apply_expected`).

Within one run raidtop also remembers the most copies it has seen: a sparse
array that loses one (``[24/4]`` to ``[24/3]``) is degraded at once
(:class:`SparseMemory`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from raidtop.model.md import MdArray

MIRRORS = frozenset({"raid1"})
"""Levels whose empty slots can be configuration: every member holds all the data."""


def judge_sparse(array: MdArray) -> bool:
    """True when ``array``'s empty slots are configuration by the rule above."""
    if array.level not in MIRRORS or array.raid_disks is None or not array.status:
        return False
    filled = array.status.rstrip("_")
    working = len(filled)
    empty = len(array.status) - working
    if "_" in filled or working < 2 or empty <= working:
        return False
    if array.sync is not None or any(m.is_faulty for m in array.members):
        return False
    slotted = [m for m in array.members if m.slot is not None]
    # mdstat alone gives no slots: its [UUUU____] pattern and the absence of
    # faulty members must then do; with slots, each must hold a copy in sync.
    return all(m.is_in_sync for m in slotted) and len(slotted) in (0, working)


def mark_sparse(array: MdArray) -> MdArray:
    """``array`` with health ``ok`` and :attr:`~MdArray.sparse_by_design` set when the rule says so."""
    if array.health == "degraded" and judge_sparse(array):
        return replace(array, health="ok", sparse_by_design=True)
    return array


def expectation_for(array: MdArray, expected: Mapping[str, int]) -> int | None:
    """The member count the config states for ``array`` (by UUID, else by name)."""
    if array.uuid and array.uuid in expected:
        return expected[array.uuid]
    return expected.get(array.name)


def apply_expected(array: MdArray, count: int) -> MdArray:
    """Judge ``array`` against a stated member count: degraded when fewer work, sparse when more slots exist."""
    working = array.working_disks
    if working is None or array.health in ("failed", "inactive") or array.level not in MIRRORS:
        return array
    healthy = not any(m.is_faulty for m in array.members) and array.sync is None
    if working >= count and healthy and array.raid_disks is not None and array.raid_disks > working:
        return replace(array, health="ok", sparse_by_design=True)
    if working < count and (array.health == "ok" or array.sparse_by_design):
        return replace(array, health="degraded", sparse_by_design=False)
    return array


class SparseMemory:
    """The most working copies seen per sparse array in this run: one fewer is a loss."""

    def __init__(self, expected: Mapping[str, int] | None = None) -> None:
        self._expected = dict(expected or {})
        self._most: dict[str, int] = {}

    def apply(self, arrays: Sequence[MdArray]) -> list[MdArray]:
        """The arrays with stated counts applied and losses from sparse arrays made degraded again."""
        out = []
        for array in arrays:
            count = expectation_for(array, self._expected)
            if count is not None:
                array = apply_expected(array, count)
            elif array.sparse_by_design:
                working = array.working_disks or 0
                most = self._most.get(array.name, 0)
                if working < most:
                    array = replace(array, health="degraded", sparse_by_design=False)
                else:
                    self._most[array.name] = working
            elif array.health == "ok" and array.working_disks is not None:
                # A whole array's copies count too: it may have been seen before turning sparse-shaped.
                self._most[array.name] = max(self._most.get(array.name, 0), array.working_disks)
            out.append(array)
        names = {a.name for a in arrays}
        for name in [n for n in self._most if n not in names]:
            del self._most[name]
        return out
