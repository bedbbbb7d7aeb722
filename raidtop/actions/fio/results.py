"""Parse fio's JSON output (fio 2.1 to 3.x) into frozen dataclasses.

fio's JSON changed over the years, and this module is the one place that knows:

- ``io_bytes`` was KiB until fio 3 added ``io_kbytes`` and made it bytes;
- bandwidth ``bw`` is KiB/s everywhere, ``bw_bytes`` (bytes/s) exists from 3.x;
- latencies were microseconds in ``clat``/``lat`` and became nanoseconds in
  ``clat_ns``/``lat_ns`` (fio 3.0);
- ``total_ios`` is missing from 2.1 output, so it is estimated from IOPS × runtime.

Latency figures are completion latency (``clat``), the one fio computes
percentiles for by default; when a job reports only ``lat`` percentiles
(``lat_percentiles=1, clat_percentiles=0``) those are used and the basis says so.

A job's numbers are summed within a reporting group (jobs in a group run at
the same time); across groups, which fio runs one after another, rates are
total I/O over total group runtime.

Nothing here raises on bad input: :func:`parse_fio_json` returns a
:class:`ParseResult` whose ``message`` says what was wrong.
"""

from __future__ import annotations

import json
from typing import Any
from collections.abc import Iterable
from raidtop.model.frozen import frozen_dataclass

DIRECTIONS = ("read", "write")


@frozen_dataclass
class DirectionResult:
    """One direction (read or write) of a job, a group or a whole run."""

    iops: float = 0.0
    bw_bytes_s: float = 0.0
    """Bandwidth in bytes per second."""
    io_bytes: int = 0
    total_ios: int = 0
    runtime_ms: int = 0
    lat_mean_us: float | None = None
    """Mean completion latency in microseconds; ``None`` when no I/O was done."""
    lat_p99_us: float | None = None
    """99th percentile completion latency in microseconds; ``None`` when fio gave none."""
    lat_basis: str = "clat"
    """``clat`` (completion latency) or ``lat`` (total latency) — what the figures measure."""
    p99_exact: bool = True
    """False when several jobs were reported separately and p99 is the largest of theirs."""

    @property
    def active(self) -> bool:
        """True when this direction did any I/O."""
        return self.total_ios > 0 or self.io_bytes > 0

    @property
    def mib_s(self) -> float:
        """Bandwidth in MiB/s (2^20 bytes per second), as the export columns are named."""
        return self.bw_bytes_s / 2**20


@frozen_dataclass
class JobResult:
    """One entry of fio's ``jobs`` list (one job, or a whole group under group_reporting)."""

    name: str
    groupid: int
    read: DirectionResult
    write: DirectionResult
    error: int = 0
    """fio's error number for the job (0: none)."""


@frozen_dataclass
class FioResult:
    """A parsed fio run: its jobs and one summary per direction."""

    fio_version: str | None
    jobs: tuple[JobResult, ...]
    read: DirectionResult
    write: DirectionResult
    timestamp: int | None = None
    """Unix time fio wrote the output (fio 2.2+), else ``None``."""

    @property
    def errors(self) -> tuple[str, ...]:
        """One sentence per job that ended with an error."""
        return tuple(f"job {job.name}: fio error {job.error}" for job in self.jobs if job.error)

    def direction(self, name: str) -> DirectionResult:
        """``read`` or ``write`` by name."""
        return self.read if name == "read" else self.write


@frozen_dataclass
class ParseResult:
    """What :func:`parse_fio_json` found: a result, or a message saying why not."""

    result: FioResult | None
    message: str | None = None

    @property
    def ok(self) -> bool:
        """True when there is a result."""
        return self.result is not None


# ---------------------------------------------------------------- JSON stream


class JsonObjectSplitter:
    """Split a stream of concatenated JSON objects as fio prints them.

    With ``--status-interval`` fio writes one complete top-level object per
    interval to stdout, and may put warnings between them. This tracks brace
    depth outside strings, so an object is handed out as soon as its closing
    brace arrives, whatever the formatting; text outside objects is kept in
    :attr:`noise` for error messages.
    """

    def __init__(self) -> None:
        self._buffer: list[str] = []
        self._depth = 0
        self._in_string = False
        self._escape = False
        self.noise: list[str] = []
        self._noise_line: list[str] = []

    def feed(self, text: str) -> list[str]:
        """Add ``text``; return the objects (as text) completed by it."""
        done: list[str] = []
        for char in text:
            if self._depth == 0:
                if char == "{":
                    self._depth = 1
                    self._buffer = ["{"]
                    self._flush_noise()
                elif char == "\n":
                    self._flush_noise()
                else:
                    self._noise_line.append(char)
                continue
            self._buffer.append(char)
            if self._in_string:
                if self._escape:
                    self._escape = False
                elif char == "\\":
                    self._escape = True
                elif char == '"':
                    self._in_string = False
            elif char == '"':
                self._in_string = True
            elif char == "{":
                self._depth += 1
            elif char == "}":
                self._depth -= 1
                if self._depth == 0:
                    done.append("".join(self._buffer))
                    self._buffer = []
        return done

    @property
    def pending(self) -> str:
        """An object begun but not finished (a truncated tail)."""
        return "".join(self._buffer) if self._depth else ""

    def _flush_noise(self) -> None:
        line = "".join(self._noise_line).strip()
        if line:
            self.noise.append(line)
        self._noise_line = []


