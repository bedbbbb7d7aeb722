"""A guard that records file, directory, subprocess and SQLite access made from the UI thread.

Textual runs the event loop on the main thread; raidtop's screens must do
every read and write in thread workers. Python's audit hooks see each
``open``, ``os.listdir``/``os.scandir``, ``subprocess.Popen`` and
``sqlite3.connect``; the hook below keeps those made on the main thread
whose path lies under one of the watched folders (the test's fixture root
and XDG dirs), so Textual's own reads and pytest's do not count.

An audit hook cannot be removed: it is installed once per process and does
nothing unless a test is inside :func:`watching`.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

_EVENTS = {
    "open",
    "os.listdir",
    "os.scandir",
    "subprocess.Popen",
    "sqlite3.connect",
    "os.mkdir",
    "os.rename",
    "os.remove",
    "os.chmod",
}
_watched: tuple[str, ...] = ()
_seen: list[tuple[str, str, str]] = []
_installed = False


def _path_of(event: str, args: tuple) -> str | None:
    if not args:
        return None
    first = args[1] if event == "subprocess.Popen" else args[0]
    if event == "subprocess.Popen":
        # The program and its argv: any process started from the UI thread counts.
        return "<process> " + " ".join(map(str, first or ()))
    if isinstance(first, int):
        return f"<fd {first}>"
    try:
        return os.fsdecode(first)
    except TypeError:
        return None


def _hook(event: str, args: tuple) -> None:
    if not _watched or event not in _EVENTS or threading.current_thread() is not threading.main_thread():
        return
    path = _path_of(event, args)
    if path is None:
        return
    if path.startswith("<process>") or any(path == w or path.startswith(w + os.sep) for w in _watched):
        _seen.append((event, path, _caller()))


def _caller() -> str:
    """The innermost raidtop screen or widget frame that led here: where to fix it."""
    frame = sys._getframe(2)
    while frame is not None:
        name = frame.f_code.co_filename
        if (
            f"{os.sep}raidtop{os.sep}screens{os.sep}" in name
            or f"{os.sep}raidtop{os.sep}widgets{os.sep}" in name
            or name.endswith(f"{os.sep}raidtop{os.sep}app.py")
        ):
            return f"{Path(name).name}:{frame.f_lineno} {frame.f_code.co_name}"
        frame = frame.f_back
    return "?"


@contextmanager
def watching(*folders: Path) -> Iterator[list[tuple[str, str, str]]]:
    """Record main-thread I/O under ``folders`` while inside; yields the (event, path, caller) list."""
    global _watched, _installed
    if not _installed:
        sys.addaudithook(_hook)
        _installed = True
    _seen.clear()
    _watched = tuple(os.path.realpath(f) for f in folders) + tuple(os.fspath(f) for f in folders)
    try:
        yield _seen
    finally:
        _watched = ()
