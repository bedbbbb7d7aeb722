"""/proc/mdstat's lines, cleaned of mail and paste damage and sorted into one entry per array.

The first half of the parser (see :mod:`raidtop.collect.md.mdstat`): which line
belongs to which array and whether it is its status, progress or bitmap line.
What the lines mean is :mod:`raidtop.collect.md.mdstat_array`'s job; the
patterns both halves match are here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

PERSONALITIES = re.compile(r"^\s*Personalities\s*:", re.IGNORECASE)
UNUSED = re.compile(r"^\s*unused\s+devices\s*:", re.IGNORECASE)
HEADER = re.compile(r"^\s*(?P<name>[^\s:\[\]()]+)\s*:\s*(?P<rest>.*)$")
ARRAY_WORDS = ("active", "inactive", "broken")
MEMBER = re.compile(r"^(?P<dev>[^\s\[\]()]+)\[(?P<num>\d+)\](?P<flags>(?:\([A-Za-z]\))*)$")
LEVEL = re.compile(r"^(?:raid\d+|linear|multipath|faulty|container)$")
QUOTE = re.compile(r"^\s*(?:>\s?)+")

BLOCKS = re.compile(r"(\d+)\s+blocks\b")
SUPER = re.compile(r"\bsuper\s+(\S+)")
CHUNK = re.compile(r"(\d+)\s*[kK]\s+chunks?\b")
ALGORITHM = re.compile(r"\balgorithm\s+(\d+)")
COPIES = re.compile(r"(\d+)\s+(near|far|offset)-copies")
ROUNDING = re.compile(r"(\d+)\s*[kK]\s+rounding")
COUNTS = re.compile(r"\[(\d+)/(\d+)\]")
PATTERN = re.compile(r"\[([U_]+)\]")
LEVEL_N = re.compile(r"\blevel\s+\d+")
STATUS_FEATURES = (BLOCKS, SUPER, CHUNK, ALGORITHM, COPIES, ROUNDING, COUNTS, PATTERN, LEVEL_N)

PROGRESS = re.compile(r"\b(resync|recovery|reshape|check|repair)\s*=\s*(\d+(?:\.\d+)?)\s*%")
PROGRESS_PARTS = re.compile(r"\(\s*\d+\s*/\s*\d+\s*\)|\bfinish\s*=|\bspeed\s*=")
DONE_TOTAL = re.compile(r"\(\s*(\d+)\s*/\s*(\d+)\s*\)")
FINISH = re.compile(r"\bfinish\s*=\s*(\d+(?:\.\d+)?)\s*min")
SPEED = re.compile(r"\bspeed\s*=\s*(\d+)\s*K/sec")
WAITING = re.compile(r"\bresync\s*=\s*(DELAYED|PENDING|REMOTE)\b", re.IGNORECASE)
BITMAP = re.compile(
    r"bitmap:\s*(\d+)\s*/\s*(\d+)\s+pages\s*\[\s*(\d+)\s*KB\s*\]\s*,\s*(\d+)\s*(KB|MB|B)?\s+chunk"
    r"(?:\s*,\s*file:\s*(?P<file>\S.*?))?\s*$"
)

FILE_NOTE = "/proc/mdstat: "
"""Starts every note about the whole file rather than one array."""


@dataclass(slots=True)
class ArrayLines:
    """One array's lines while they are being collected."""

    name: str
    header: str
    status_text: list[str] = field(default_factory=list)
    progress_text: list[str] = field(default_factory=list)
    waiting: str | None = None
    bitmap_line: str | None = None
    extra_members: list[str] = field(default_factory=list)
    complete: bool = False
    notes: list[str] = field(default_factory=list)


def split_into_arrays(text: str) -> tuple[list[ArrayLines], list[str]]:
    """Each array's lines, in file order, and notes about the file as a whole."""
    notes: list[str] = []
    lines = _clean_lines(text, notes)
    blocks: list[ArrayLines] = []
    current: ArrayLines | None = None
    seen_personalities = seen_unused = False
    orphans = 0

    for line in lines:
        stripped = line.strip()
        if not stripped:
            if current is not None:
                current.complete = True
                current = None
            continue
        if PERSONALITIES.match(stripped):
            seen_personalities = True
            continue
        if UNUSED.match(stripped):
            seen_unused = True
            if current is not None:
                current.complete = True
                current = None
            continue
        header = _match_header(stripped)
        if header is not None:
            if current is not None:
                current.complete = True
            current = ArrayLines(name=header[0], header=header[1])
            blocks.append(current)
            continue
        if current is None:
            orphans += 1
            continue
        _add_detail(current, stripped)

    if orphans:
        notes.append(f"{FILE_NOTE}{orphans} line(s) outside any array entry were not understood")
    if not seen_personalities and (blocks or text.strip()):
        notes.append(f"{FILE_NOTE}no 'Personalities' line; the copy may be incomplete")
    if not seen_unused and (blocks or text.strip()):
        notes.append(f"{FILE_NOTE}no 'unused devices' line at the end; the copy may be cut short")
    return blocks, notes


def _clean_lines(text: str, notes: list[str]) -> list[str]:
    """Undo what mail and pasting do to the file before it is parsed."""
    if "=3D" in text:
        # Quoted-printable mail body: "=3D" is "=" and a trailing "=" joins lines.
        import quopri  # only a mail-damaged paste needs it: not loaded for the live file

        text = quopri.decodestring(text.encode("utf-8", "replace")).decode("utf-8", "replace")
        notes.append(f"{FILE_NOTE}decoded a quoted-printable mail copy")
    text = text.replace("\r", "").replace("\xa0", " ")
    lines = text.split("\n")
    if any(QUOTE.match(line) for line in lines):
        lines = [QUOTE.sub("", line) for line in lines]
        notes.append(f"{FILE_NOTE}removed '>' mail quoting")
    return lines


def _match_header(stripped: str) -> tuple[str, str] | None:
    """``(name, rest)`` for an array's first line, else ``None``.

    The state word identifies it; without one (a damaged copy) an ``md*``
    name followed by member tokens still does.
    """
    match = HEADER.match(stripped)
    if match is None:
        return None
    name, rest = match.group("name"), match.group("rest")
    words = rest.split()
    if not words:
        return None
    if words[0].lower() in ARRAY_WORDS or (name.startswith("md") and MEMBER.match(words[-1])):
        return name, rest
    return None


def _add_detail(block: ArrayLines, stripped: str) -> None:
    """File one detail line of an array under status, progress or bitmap."""
    if "bitmap:" in stripped:
        block.bitmap_line = stripped[stripped.index("bitmap:") :]
        return
    waiting = WAITING.search(stripped)
    if waiting is not None:
        block.waiting = waiting.group(1).upper()
        return
    if PROGRESS.search(stripped) or (block.progress_text and PROGRESS_PARTS.search(stripped)):
        block.progress_text.append(stripped)
        return
    tokens = stripped.split()
    if not block.status_text and tokens and all(MEMBER.match(t) for t in tokens):
        # A header line wrapped by a mail client: the rest of the member list.
        block.extra_members.extend(tokens)
        block.notes.append(f"{block.name}: member list continued on a second line (wrapped copy)")
        return
    if any(p.search(stripped) for p in STATUS_FEATURES):
        block.status_text.append(stripped)
        return
    block.notes.append(f"{block.name}: line not understood: {stripped[:60]!r}")
