"""Builders for the JSON raidtop gives each array of a /proc/mdstat sample, as the corpus tests expect it.

The rules they apply are in test_md_mdstat_corpus.py's docstring.
"""

from __future__ import annotations


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


def array(
    name, level, state, health, raid_disks, degraded, size_kib, chunk_kib, layout, metadata, bitmap, members, sync
):
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