def split_json_objects(text: str) -> list[str]:
    """Every complete top-level JSON object in ``text``, in order."""
    return JsonObjectSplitter().feed(text)


# ---------------------------------------------------------------- parsing


def parse_fio_json(data: str | bytes | dict) -> ParseResult:
    """Parse fio's JSON output (text with possible warnings around it, or a dict).

    When the text holds several objects (``--status-interval``), the last one
    is the final result. Never raises: bad input gives ``result=None`` and a
    one-line ``message``.
    """
    if isinstance(data, dict):
        return parse_fio_dict(data)
    if isinstance(data, bytes):
        data = data.decode("utf-8", "replace")
    splitter = JsonObjectSplitter()
    objects = splitter.feed(data)
    if not objects:
        if splitter.pending:
            return ParseResult(
                None, f"fio output is truncated: a JSON object begins but never ends ({len(data)} bytes)"
            )
        first = data.strip().splitlines()[0][:120] if data.strip() else ""
        return ParseResult(None, f"no JSON object in fio output{': ' + first if first else ' (empty)'}")
    try:
        doc = json.loads(objects[-1])
    except ValueError as exc:
        return ParseResult(None, f"fio output is not valid JSON: {exc}")
    if not isinstance(doc, dict):
        return ParseResult(None, "fio output is JSON but not an object")
    return parse_fio_dict(doc)


def parse_fio_dict(doc: dict[str, Any]) -> ParseResult:
    """Parse one decoded fio JSON document."""
    jobs_raw = doc.get("jobs")
    if not isinstance(jobs_raw, list):
        return ParseResult(None, "fio JSON has no 'jobs' list")
    if not jobs_raw:
        return ParseResult(None, "fio JSON lists no jobs")
    jobs = []
    for index, raw in enumerate(jobs_raw):
        if not isinstance(raw, dict):
            return ParseResult(None, f"fio JSON job {index} is not an object")
        try:
            jobs.append(_job(raw, index))
        except (TypeError, ValueError, KeyError, AttributeError) as exc:
            return ParseResult(None, f"fio JSON job {index} ({raw.get('jobname', '?')}) is malformed: {exc!r}")
    version = doc.get("fio version")
    timestamp = doc.get("timestamp")
    result = FioResult(
        fio_version=str(version) if version is not None else None,
        jobs=tuple(jobs),
        read=summarise([job.read for job in jobs], [job.groupid for job in jobs]),
        write=summarise([job.write for job in jobs], [job.groupid for job in jobs]),
        timestamp=int(timestamp) if isinstance(timestamp, (int, float)) else None,
    )
    return ParseResult(result)


def _job(raw: dict[str, Any], index: int) -> JobResult:
    return JobResult(
        name=str(raw.get("jobname", f"job{index}")),
        groupid=int(raw.get("groupid", 0)),
        read=parse_direction(raw.get("read") or {}),
        write=parse_direction(raw.get("write") or {}),
        error=int(raw.get("error", 0) or 0),
    )


def parse_direction(section: dict[str, Any]) -> DirectionResult:
    """One ``read`` or ``write`` section of a job, units normalised."""
    if not isinstance(section, dict):
        raise TypeError(f"direction section is {type(section).__name__}, not an object")
    # fio 3 added io_kbytes and turned io_bytes into bytes; before, io_bytes was KiB.
    if "io_kbytes" in section:
        io_bytes = int(section.get("io_bytes", 0))
    else:
        io_bytes = int(section.get("io_bytes", 0)) * 1024
    if "bw_bytes" in section:
        bw = float(section["bw_bytes"])
    else:
        bw = float(section.get("bw", 0)) * 1024
    iops = float(section.get("iops", 0))
    runtime_ms = int(section.get("runtime", 0))
    total_ios = section.get("total_ios")
    # fio 2.1 has no total_ios: IOPS × runtime is what it was computed from.
    total = int(total_ios) if total_ios is not None else round(iops * runtime_ms / 1000)
    mean, p99, basis = _latency(section)
    active = total > 0 or io_bytes > 0
    return DirectionResult(
        iops=iops,
        bw_bytes_s=bw,
        io_bytes=io_bytes,
        total_ios=total,
        runtime_ms=runtime_ms,
        lat_mean_us=mean if active else None,
        lat_p99_us=p99 if active else None,
        lat_basis=basis,
    )


