"""The recordings that ship inside raidtop, by name, so ``--replay builtin:rebuild`` works anywhere.

A path into a clone (``raidtop/demo/data/rebuild.xz``) is not there after
``pipx install``, and a path into site-packages is not one a user can guess:
the name works from both. Kept free of the readers so the argument parser
can import it at startup.
"""

from __future__ import annotations

from pathlib import Path

BUILTIN_PREFIX = "builtin:"
"""What marks an argument as a bundled recording's name rather than a file."""
_DATA = Path(__file__).resolve().parent / "data"
BUNDLED_REBUILD = _DATA / "rebuild.xz"
"""A raid5 rebuild recorded from a real 6.1 kernel in the VM harness."""
BUNDLED_RECORDINGS: dict[str, tuple[Path, str]] = {
    "rebuild": (
        BUNDLED_REBUILD,
        # Provenance: raidtop's own recorder in tests/realmd's VM (Debian 12's 6.1 kernel, mdadm 4.2),
        # written by tests/realmd/guest_driver.py's rebuild_recording scenario (REALMD_UPDATE_DATA=1).
        "a raid5 (md6, loop disks) failing a member, taking a new disk and recovering onto it under fio "
        "load, 67 s, recorded by raidtop on a real 6.1 kernel",
    ),
}
"""Every bundled recording: its file (package data) and what it shows."""


def bundled_recording(text: str) -> Path | None:
    """The file named by ``builtin:NAME``; ``None`` when ``text`` is not such a name.

    Raises:
        KeyError: the name is not one of :data:`BUNDLED_RECORDINGS` (its message lists them).
    """
    if not text.startswith(BUILTIN_PREFIX):
        return None
    name = text.removeprefix(BUILTIN_PREFIX)
    if name not in BUNDLED_RECORDINGS:
        known = ", ".join(BUILTIN_PREFIX + n for n in BUNDLED_RECORDINGS)
        raise KeyError(f"no bundled recording {name!r}: raidtop ships {known}")
    return BUNDLED_RECORDINGS[name][0]
