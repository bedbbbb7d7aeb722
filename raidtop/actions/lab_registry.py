"""The lab's registry of the loop devices and md arrays raidtop itself created.

Benchmarks may write to a raw block device only when raidtop's lab made it
(or the user names the device explicitly), so the lab records what it creates
in one JSON file and this module reads it::

    {
      "version": 1,
      "devices": [
        {"name": "loop7", "kind": "loop", "backing_file": "/var/lib/raidtop/lab/d0.img", "inode": 1234, "created": 1700000000.0},
        {"name": "md127", "kind": "md", "members": ["loop7", "loop8"], "created": 1700000001.0}
      ]
    }

An entry alone is not trusted: loop numbers are reused once a device is
detached, so a loop entry counts only while ``/sys/block/<name>/loop/backing_file``
still names the registered file (and, when the entry has an ``inode``, while
the file the kernel holds open is that inode), and an md entry only while
every member it has now is itself a live lab loop device.

Contract with the lab (:mod:`raidtop.actions.lab`), which writes the file:

* The lab keeps its registry in the lab directory, ``$RAIDTOP_LAB_DIR`` or
  ``$XDG_DATA_HOME/raidtop/lab`` (:func:`default_lab_dir`), as
  ``registry.json`` (:func:`lab_registry_path`). Its document is a superset
  of the one above: it adds ``images`` and ``arrays`` (every file, loop
  device and array it created, with timelines) and regenerates ``devices``
  from them on every write. Readers here ignore the keys they do not know;
  :func:`write_registry` must not be pointed at the lab's file (it would
  drop those keys).
* :func:`read_registry` with no path reads both the lab's file and the older
  ``$XDG_STATE_HOME/raidtop/lab-devices.json`` (:func:`registry_path`, kept
  for callers and tests that write entries by hand).
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from raidtop.actions.lab.loopdev import loop_backing
from raidtop.collect.source import Root, SourceError, as_root
from raidtop.config import xdg_dir

REGISTRY_VERSION = 1
LAB_DIR_ENV = "RAIDTOP_LAB_DIR"
"""Environment variable that moves the lab directory (tests, a second lab)."""


@dataclass(frozen=True, slots=True)
class LabDevice:
    """One registry entry."""

    name: str
    """Kernel name: ``loop7``, ``md127``."""
    kind: str
    """``loop`` or ``md``."""
    backing_file: str | None = None
    """For a loop device: the image file it was attached to."""
    members: tuple[str, ...] = ()
    """For an md array: the loop devices it was built from."""
    created: float | None = None
    inode: int | None = None
    """For a loop device: the backing file's inode, when the writer recorded it."""


def registry_path() -> Path:
    """``$XDG_STATE_HOME/raidtop/lab-devices.json``."""
    return xdg_dir("state") / "lab-devices.json"


def default_lab_dir() -> Path:
    """The lab directory: ``$RAIDTOP_LAB_DIR``, else ``$XDG_DATA_HOME/raidtop/lab``."""
    override = os.environ.get(LAB_DIR_ENV)
    return Path(override) if override else xdg_dir("data") / "lab"


def lab_registry_path(lab_dir: Path | None = None) -> Path:
    """The lab's own registry file, ``registry.json`` in the lab directory."""
    return (lab_dir or default_lab_dir()) / "registry.json"


def read_registry(path: Path | None = None) -> tuple[LabDevice, ...]:
    """Every well-formed entry; a missing or damaged file means no lab devices.

    With no ``path``, the lab's registry and the state-dir file are both read.
    """
    if path is None:
        seen: dict[str, LabDevice] = {}
        for candidate in (registry_path(), lab_registry_path()):
            for entry in _read_one(candidate):
                seen.setdefault(entry.name, entry)
        return tuple(seen.values())
    return _read_one(path)


def _read_one(path: Path) -> tuple[LabDevice, ...]:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ()
    if not isinstance(doc, dict) or not isinstance(doc.get("devices"), list):
        return ()
    entries = []
    for raw in doc["devices"]:
        if not isinstance(raw, dict) or not isinstance(raw.get("name"), str) or raw.get("kind") not in ("loop", "md"):
            continue
        backing = raw.get("backing_file")
        members = raw.get("members") or []
        created = raw.get("created")
        inode = raw.get("inode")
        entries.append(
            LabDevice(
                name=raw["name"],
                kind=raw["kind"],
                backing_file=backing if isinstance(backing, str) else None,
                members=tuple(m for m in members if isinstance(m, str)) if isinstance(members, list) else (),
                created=float(created) if isinstance(created, (int, float)) else None,
                inode=inode if isinstance(inode, int) and not isinstance(inode, bool) else None,
            )
        )
    return tuple(entries)


def write_registry(entries: tuple[LabDevice, ...] | list[LabDevice], path: Path | None = None) -> Path:
    """Replace the registry atomically (for the lab, and for tests)."""
    path = path or registry_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    doc = {
        "version": REGISTRY_VERSION,
        "devices": [
            {
                "name": e.name,
                "kind": e.kind,
                **({"backing_file": e.backing_file} if e.backing_file else {}),
                **({"members": list(e.members)} if e.members else {}),
                **({"created": e.created} if e.created is not None else {}),
                **({"inode": e.inode} if e.inode is not None else {}),
            }
            for e in entries
        ],
    }
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".lab-devices.")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(doc, handle, indent=1)
    os.replace(tmp, path)
    return path


def is_lab_device(name: str, *, path: Path | None = None, root: Root | str = "/") -> bool:
    """True when ``name`` (``loop7``, ``/dev/md127``) is a live device raidtop's lab created."""
    root = as_root(root)
    name = os.path.basename(name)
    entries = {e.name: e for e in read_registry(path)}
    return _is_lab(name, entries, root, set())


def _is_lab(name: str, entries: dict[str, LabDevice], root: Root, seen: set[str]) -> bool:
    entry = entries.get(name)
    if entry is None or name in seen:
        return False
    seen.add(name)
    if entry.kind == "loop":
        if not entry.backing_file:
            return False
        # The kernel appends " (deleted)" when the image was unlinked: still the same device.
        current = loop_backing(name, root)
        if current is None or current.path != entry.backing_file:
            return False
        # Same path, other file (recreated image): not ours. Unknown inode: refuse too.
        return entry.inode is None or current.inode == entry.inode
    try:
        members = root.listdir(f"/sys/block/{name}/slaves")
    except SourceError:  # the array is gone
        return False
    return bool(members) and all(_is_lab(member, entries, root, seen) for member in members)