def _latency(section: dict[str, Any]) -> tuple[float | None, float | None, str]:
    """Mean and p99 in microseconds, and which latency they describe."""
    stats: dict[str, tuple[dict, float]] = {}
    for basis in ("clat", "lat"):
        if isinstance(section.get(f"{basis}_ns"), dict):
            stats[basis] = (section[f"{basis}_ns"], 1 / 1000)
        elif isinstance(section.get(basis), dict):
            stats[basis] = (section[basis], 1.0)
    # Percentiles decide the basis: mean and p99 must describe the same latency.
    basis = "clat"
    clat_usable = "clat" in stats and _percentiles(stats["clat"][0])
    if not clat_usable and "lat" in stats and _percentiles(stats["lat"][0]):
        basis = "lat"
    if basis not in stats:
        basis = "lat" if "lat" in stats else "clat"
    if basis not in stats:
        return None, None, basis
    block, scale = stats[basis]
    mean = block.get("mean")
    mean_us = float(mean) * scale if isinstance(mean, (int, float)) else None
    p99 = percentile(block, 99.0)
    return mean_us, (p99 * scale if p99 is not None else None), basis


def _percentiles(block: dict) -> dict:
    value = block.get("percentile")
    return value if isinstance(value, dict) else {}


def percentile(block: dict, wanted: float) -> float | None:
    """The value fio lists for percentile ``wanted`` (keys look like ``99.000000``)."""
    for key, value in _percentiles(block).items():
        try:
            if abs(float(key) - wanted) < 1e-9:
                return float(value)
        except ValueError:
            continue
    return None


def summarise(directions: Iterable[DirectionResult], groupids: Iterable[int]) -> DirectionResult:
    """Combine per-job results: sum within a group, time-weight across groups.

    Jobs of one group run concurrently, so their IOPS and bandwidth add up;
    groups run one after another, so the run's rate is total I/O over the
    summed group runtimes. Mean latency is weighted by I/O count. Percentiles
    of separately reported jobs cannot be merged exactly: p99 is then the
    largest job p99 and ``p99_exact`` is False.
    """
    groups: dict[int, list[DirectionResult]] = {}
    for direction, group in zip(directions, groupids):
        groups.setdefault(group, []).append(direction)
    merged = [_merge_group(members) for _, members in sorted(groups.items())]
    active = [g for g in merged if g.active]
    if not active:
        return DirectionResult(lat_basis=merged[0].lat_basis if merged else "clat")
    if len(active) == 1:
        return active[0]
    runtime_ms = sum(g.runtime_ms for g in active)
    seconds = runtime_ms / 1000
    total_ios = sum(g.total_ios for g in active)
    io_bytes = sum(g.io_bytes for g in active)
    return DirectionResult(
        iops=total_ios / seconds if seconds else sum(g.iops for g in active),
        bw_bytes_s=io_bytes / seconds if seconds else sum(g.bw_bytes_s for g in active),
        io_bytes=io_bytes,
        total_ios=total_ios,
        runtime_ms=runtime_ms,
        lat_mean_us=_weighted_mean(active),
        lat_p99_us=_max_p99(active),
        lat_basis=active[0].lat_basis,
        p99_exact=False,
    )


def _merge_group(members: list[DirectionResult]) -> DirectionResult:
    active = [m for m in members if m.active]
    if len(members) == 1 or not active:
        return members[0]
    if len(active) == 1:
        return active[0]
    return DirectionResult(
        iops=sum(m.iops for m in active),
        bw_bytes_s=sum(m.bw_bytes_s for m in active),
        io_bytes=sum(m.io_bytes for m in active),
        total_ios=sum(m.total_ios for m in active),
        runtime_ms=max(m.runtime_ms for m in active),
        lat_mean_us=_weighted_mean(active),
        lat_p99_us=_max_p99(active),
        lat_basis=active[0].lat_basis,
        p99_exact=False,
    )


def _weighted_mean(parts: list[DirectionResult]) -> float | None:
    pairs = [(p.lat_mean_us, p.total_ios) for p in parts if p.lat_mean_us is not None]
    weight = sum(w for _, w in pairs)
    if not pairs or weight == 0:
        return None
    return sum(m * w for m, w in pairs) / weight


def _max_p99(parts: list[DirectionResult]) -> float | None:
    values = [p.lat_p99_us for p in parts if p.lat_p99_us is not None]
    return max(values) if values else None
