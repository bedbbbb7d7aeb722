"""raidtop's md events against ``mdadm --monitor``'s, with the documented differences applied.

Used by the VM test (tests/realmd/test_monitor.py, live) and by the replay
test (tests/collect/md/test_realmd_traces.py, from the traces). Each difference
removed here is in the README's "raidtop and mdadm --monitor" table, with
its reason; anything else that differs fails the comparison.

Standard library only.
"""

from __future__ import annotations

import json
import lzma
from pathlib import Path
from typing import Any
from collections.abc import Iterable

from .scenario_trace import TRACE_DIR, trace_document, write_trace

#: Arrays mdadm --monitor does not watch at all (no redundancy to lose).
UNMONITORED_LEVELS = ("raid0", "linear")
#: raidtop's own events, which mdadm has no counterpart for.
RAIDTOP_ONLY = ("ArrayFailed",)


def mdadm_sequence(events: Iterable[dict[str, Any]]) -> list[tuple[str, str | None]]:
    """mdadm's alerts as ``(event, member)``, milestones left out (see :func:`comparable`)."""
    return [comparable(e["event"], e.get("member")) for e in events if not _milestone(e["event"])]


def raidtop_sequence(steps: Iterable[list[list[Any]]], array: str) -> list[tuple[str, str | None]]:
    """raidtop's events about ``array``, tick by tick, as ``(event, member)``.

    ``steps`` holds each tick's events as ``[array, event, member]`` lists.
    DegradedArray counts only right after NewArray (mdadm raises it only for
    an array it sees for the first time); ArrayFailed is raidtop's own.
    """
    out: list[tuple[str, str | None]] = []
    for events in steps:
        mine = [(event, member) for name, event, member in events if name == array]
        new_array = any(event == "NewArray" for event, _ in mine)
        for event, member in mine:
            if event in RAIDTOP_ONLY or _milestone(event):
                continue
            if event == "DegradedArray" and not new_array:
                continue
            out.append(comparable(event, member))
    return out


def comparable(event: str, member: str | None) -> tuple[str, str | None]:
    """raidtop says Check* for check/repair where mdadm says Rebuild*; members by kernel name."""
    if event.startswith("Check"):
        event = "Rebuild" + event[len("Check") :]
    return event, None if not member else member.rsplit("/", 1)[-1]


def _milestone(event: str) -> bool:
    # mdadm names the step by the percent its 1 s poll happened to see
    # (Rebuild55), raidtop by the 20 % step crossed (Rebuild40).
    return event.startswith("Rebuild") and event[7:].isdigit()


def array_level(steps: list[dict[str, Any]], array: str) -> str | None:
    """The array's level as raidtop reported it at any step."""
    for step in steps:
        for reported in step["reported"]["arrays"]:
            if reported["name"] == array and reported["level"]:
                return reported["level"]
    return None


def compare(steps: list[dict[str, Any]], array: str, mdadm_events: list[dict[str, Any]]) -> dict[str, Any]:
    """Both sequences and whether they agree, for one scenario's array."""
    level = array_level(steps, array)
    raidtop = raidtop_sequence((s["reported"]["events"] for s in steps), array)
    mdadm = mdadm_sequence(mdadm_events)
    if level in UNMONITORED_LEVELS:
        # mdadm watches nothing here; raidtop's own events are all it has.
        return {"array": array, "level": level, "raidtop": raidtop, "mdadm": mdadm, "extra": [], "agree": mdadm == []}
    if not _left(steps, array):
        mdadm = without_transient_reopen(mdadm)
    mdadm = replace_end_in_kernel_order(mdadm)
    extra = unmatched(raidtop, mdadm)
    agree = extra is not None and all(allowed_extra(raidtop, index) for index in extra)
    return {
        "array": array,
        "level": level,
        "raidtop": raidtop,
        "mdadm": mdadm,
        "extra": None if extra is None else [raidtop[i] for i in extra],
        "agree": agree,
    }


def without_transient_reopen(mdadm: list[tuple[str, str | None]]) -> list[tuple[str, str | None]]:
    """mdadm's list without a DeviceDisappeared immediately followed by NewArray.

    Around ``mdadm --readonly`` (3 of 8 boots) mdadm's poll failed to read an
    array that never left: the kernel's files listed it at every step raidtop
    and the trace took. Only used when raidtop saw the array at every step
    (README: "raidtop and mdadm --monitor").
    """
    out: list[tuple[str, str | None]] = []
    index = 0
    while index < len(mdadm):
        if mdadm[index][0] == "DeviceDisappeared" and index + 1 < len(mdadm) and mdadm[index + 1][0] == "NewArray":
            index += 2
            continue
        out.append(mdadm[index])
        index += 1
    return out


