"""Record the kernel's md files as a compact trace, and replay them as a root.

Inside the guest a scenario calls :meth:`TraceWriter.step` at each moment
worth keeping (right next to ``Sampler(root="/").sample()``); each step is one
JSON file holding /proc/mdstat, every readable file and symlink under
/sys/block/md*/md/ and /proc/sys/dev/raid/*. On the host,
:func:`load_trace` reads the steps back and :func:`materialize` writes one
step as a directory tree, so fast unit tests can point ``Sampler(root=...)``
at real kernel output without a VM.

Standard library only: it runs under the host's Python inside the guest.
"""

from __future__ import annotations

import json
import os
import re
import stat
import time
from pathlib import Path
from typing import Any
from collections.abc import Iterable

FORMAT_VERSION = 1
#: What a step captures, as globs relative to the root.
DEFAULT_SOURCES = ("proc/mdstat", "proc/sys/dev/raid/*", "sys/block/md*/md")


def _read_tree(path: Path, root: Path, files: dict[str, str], links: dict[str, str]) -> None:
    """Add ``path`` (file, symlink or folder, walked without following links)."""
    key = "/" + str(path.relative_to(root))
    try:
        info = path.lstat()
    except OSError:
        return  # vanished meanwhile (e.g. a member removed mid-walk)
    if stat.S_ISLNK(info.st_mode):
        links[key] = os.readlink(path)
    elif stat.S_ISDIR(info.st_mode):
        for child in sorted(path.iterdir()):
            _read_tree(child, root, files, links)
    elif stat.S_ISREG(info.st_mode) and info.st_mode & stat.S_IRUSR:
        try:
            files[key] = path.read_text(errors="replace")
        except OSError:
            pass  # some attributes refuse reads in some states (EIO, EBUSY)


def capture(label: str, root: Path = Path("/"), sources: Iterable[str] = DEFAULT_SOURCES) -> dict[str, Any]:
    """One step: the md files under ``root`` as they are now.

    Returns:
        ``{"v", "label", "monotonic", "wall", "files": {path: text},
        "links": {path: target}}`` with absolute guest paths as keys.
    """
    files: dict[str, str] = {}
    links: dict[str, str] = {}
    monotonic = time.monotonic()
    for pattern in sources:
        for path in sorted(root.glob(pattern)):
            _read_tree(path, root, files, links)
    return {
        "v": FORMAT_VERSION,
        "label": label,
        "monotonic": round(monotonic, 4),
        "wall": round(time.time(), 4),
        "files": files,
        "links": links,
    }


class TraceWriter:
    """Writes numbered steps (``0000-label.json``) into a folder.

    Keep the folder on tmpfs in the guest and copy it to ``$RESULTS`` once at
    the end: many small writes straight onto the 9p share are slow.
    """

    def __init__(self, out_dir: Path, root: Path = Path("/")) -> None:
        self.out_dir = Path(out_dir)
        self.root = root
        self.count = 0
        self.out_dir.mkdir(parents=True, exist_ok=True)

    def step(self, label: str, **extra: Any) -> dict[str, Any]:
        """Capture now and write the step; ``extra`` (JSON-able) is stored alongside."""
        record = capture(label, self.root)
        record.update(extra)
        safe_label = re.sub(r"[^A-Za-z0-9_.-]+", "-", label)[:40]
        path = self.out_dir / f"{self.count:04d}-{safe_label}.json"
        path.write_text(json.dumps(record, separators=(",", ":"), sort_keys=True))
        self.count += 1
        return record


def load_trace(trace_dir: Path) -> list[dict[str, Any]]:
    """The steps of a trace folder, in recording order."""
    return [json.loads(path.read_text()) for path in sorted(Path(trace_dir).glob("[0-9]*.json"))]


def materialize(step: dict[str, Any], root: Path) -> Path:
    """Write one step's files and symlinks under ``root``; returns ``root``."""
    for guest_path, text in step["files"].items():
        target = root / guest_path.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
    for guest_path, link_target in step["links"].items():
        link = root / guest_path.lstrip("/")
        link.parent.mkdir(parents=True, exist_ok=True)
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(link_target)
    return root


def main(argv: list[str] | None = None) -> int:
    """``python -m tests.realmd.trace OUT_DIR LABEL``: one step, for shell scenarios.

    A Python start costs 1-3 s in the guest; loops should use TraceWriter.
    """
    import sys

    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print("usage: python -m tests.realmd.trace OUT_DIR LABEL", file=sys.stderr)
        return 2
    out_dir = Path(args[0])
    writer = TraceWriter(out_dir)
    writer.count = len(list(out_dir.glob("[0-9]*.json")))
    writer.step(args[1])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
