"""Read a recording back: once, within fixed limits, and as far as it is readable.

A recording is written by someone else as far as this module knows: it may
be cut off by a crash, have a flipped bit, come from a newer raidtop, or be
made to hurt (an xz bomb, a FIFO, frames with absurd times, escape sequences
in its strings). So the file is opened once, without blocking and only if it
is a regular file (:func:`raidtop.safeio.read_bounded`); each xz stream is
decompressed on its own with a memory limit and a cap on its output; every
line is checked before it becomes a :class:`Frame`; every string that will
be shown is passed through :func:`raidtop.untrusted.plain`. What cannot be
used is skipped with a note that says what and where, and the rest replays.

Limits, from measurements (``raidtop record`` on the 2-CPU test VM): a sample
is about 6.6 KB of JSON before compression and 135 bytes after it (the
README's 10-device VM: about 420 bytes, so about 20 KB of JSON). A stream
holds 60 samples, so about 1.2 MB of JSON; the limits below leave room for a
machine a hundred times larger and stop a bomb in about a second.
"""

from __future__ import annotations

import bisect
import json
import lzma
import os
import re
import time
from dataclasses import dataclass, field
from typing import Any

from raidtop.collect.recording.lines import FORMAT, VERSION, Frame, parse_frame, parse_header
from raidtop.safeio import read_bounded
from raidtop.untrusted import plain
from raidtop.model.units import counted

__all__ = ["FORMAT", "VERSION", "Frame", "Recording", "RecordingError", "read_recording"]

MAX_FILE_BYTES = 256 * 1024 * 1024
"""Compressed bytes read at most (about 600,000 samples at 420 bytes)."""
MAX_STREAM_BYTES = 256 * 1024 * 1024
"""Decompressed bytes per xz stream (a stream is about 1.2 MB of JSON)."""
MAX_TOTAL_BYTES = 1024 * 1024 * 1024
"""Decompressed bytes per file: about 50,000 samples of 20 KB (14 hours at 1 s)."""
MAX_LINE_BYTES = 32 * 1024 * 1024
"""One frame (the first frame of a stream holds every file read, ~12 KB here)."""
MAX_FRAMES = 200_000
"""Frames kept at most (55 hours at 1 s), however small they are."""
MAX_STREAMS = 100_000
"""xz streams tried at most (a stream is 60 samples; tiny crafted ones cost time each)."""
MAX_BAD_LINES_PER_STREAM = 100
"""Past this many unreadable lines a stream is garbage, not a damaged frame."""
LZMA_MEMLIMIT = 128 * 1024 * 1024
"""Decoder memory: ``xz -9`` needs 65 MiB, raidtop's preset 6 needs 9 MiB."""

_XZ_MAGIC = b"\xfd7zXZ\x00"
_NOT_PADDING = re.compile(rb"[^\0]")
_READ_STEP = 4096
"""Small input steps: what decoded before a damaged byte is kept (the header, at least)."""
_OUTPUT_STEP = 1024 * 1024
_CHECKPOINT_EVERY = 50


class RecordingError(Exception):
    """A recording cannot be used at all (not one, or from a newer raidtop)."""


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


def read_recording(path: str | os.PathLike[str]) -> Recording:
    """Read a recording; what is damaged is skipped with a note, never raised.

    Raises :class:`RecordingError` (one sentence) only when nothing can be
    replayed: the file cannot be opened, is not a regular file, is not a
    raidtop recording, or comes from a newer raidtop.
    """
    name = plain(os.fspath(path))
    try:
        raw = read_bounded(path, MAX_FILE_BYTES)
    except OSError as exc:
        reason = getattr(exc, "reason", None) or exc.strerror or str(exc)
        raise RecordingError(f"{name}: cannot read the recording ({plain(reason)})") from None
    if not raw:
        raise RecordingError(f"{name}: not a raidtop recording (the file is empty)")
    # Five of six magic bytes right is an xz file with a flipped bit: read past it.
    if sum(a == b for a, b in zip(raw[:6], _XZ_MAGIC)) < 5:
        raise RecordingError(f"{name}: not a raidtop recording (not xz-compressed)")
    reader = _Reader(name)
    reader.read(raw)
    return reader.result()


