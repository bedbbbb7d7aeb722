"""Compact per-scenario traces of real md behaviour, for replay without the VM.

A trace file (``tests/data/realmd/<scenario>.json.xz``) is one xz-compressed
JSON document::

    {"format": "raidtop-realmd-trace", "version": 1, "scenario": ...,
     "kernel": "6.1.0-56-amd64", "mdadm": ..., "recorded": "2026-...",
     "steps": [ <trace.py step>, ... ]}

Each step is in :mod:`tests.realmd.trace`'s format (``files`` and ``links``
keyed by absolute guest path, so :func:`trace.materialize` turns it into a
root) plus ``sampled_at`` (the clock raidtop's sampler used) and
``reported`` (what raidtop reported from those very files in the VM:
arrays as ``raidtop snapshot --json`` writes them, events, alerts).

The files are exactly those raidtop's readers read at that step, so a
replay reproduces the VM's report; settled steps add the rest of the md
tree (files raidtop does not read today) from a moment later.

Standard library only.
"""

from __future__ import annotations

import json
import lzma
from datetime import datetime, UTC
from pathlib import Path
from typing import Any

from .paths import REPO_ROOT

FORMAT = "raidtop-realmd-trace"
VERSION = 1
TRACE_DIR = REPO_ROOT / "tests" / "data" / "realmd"


def step_from_driver(step: dict[str, Any]) -> dict[str, Any]:
    """One guest_driver step as a trace step (files, links, what raidtop reported)."""
    frame = step["kernel"]
    files = {key[2:]: value for key, value in frame.items() if key.startswith("f:") and isinstance(value, str)}
    links = {key[2:]: value for key, value in frame.items() if key.startswith("l:") and isinstance(value, str)}
    extra = step.get("extra") or {}
    files.update(extra.get("files", {}))
    links.update(extra.get("links", {}))
    reported = step["reported"]
    return {
        "v": 1,
        "label": step["label"],
        "monotonic": step["t"],
        "wall": step["sampled_at"],
        "sampled_at": step["sampled_at"],
        "files": files,
        "links": links,
        "reported": {
            "arrays": reported["arrays"],
            "events": [[e["array"], e["event"], e["member"]] for e in reported["events"]],
            "alerts": reported["alerts"],
        },
    }


def trace_document(result: dict[str, Any], meta: dict[str, Any]) -> dict[str, Any]:
    """The whole trace of one scenario result (as guest_driver wrote it)."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "scenario": result["scenario"],
        "kernel": meta.get("kernel"),
        "mdadm": meta.get("mdadm"),
        "recorded": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "timings": result["timings"],
        "steps": [step_from_driver(step) for step in result["steps"]],
    }


def write_trace(document: dict[str, Any], path: Path) -> int:
    """Write ``document`` xz-compressed; returns the bytes written."""
    data = lzma.compress(
        json.dumps(document, separators=(",", ":"), sort_keys=True).encode(), preset=9 | lzma.PRESET_EXTREME
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return len(data)


def read_trace(path: Path) -> dict[str, Any]:
    """Read a trace file written by :func:`write_trace`.

    Raises:
        ValueError: the file is not a realmd trace of a version this reads.
    """
    document = json.loads(lzma.decompress(Path(path).read_bytes()))
    if document.get("format") != FORMAT or document.get("version") != VERSION:
        raise ValueError(f"{path}: not a {FORMAT} v{VERSION} file")
    return document
