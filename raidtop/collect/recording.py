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
(directory listing or error), ``l:<path>`` (symlink target or null) and
``e:<path>`` (exists). A frame that cannot be decoded ends the replay there,
with a note: a recording cut off by a crash still replays up to the damage.
"""

from __future__ import annotations

import bisect
import json
import lzma
import os
import socket
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from raidtop import __version__
from raidtop.collect.source import Root, SourceError

FORMAT = "raidtop-recording"
VERSION = 1
_CHECKPOINT_EVERY = 50


class RecordingError(Exception):
    """A recording cannot be used at all (not one, or from a newer raidtop)."""


class RecordingRoot(Root):
    """A live Root that also remembers every answer it gives, frame by frame."""

    def __init__(self, inner: Root) -> None:
        super().__init__(inner.path)
        self._inner = inner
        self.frame: dict[str, Any] = {}

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

    def read_optional(self, abs_path: str) -> str | None:
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

    def read_optional(self, abs_path: str) -> str | None:
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


class RecordingWriter:
    """Appends frames to an xz-compressed recording, storing only what changed."""

    def __init__(self, path: Path, interval_s: float, root: Root, frames_per_stream: int = 60) -> None:
        self.path = path
        self.frames_per_stream = frames_per_stream
        self._known: dict[str, Any] = {}
        self.frames = 0
        self.raw_bytes = 0
        self._compressor = lzma.LZMACompressor(preset=6)
        self._handle = open(path, "wb")
        header = {
            "format": FORMAT,
            "version": VERSION,
            "created": time.time(),
            "host": socket.gethostname() if root.is_live else str(root.path),
            "interval_s": interval_s,
            "raidtop": __version__,
        }
        self._write_line(header)

    def add(self, when: float, frame: dict[str, Any], events: list[dict] | None = None,
            actions: list[dict] | None = None) -> None:
        """Store one tick: the reads made (only changes are written), events and actions."""
        delta = {key: value for key, value in frame.items() if self._known.get(key, _MISSING) != value}
        self._known.update(delta)
        self._write_line({"t": when, "d": delta, "events": events or [], "actions": actions or []})
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


@dataclass
class Frame:
    """One recorded tick."""

    time: float
    delta: dict[str, Any]
    events: list[dict] = field(default_factory=list)
    actions: list[dict] = field(default_factory=list)


@dataclass
class Recording:
    """A recording read back: header, frames, and what could not be read."""

    header: dict[str, Any]
    frames: list[Frame]
    notes: list[str]
    _checkpoints: dict[int, dict[str, Any]] = field(default_factory=dict, repr=False)

    @property
    def start(self) -> float:
        """Time of the first frame."""
        return self.frames[0].time if self.frames else 0.0

    @property
    def end(self) -> float:
        """Time of the last frame."""
        return self.frames[-1].time if self.frames else 0.0

    def state_at(self, index: int) -> dict[str, Any]:
        """Every path's recorded answer as of frame ``index`` (deltas applied)."""
        base_index = (index // _CHECKPOINT_EVERY) * _CHECKPOINT_EVERY
        state = dict(self._checkpoints.get(base_index) or self._build_checkpoint(base_index))
        for frame in self.frames[base_index + 1 : index + 1]:
            state.update(frame.delta)
        return state

    def _build_checkpoint(self, base_index: int) -> dict[str, Any]:
        previous = base_index - _CHECKPOINT_EVERY
        if previous >= 0:
            state = dict(self._checkpoints.get(previous) or self._build_checkpoint(previous))
            frames = self.frames[previous + 1 : base_index + 1]
        else:
            state, frames = {}, self.frames[: base_index + 1]
        for frame in frames:
            state.update(frame.delta)
        self._checkpoints[base_index] = state
        return state

    def index_at(self, when: float) -> int:
        """The last frame at or before ``when`` (the first frame if earlier)."""
        times = [f.time for f in self.frames]
        return max(0, bisect.bisect_right(times, when) - 1)


def read_recording(path: Path) -> Recording:
    """Read a recording; a damaged tail is dropped with a note, never raised."""
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise RecordingError(f"{path}: cannot read ({exc.strerror})") from None
    notes: list[str] = []
    data, problem = _decompress_streams(raw)
    if problem == "truncated":
        notes.append(f"{path}: the recording ends early (cut off while being written); replaying what is there")
    elif problem == "damaged":
        notes.append(f"{path}: the recording is damaged; replaying up to the damage")
    lines = data.decode("utf-8", "replace").split("\n")
    try:
        header = json.loads(lines[0])
    except (ValueError, IndexError):
        raise RecordingError(f"{path}: not a raidtop recording") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise RecordingError(f"{path}: not a raidtop recording")
    version = header.get("version")
    if not isinstance(version, int) or version > VERSION:
        raise RecordingError(
            f"{path}: recorded by a newer raidtop (format {version}); this raidtop reads format {VERSION} — upgrade raidtop"
        )
    frames: list[Frame] = []
    for number, line in enumerate(lines[1:], start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
            frames.append(Frame(float(obj["t"]), dict(obj["d"]), list(obj.get("events", [])), list(obj.get("actions", []))))
        except (ValueError, KeyError, TypeError):
            notes.append(f"{path}: frame {number} is damaged; the replay stops before it")
            break
    return Recording(header, frames, notes)


def _decompress_streams(raw: bytes) -> tuple[bytes, str | None]:
    """Decompress concatenated xz streams, keeping whatever precedes damage."""
    out = bytearray()
    rest = raw
    while rest:
        decompressor = lzma.LZMADecompressor()
        # Feed in pieces so the output before a damaged byte is kept.
        for start in range(0, len(rest), 65536):
            try:
                out += decompressor.decompress(rest[start : start + 65536])
            except lzma.LZMAError:
                return bytes(out), "damaged" if out else "damaged"
            if decompressor.eof:
                break
        if not decompressor.eof:
            return bytes(out), "truncated"
        rest = decompressor.unused_data
    return bytes(out), None
