"""Rows of the fleet view as plain strings and tones (no Textual): host list and one host's detail."""

from __future__ import annotations


from raidtop.model.frozen import frozen_dataclass
from raidtop.fleet.model import FleetArray, FleetHost
from raidtop.presentation.md import duration, progress_bar, speed
from raidtop.untrusted import plain
from raidtop.model.units import counted

BAR_WIDTH = 16
PROBLEM_WIDTH = 32
"""Widest an unreadable host's reason is in the host list: a longer one (a URL, a parse error)
widened the Progress column until "Alerts firing" left a 120-column screen. Enter on the host
shows the whole reason."""
FLEET_COLUMNS = ("Host", "Array", "Level", "State", "Disks", "Progress", "Speed", "ETA", "Alerts firing")
HOST_COLUMNS = ("Array", "Member", "Role", "Slow", "Errors")
_TONE = {
    "broken": "crit",
    "inactive": "crit",
    "degraded": "warn",
    "recovering": "warn",
    "resyncing": "accent",
    "reshaping": "accent",
    "checking": "accent",
    "repairing": "accent",
    "faulty": "crit",
    "rebuilding": "warn",
}


@frozen_dataclass
class Row:
    """One table row: its key (host name, for drilling in), cells and the tone of its state."""

    key: str
    cells: tuple[str, ...]
    tone: str | None = None


def fleet_rows(hosts: tuple[FleetHost, ...]) -> list[Row]:
    """One row per array, hosts worst first; a host that cannot be read is one row saying why."""
    rows = []
    for host in hosts:
        name, alerts = plain(host.label), alert_text(host)
        if host.problem is not None:
            cells = (name, "—", "", "unreadable", "", shortened(plain(host.problem), PROBLEM_WIDTH), "", "", alerts)
            rows.append(Row(host.name, cells, "crit"))
            continue
        if not host.arrays:
            cells = (name, "—", "", "no arrays", "", "", "", "", alerts)
            rows.append(Row(host.name, cells, "warn" if alerts else None))
        for array in host.arrays:
            tone = None if array.level == "container" else _TONE.get(array.state)
            rows.append(Row(host.name, (name, *array_cells(array), alerts), tone))
    return rows


def shortened(text: str, width: int) -> str:
    """``text`` if it fits in ``width``, else cut at the last word that fits, with "…" (never mid-word)."""
    if len(text) <= width:
        return text
    head = text[: width - 1]
    cut = head.rfind(" ")
    return (head[:cut] if cut > width // 2 else head).rstrip(" ,;:") + "…"


def array_cells(array: FleetArray) -> tuple[str, ...]:
    """Array, level, state, disks, progress, speed, ETA."""
    disks = ""
    if array.raid_disks is not None:
        working = array.raid_disks - (array.degraded or 0)
        disks = f"{working}/{array.raid_disks}"
    progress = speed_text = eta = ""
    if array.action is not None:
        pct = array.percent
        progress = f"{progress_bar(pct, BAR_WIDTH)} {pct:5.1f}%" if pct is not None else array.action
        speed_text = speed(None if array.speed_bytes_s is None else array.speed_bytes_s / 1024)
        eta = duration(array.eta_s)
    return (plain(array.name), plain(array.level or "—"), plain(array.state), disks, progress, speed_text, eta)


def host_rows(host: FleetHost) -> list[Row]:
    """One row per member of every array of ``host`` (an array without members: one row)."""
    rows = []
    for array in host.arrays:
        label = f"{plain(array.name)} {plain(array.state)}"
        if not array.members:
            rows.append(Row(array.name, (label, "—", "", "", ""), _TONE.get(array.state)))
        for member in array.members:
            errors = "" if member.errors is None else str(member.errors)
            tone = _TONE.get(member.role) or ("warn" if member.slow else None)
            rows.append(
                Row(
                    array.name,
                    (label, plain(member.name), plain(member.role), "slow" if member.slow else "", errors),
                    tone,
                )
            )
    return rows


def alert_text(host: FleetHost) -> str:
    """The host's firing alerts, by name (``MdArrayDegraded, SmartFailing``)."""
    return ", ".join(plain(a) for a in host.alerts)


def summary(hosts: tuple[FleetHost, ...]) -> str:
    """``3 hosts, 7 arrays: 1 degraded, 1 recovering, 1 unreadable host``."""
    arrays = [a for h in hosts for a in h.arrays]
    counts: dict[str, int] = {}
    for a in arrays:
        if a.state not in ("clean", "active"):
            counts[a.state] = counts.get(a.state, 0) + 1
    bad_hosts = sum(1 for h in hosts if h.problem is not None)
    parts = [f"{n} {plain(state)}" for state, n in sorted(counts.items())]
    firing = sum(len(h.alerts) for h in hosts)
    if firing:
        parts.append(f"{counted(firing, 'alert')} firing")
    if bad_hosts:
        parts.append(counted(bad_hosts, "unreadable host"))
    head = f"{counted(len(hosts), 'host')}, {counted(len(arrays), 'array')}"
    return head + (": " + ", ".join(parts) if parts else ": all clean")
