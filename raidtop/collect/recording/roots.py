"""Record what the sampler reads, and replay it through the same readers.

A recording is exactly the raw input raidtop's readers saw: every file read,
directory listed, symlink followed and existence checked, per tick. Because
every reader goes through a :class:`~raidtop.collect.source.Root`, recording
is a Root that remembers its answers and replaying is a Root that gives them
back, so a replay runs the very same parsers and rate code as the live run
and produces equal snapshots, notes included.

File format (version 1): JSON lines compressed as a sequence of xz streams
(a new stream every ``frames_per_stream`` frames, so a crash loses at most
the frames of the unfinished stream). The first line is a
header ``{"format": "raidtop-recording", "version": 1, ...}``; each further
line is one frame ``{"t": time, "d": {key: value}, "events": [...],
"actions": [...]}`` holding only the entries that changed since the previous
frame (most files change little, and xz's large window compresses the rest).
Keys are ``f:<path>`` (file text, or ``{"error": msg}``), ``d:<path>``
(directory listing or error), ``l:<path>`` (symlink target or null),
``e:<path>`` (exists) and ``w:<source>`` (an optional source the screen
showed, such as ``w:processes``; written once it was first on); ``s:<disk>`` is a disk's SMART reading (SmartHealth as
a dict, stored when it changes) and ``S:`` the disks that had one. The first frame of every stream holds every answer
known so far and is marked ``"k": true``, so the streams after a damaged one
replay exactly (older readers simply apply it as a delta). Reading a file
back, within limits and past damage, is :mod:`raidtop.collect.recording.read`.
"""

from __future__ import annotations

import errno
import json
import lzma
import os
import socket
import time
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from raidtop import __version__
from raidtop.collect.recording.read import FORMAT, VERSION, Frame, Recording, RecordingError, read_recording
from raidtop.collect.smart.parse import health_from_dict
from raidtop.collect.source import Root, SourceError
from raidtop.safeio import UnsafeFile

if TYPE_CHECKING:
    from raidtop.collect.held_records import HeldRecords

__all__ = [
    "FORMAT",
    "VERSION",
    "Frame",
    "Recording",
    "RecordingError",
    "RecordingRoot",
    "RecordingWriter",
    "ReplayRoot",
    "read_recording",
]


class RecordingRoot(Root):
    """A live Root that also remembers every answer it gives, frame by frame."""

    def __init__(self, inner: Root) -> None:
        super().__init__(inner.path)
        self._inner = inner
        self.frame: dict[str, Any] = {}
        self._smart_dicts: dict[str, tuple[Any, dict]] = {}
        self._shown: set[str] = set()

    @property
    def is_live(self) -> bool:
        return self._inner.is_live

    def take_frame(self) -> dict[str, Any]:
        """Everything read since the last call (and start a new frame)."""
        frame, self.frame = self.frame, {}
        return frame

    def read_text(self, abs_path: str) -> str:
        try:
            text = self._inner.read_text(abs_path)
        except SourceError as exc:
            self.frame[f"f:{abs_path}"] = {"error": str(exc)}
            raise
        self.frame[f"f:{abs_path}"] = text
        return text

    def read_optional(
        self, abs_path: str, *, single_record: bool = False, held: HeldRecords | None = None
    ) -> str | None:
        try:
            return self.read_text(abs_path)
        except SourceError:
            return None

    def listdir(self, abs_path: str) -> list[str]:
        try:
            entries = self._inner.listdir(abs_path)
        except SourceError as exc:
            self.frame[f"d:{abs_path}"] = {"error": str(exc)}
            raise
        self.frame[f"d:{abs_path}"] = entries
        return entries

    def exists(self, abs_path: str) -> bool:
        answer = self._inner.exists(abs_path)
        self.frame[f"e:{abs_path}"] = answer
        return answer

    def readlink(self, abs_path: str) -> str | None:
        target = self._inner.readlink(abs_path)
        self.frame[f"l:{abs_path}"] = target
        return target

    def shown(self, name: str, wanted: bool) -> bool:
        # Stored from the first time it is on, so recordings made without it stay as they were.
        if wanted or f"w:{name}" in self._shown:
            self._shown.add(f"w:{name}")
            self.frame[f"w:{name}"] = wanted
        return wanted

    def smart_answers(self, results: dict) -> dict:
        """Keep each disk's SMART result as ``s:<disk>`` (written only when it changed) and ``S:`` (the disks)."""
        converted = {}
        for disk, health in results.items():
            known = self._smart_dicts.get(disk)
            # The poller publishes a new object only for a new reading: convert once per reading.
            converted[disk] = known if known is not None and known[0] is health else (health, asdict(health))
            self.frame[f"s:{disk}"] = converted[disk][1]
        self._smart_dicts = converted
        self.frame["S:"] = sorted(results)
        return results