def replace_end_in_kernel_order(mdadm: list[tuple[str, str | None]]) -> list[tuple[str, str | None]]:
    """mdadm's ``Fail X, SpareActive Y, RebuildFinished`` at the end of a replace, as the kernel ordered it.

    md ends the copy and then swaps the disks; when both fall within one of
    mdadm's polls (2 boots of 12, host load ~7) mdadm reported the swap first.
    raidtop, sampling twice as often, reports RebuildFinished first (README:
    "raidtop and mdadm --monitor").
    """
    out = list(mdadm)
    for index in range(len(out) - 2):
        (first, replaced), (second, new), (third, _) = out[index : index + 3]
        if (first, second, third) == ("Fail", "SpareActive", "RebuildFinished"):
            out[index : index + 3] = [("RebuildFinished", None), ("Fail", replaced), ("SpareActive", new)]
    return out


def _left(steps: list[dict[str, Any]], array: str) -> bool:
    """True if some step after the array's first appearance lacks it (it really went away)."""
    seen = False
    for step in steps:
        present = any(reported["name"] == array for reported in step["reported"]["arrays"])
        if seen and not present:
            return True
        seen = seen or present
    return False


def unmatched(raidtop: list[tuple[str, str | None]], mdadm: list[tuple[str, str | None]]) -> list[int] | None:
    """Indexes of raidtop's events left over when mdadm's are matched in order; ``None`` if some are not found."""
    used: list[int] = []
    position = 0
    for wanted in mdadm:
        while position < len(raidtop) and raidtop[position] != wanted:
            position += 1
        if position == len(raidtop):
            return None
        used.append(position)
        position += 1
    return [i for i in range(len(raidtop)) if i not in used]


def allowed_extra(raidtop: list[tuple[str, str | None]], index: int) -> bool:
    """The differences the README documents for events raidtop has and mdadm does not.

    * RebuildStarted/RebuildFinished of a sync mdadm's 1 s poll did not see
      running (raidtop samples twice as often here; a 16 MiB sync can last
      under a second);
    * SpareActive for the disk md builds when it creates a raid5 (its first
      recovery after NewArray): mdadm 4.2 did not report it in the VM.
    """
    event, _member = raidtop[index]
    if event in ("RebuildStarted", "RebuildFinished"):
        return True
    if event == "SpareActive":
        earlier = [e for e, _ in raidtop[:index]]
        return earlier.count("RebuildFinished") == 1 and "NewArray" in earlier and earlier[-1] == "RebuildFinished"
    return False


def monitor_trace(result: dict[str, Any], meta: dict[str, Any]) -> dict[str, Any]:
    """A guest_monitor result as a trace document, with mdadm's alerts and the facts kept."""
    document = trace_document(result, meta)
    document["array"] = result["array"]
    document["mdadm_events"] = result["mdadm_events"]
    document["facts"] = result["facts"]
    document["provenance"] = (
        "tests/realmd/guest_monitor.py in the realmd VM: raidtop's Sampler every 0.5 s beside "
        f"`mdadm --monitor --scan --delay=1 --program` ({meta.get('mdadm')}, kernel {meta.get('kernel')})"
    )
    return document


def save_results(results_dir: Path, prefix: str, out_dir: Path = TRACE_DIR) -> list[Path]:
    """Write every ``<prefix>*.json`` result of a guest run as ``<name>.json.xz`` traces."""
    meta_path = results_dir / "monitor_meta.json"
    meta = json.loads(meta_path.read_text()) if meta_path.exists() else {}
    written = []
    for path in sorted(results_dir.glob(f"{prefix}*.json")):
        if path.name.endswith("meta.json"):
            continue
        result = json.loads(path.read_text())
        if "array" in result:
            document = monitor_trace(result, meta)
        else:
            document = trace_document(result, meta)
            document["facts"] = result["facts"]
            document["provenance"] = "tests/realmd/guest_eta.py in the realmd VM, raidtop's Sampler every 1 s"
        target = out_dir / f"{result['scenario']}.json.xz"
        write_trace(document, target)
        written.append(target)
    return written


def read_any_trace(path: Path) -> dict[str, Any]:
    """A trace file as a dict (any of scenario_trace's documents)."""
    return json.loads(lzma.decompress(Path(path).read_bytes()))
