"""A full filesystem on a degraded array: said before anything else on the dashboard.

A degraded array with a full filesystem is two problems that make each other
worse: the rebuild competes with the writers that are failing, and the
admin's first move (delete, move data) is I/O on an array without redundancy.
"""

from __future__ import annotations

from raidtop.collect.stack.tree import above
from raidtop.model.md import MdArray
from raidtop.model.stack import Stack

FULL_PCT = 95.0
"""df's Use% from which a filesystem is "full": the last 5 % an ordinary writer may use is
minutes of log or database growth, and the admin must act before the rebuild ends."""


def full_on_degraded(stack: Stack, arrays: dict[str, MdArray]) -> list[str]:
    """One sentence per full filesystem carried by a degraded or failed array."""
    found = []
    # An LVM RAID volume is named as device-mapper names it (vg-lv); its node is dm-N.
    by_label = {node.label: name for name, node in stack.nodes.items() if node.kind in ("lvm", "dm")}
    for array in arrays.values():
        if array.health not in ("degraded", "failed"):
            continue
        for _, node in above(stack, by_label.get(array.name, array.name) if array.source == "dm-raid" else array.name):
            if node.usage is not None and node.usage.used_pct >= FULL_PCT and node.mountpoints:
                found.append(
                    f"{array.name} is {array.health} and its filesystem {node.mountpoints[0]} "
                    f"({node.fstype or 'fs'} on {node.label}) is {node.usage.df_pct} % full"
                )
    return found