class ReplayRoot(Root):
    """Answers the readers from a recorded state instead of the filesystem."""

    def __init__(self, label: str = "replay") -> None:
        super().__init__(label)
        self.state: dict[str, Any] = {}

    @property
    def is_live(self) -> bool:
        return False

    def read_text(self, abs_path: str) -> str:
        value = self.state.get(f"f:{abs_path}")
        if isinstance(value, str):
            return value
        if isinstance(value, dict):
            raise SourceError(value.get("error", f"{abs_path}: not readable"))
        raise SourceError(f"{abs_path}: not present")

    def read_optional(
        self, abs_path: str, *, single_record: bool = False, held: HeldRecords | None = None
    ) -> str | None:
        value = self.state.get(f"f:{abs_path}")
        return value if isinstance(value, str) else None

    def listdir(self, abs_path: str) -> list[str]:
        value = self.state.get(f"d:{abs_path}")
        if isinstance(value, list):
            return list(value)
        if isinstance(value, dict):
            raise SourceError(value.get("error", f"{abs_path}: not readable"))
        raise SourceError(f"{abs_path}: not present")

    def exists(self, abs_path: str) -> bool:
        value = self.state.get(f"e:{abs_path}")
        if value is None:
            # Asked in replay but never in the live run: a file or directory
            # that was read exists, anything else does not.
            return isinstance(self.state.get(f"f:{abs_path}"), str) or isinstance(self.state.get(f"d:{abs_path}"), list)
        return bool(value)

    def readlink(self, abs_path: str) -> str | None:
        value = self.state.get(f"l:{abs_path}")
        return value if isinstance(value, str) else None

    def shown(self, name: str, wanted: bool) -> bool:
        """What the live run read at this frame, whatever the replay's screen shows."""
        return self.state.get(f"w:{name}") is True

    def smart_answers(self, results: dict) -> dict:
        """The SMART results recorded at this frame (a recording without SMART: none)."""
        disks = self.state.get("S:")
        if not isinstance(disks, list):
            return {}
        found = {}
        for disk in disks[:4096]:
            if isinstance(disk, str):
                health = health_from_dict(self.state.get(f"s:{disk}"), disk)
                if health is not None:
                    found[health.disk] = health
        return found


class RecordingWriter:
    """Appends frames to an xz-compressed recording, storing only what changed."""

    def __init__(self, path: Path, interval_s: float, root: Root, frames_per_stream: int = 60) -> None:
        self.path = path
        self.frames_per_stream = frames_per_stream
        self._known: dict[str, Any] = {}
        self.frames = 0
        self.raw_bytes = 0
        self._compressor = lzma.LZMACompressor(preset=6)
        self._handle = os.fdopen(create_new_file(path), "wb")
        header = {
            "format": FORMAT,
            "version": VERSION,
            "created": time.time(),
            "host": socket.gethostname() if root.is_live else str(root.path),
            "interval_s": interval_s,
            "raidtop": __version__,
        }
        self._write_line(header)

    def add(
        self, when: float, frame: dict[str, Any], events: list[dict] | None = None, actions: list[dict] | None = None
    ) -> None:
        """Store one tick: the reads made (only changes are written), events and actions."""
        delta = {key: value for key, value in frame.items() if self._known.get(key, _MISSING) != value}
        self._known.update(delta)
        line = {"t": when, "d": delta, "events": events or [], "actions": actions or []}
        if self.frames % self.frames_per_stream == 0:
            # A stream starts with everything known, so it replays even if the one before is lost.
            line.update(d=dict(self._known), k=True)
        self._write_line(line)
        self.frames += 1
        if self.frames % self.frames_per_stream == 0:
            # End this xz stream so everything so far survives a crash.
            self._handle.write(self._compressor.flush())
            self._handle.flush()
            self._compressor = lzma.LZMACompressor(preset=6)

    def _write_line(self, obj: dict) -> None:
        data = (json.dumps(obj, separators=(",", ":")) + "\n").encode()
        self.raw_bytes += len(data)
        self._handle.write(self._compressor.compress(data))

    def close(self) -> None:
        """Finish the xz stream so the file is complete."""
        if self._handle.closed:
            return
        self._handle.write(self._compressor.flush())
        self._handle.close()

    @property
    def size_bytes(self) -> int:
        """Bytes on disk so far (the compressor holds some back until close)."""
        try:
            return os.path.getsize(self.path)
        except OSError:
            return 0


_MISSING = object()


def create_new_file(path: str | os.PathLike[str], mode: int = 0o600) -> int:
    """Create ``path`` for writing and return its descriptor; never open what is already there.

    ``O_EXCL|O_NOFOLLOW``: an existing file, device or symlink (even a
    dangling one) is refused with :class:`~raidtop.safeio.UnsafeFile`, so a
    mistyped ``-o /dev/sda`` or a planted link cannot be overwritten.
    """
    try:
        return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, mode)
    except FileExistsError:
        raise UnsafeFile(path, "already exists; raidtop writes a recording only to a new file") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UnsafeFile(path, "is a symbolic link; raidtop does not follow it") from None
        raise