class _Reader:
    """Decodes the streams of one file into frames and notes."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.header: dict[str, Any] | None = None
        self.header_lost = False
        self.frames: list[Frame] = []
        self.notes: list[str] = []
        self.total_bytes = 0
        self.bad_count = 0
        self.bad_first: list[tuple[float | None, str]] = []
        """Where the first few unreadable lines were, and why."""
        self.stopped = False

    # ------------------------------------------------------------ streams

    def read(self, raw: bytes) -> None:
        """Decode every stream of ``raw``; a damaged one is skipped up to the next xz header."""
        position, number = 0, 0
        while position < len(raw) and not self.stopped:
            if raw[position] == 0:
                padding_end = _NOT_PADDING.search(raw, position)  # xz allows zero bytes between streams
                if padding_end is None:
                    break
                position = padding_end.start()
            if position > 0 and not raw.startswith(_XZ_MAGIC, position):
                following = raw.find(_XZ_MAGIC, position + 1)
                skipped = (following if following > 0 else len(raw)) - position
                self.notes.append(
                    f"{self.name}: {skipped:,} bytes after {_clock(self._last_time())} are not xz data and are skipped"
                )
                if following < 0:
                    break
                position = following
            number += 1
            if number > MAX_STREAMS:
                self.notes.append(
                    f"{self.name}: the recording has more than {MAX_STREAMS:,} parts; "
                    f"replaying up to {_clock(self._last_time())}"
                )
                break
            before = self._last_time()
            ended_at, problem = self._stream(raw, position, number)
            if problem is None:
                position = ended_at
                continue
            following = raw.find(_XZ_MAGIC, position + 1)
            until = "the next readable part" if following > 0 else "the end"
            since = f"after {_clock(before)}" if before is not None else "the start"
            self.notes.append(
                f"{self.name}: part {number} of the recording {problem}; "
                f"the samples from {since} to {until} are skipped"
            )
            if following < 0:
                break
            position = following

    def _stream(self, raw: bytes, start: int, number: int) -> tuple[int, str | None]:
        """Decode one stream: where it ended, and what was wrong with it (``None``: nothing)."""
        decompressor = lzma.LZMADecompressor(lzma.FORMAT_XZ, memlimit=LZMA_MEMLIMIT)
        lines = _LineSplitter()
        pending: list[Frame] = []
        bad_before = (self.bad_count, len(self.bad_first))
        fed, produced, bad = start, 0, 0
        while True:
            if decompressor.needs_input:
                if fed >= len(raw):
                    # Cut off while being written: what decoded is a true prefix.
                    self._keep(pending)
                    self.notes.append(
                        f"{self.name}: the recording ends early at {_clock(self._last_time())} "
                        "(cut off while being written); replaying what is there"
                    )
                    return len(raw), None
                chunk = raw[fed : fed + _READ_STEP]
                fed += len(chunk)
            else:
                chunk = b""
            try:
                out = decompressor.decompress(chunk, max_length=_OUTPUT_STEP)
            except lzma.LZMAError as exc:
                # Output before a failed check is not trustworthy: drop the stream's frames.
                self._forget_bad_lines(bad_before)
                if "memory" in str(exc).lower():
                    return fed, f"needs more than {LZMA_MEMLIMIT >> 20} MiB of memory to decompress"
                return fed, f"is damaged ({plain(exc)})"
            produced += len(out)
            self.total_bytes += len(out)
            try:
                for line in lines.feed(out):
                    bad += self._line(line, number, pending)
            except _LineTooLong:
                self._keep(pending)
                return fed, f"holds a line longer than {MAX_LINE_BYTES >> 20} MiB"
            if bad > MAX_BAD_LINES_PER_STREAM:
                self._forget_bad_lines(bad_before)
                return fed, f"is damaged (more than {MAX_BAD_LINES_PER_STREAM} unreadable lines)"
            if produced > MAX_STREAM_BYTES:
                self._keep(pending)
                return fed, f"decompresses to more than {MAX_STREAM_BYTES >> 20} MiB"
            if self.total_bytes > MAX_TOTAL_BYTES or len(self.frames) + len(pending) > MAX_FRAMES:
                self._keep(pending)
                self.notes.append(
                    f"{self.name}: the recording is longer than raidtop replays ({MAX_TOTAL_BYTES >> 20} MiB "
                    f"or {MAX_FRAMES:,} samples); replaying up to {_clock(self._last_time())}"
                )
                self.stopped = True
                return len(raw), None
            if decompressor.eof:
                if lines.rest:
                    self._line(lines.rest, number, pending)  # the writer ends every line; count it as bad if it is
                self._keep(pending)
                return fed - len(decompressor.unused_data), None

    def _forget_bad_lines(self, before: tuple[int, int]) -> None:
        """A damaged stream's lines are garbage, not damaged samples: do not count them."""
        self.bad_count = before[0]
        del self.bad_first[before[1] :]

    def _keep(self, pending: list[Frame]) -> None:
        room = MAX_FRAMES - len(self.frames)
        self.frames.extend(pending[:room])
        pending.clear()

    def _last_time(self) -> float | None:
        return self.frames[-1].time if self.frames else None

    # ------------------------------------------------------------ lines

    def _line(self, line: bytes, stream: int, pending: list[Frame]) -> int:
        """Turn one line into the header or a frame; 1 if it was unreadable."""
        reason: str | None
        try:
            obj = json.loads(line)
        except (ValueError, RecursionError):
            obj, reason = None, "not JSON"
        else:
            reason = None
        if self.header is None and not self.header_lost and stream == 1:
            header = parse_header(obj)
            if isinstance(header, str):
                raise RecordingError(f"{self.name}: {header}")
            self.header = header
            return 0
        # A first line from a later stream: stream 1 (and the header) was lost.
        self.header_lost = self.header is None
        frame = parse_frame(obj) if reason is None else reason
        if isinstance(frame, str):
            self.bad_count += 1
            if len(self.bad_first) < 3:
                self.bad_first.append((pending[-1].time if pending else self._last_time(), frame))
            return 1
        pending.append(frame)
        return 0

    def result(self) -> Recording:
        """The recording read, or :class:`RecordingError` when not one sample can be replayed."""
        if self.bad_count:
            places = ["after " + _clock(when) if when is not None else "at the start" for when, _ in self.bad_first]
            where = ", ".join(dict.fromkeys(places))
            more = ", …" if self.bad_count > len(self.bad_first) else ""
            count = self.bad_count
            self.notes.append(
                f"{self.name}: {counted(count, 'damaged sample')} skipped "
                f"({where}{more}; the first: {self.bad_first[0][1]})"
            )
        if not self.frames:
            if self.notes:
                raise RecordingError(self.notes[0] + "; nothing is left to replay")
            if self.header is None:
                raise RecordingError(f"{self.name}: not a raidtop recording (nothing in it could be read)")
            raise RecordingError(f"{self.name}: the recording holds no samples")
        if self.header is None:
            self.header = {"format": FORMAT, "version": VERSION}
            self.notes.insert(
                0,
                f"{self.name}: the start of the recording is damaged (its header is lost); "
                f"replaying the rest as format {VERSION}",
            )
        return Recording(self.header, self.frames, self.notes)


class _LineTooLong(Exception):
    pass


class _LineSplitter:
    """Complete lines out of decompressed pieces, with a bound on one line."""

    def __init__(self) -> None:
        self._buffer = bytearray()

    @property
    def rest(self) -> bytes:
        return bytes(self._buffer)

    def feed(self, data: bytes) -> list[bytes]:
        self._buffer += data
        lines, start = [], 0
        while (end := self._buffer.find(b"\n", start)) >= 0:
            lines.append(bytes(self._buffer[start:end]))
            start = end + 1
        del self._buffer[:start]
        if len(self._buffer) > MAX_LINE_BYTES:
            raise _LineTooLong
        return lines


def _clock(when: float | None) -> str:
    """A recorded time as the time bar shows it."""
    if when is None:
        return "the start"
    return time.strftime("%H:%M:%S", time.localtime(when))
