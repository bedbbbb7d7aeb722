"""A tolerant parser for /proc/mdstat.

The kernel's md_seq_show() prints, per array, a header line
(``md0 : active (auto-read-only) raid1 sdb1[1] sda1[0](F)``), a status line
(``8387520 blocks super 1.0 [2/1] [U_]``), then optionally a progress line
(``[=>...]  recovery =  8.5% (16775552/195310144) finish=17.0min speed=259783K/sec``
or ``\\tresync=DELAYED``) and a bitmap line, and a blank line. Counts are
1 KiB blocks. People paste it into bug reports and mail, so the parser
accepts it without its first or last line, with tabs or no indentation,
with arrays cut after their first line, with wrapped lines and ``>``
quoting, and says in notes what it could not read instead of raising.

Two things mdstat cannot say: the ``[N]`` after a member is its descriptor
number, not its slot; and which unflagged member is being rebuilt onto. The
parser leaves such a member's slot ``None`` and, when the counts do not settle
it, its roles empty, rather than guess.
"""

from __future__ import annotations

import quopri
import re
from dataclasses import dataclass, field

from raidtop.collect.mdlevel import (
    NO_REDUNDANCY,
    container_of,
    judge_health,
    layout_name,
    raid10_layout,
    sort_roles,
    sync_percent,
)
from raidtop.model_md import MdArray, MdMember, MdSync

_PERSONALITIES = re.compile(r"^\s*Personalities\s*:", re.IGNORECASE)
_UNUSED = re.compile(r"^\s*unused\s+devices\s*:", re.IGNORECASE)
_HEADER = re.compile(r"^\s*(?P<name>[^\s:\[\]()]+)\s*:\s*(?P<rest>.*)$")
_ARRAY_WORDS = ("active", "inactive", "broken")
_MEMBER = re.compile(r"^(?P<dev>[^\s\[\]()]+)\[(?P<num>\d+)\](?P<flags>(?:\([A-Za-z]\))*)$")
_LEVEL = re.compile(r"^(?:raid\d+|linear|multipath|faulty|container)$")
_QUOTE = re.compile(r"^\s*(?:>\s?)+")

_BLOCKS = re.compile(r"(\d+)\s+blocks\b")
_SUPER = re.compile(r"\bsuper\s+(\S+)")
_CHUNK = re.compile(r"(\d+)\s*[kK]\s+chunks?\b")
_ALGORITHM = re.compile(r"\balgorithm\s+(\d+)")
_COPIES = re.compile(r"(\d+)\s+(near|far|offset)-copies")
_ROUNDING = re.compile(r"(\d+)\s*[kK]\s+rounding")
_COUNTS = re.compile(r"\[(\d+)/(\d+)\]")
_PATTERN = re.compile(r"\[([U_]+)\]")
_LEVEL_N = re.compile(r"\blevel\s+\d+")
_STATUS_FEATURES = (_BLOCKS, _SUPER, _CHUNK, _ALGORITHM, _COPIES, _ROUNDING, _COUNTS, _PATTERN, _LEVEL_N)

_PROGRESS = re.compile(r"\b(resync|recovery|reshape|check|repair)\s*=\s*(\d+(?:\.\d+)?)\s*%")
_PROGRESS_PARTS = re.compile(r"\(\s*\d+\s*/\s*\d+\s*\)|\bfinish\s*=|\bspeed\s*=")
_DONE_TOTAL = re.compile(r"\(\s*(\d+)\s*/\s*(\d+)\s*\)")
_FINISH = re.compile(r"\bfinish\s*=\s*(\d+(?:\.\d+)?)\s*min")
_SPEED = re.compile(r"\bspeed\s*=\s*(\d+)\s*K/sec")
_WAITING = re.compile(r"\bresync\s*=\s*(DELAYED|PENDING|REMOTE)\b", re.IGNORECASE)
_BITMAP = re.compile(
    r"bitmap:\s*(\d+)\s*/\s*(\d+)\s+pages\s*\[\s*(\d+)\s*KB\s*\]\s*,\s*(\d+)\s*(KB|MB|B)?\s+chunk"
    r"(?:\s*,\s*file:\s*(?P<file>\S.*?))?\s*$"
)

AMBIGUOUS_ROLES = "their roles are left unknown"
"""Ends the note for members whose in_sync mdstat cannot settle; sysfs can."""
FILE_NOTE = "/proc/mdstat: "
"""Starts every note about the whole file rather than one array."""

# mdstat prints "recovery" where sysfs says "recover", and a repair as "resync".
_ACTIONS = {"resync": "resync", "recovery": "recover", "reshape": "reshape", "check": "check", "repair": "repair"}


@dataclass(slots=True)
class _Block:
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


def parse_mdstat(text: str) -> tuple[list[MdArray], list[str]]:
    """Parse /proc/mdstat text into arrays (in file order) and notes.

    Never raises on bad input: whatever can be read is returned, and each
    note is a sentence saying what could not be read.
    """
    notes: list[str] = []
    lines = _clean_lines(text, notes)
    blocks: list[_Block] = []
    current: _Block | None = None
    seen_personalities = seen_unused = False
    orphans = 0

    for line in lines:
        stripped = line.strip()
        if not stripped:
            if current is not None:
                current.complete = True
                current = None
            continue
        if _PERSONALITIES.match(stripped):
            seen_personalities = True
            continue
        if _UNUSED.match(stripped):
            seen_unused = True
            if current is not None:
                current.complete = True
                current = None
            continue
        header = _match_header(stripped)
        if header is not None:
            if current is not None:
                current.complete = True
            current = _Block(name=header[0], header=header[1])
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

    arrays = []
    seen_names: set[str] = set()
    for block in blocks:
        array = _build_array(block)
        if array.name in seen_names:
            notes.append(f"{FILE_NOTE}{array.name} appears twice; both entries are kept")
        seen_names.add(array.name)
        notes.extend(array.notes)
        arrays.append(array)
    return arrays, notes


def _clean_lines(text: str, notes: list[str]) -> list[str]:
    """Undo what mail and pasting do to the file before it is parsed."""
    if "=3D" in text:
        # Quoted-printable mail body: "=3D" is "=" and a trailing "=" joins lines.
        text = quopri.decodestring(text.encode("utf-8", "replace")).decode("utf-8", "replace")
        notes.append(f"{FILE_NOTE}decoded a quoted-printable mail copy")
    text = text.replace("\r", "").replace("\xa0", " ")
    lines = text.split("\n")
    if any(_QUOTE.match(line) for line in lines):
        lines = [_QUOTE.sub("", line) for line in lines]
        notes.append(f"{FILE_NOTE}removed '>' mail quoting")
    return lines


def _match_header(stripped: str) -> tuple[str, str] | None:
    """``(name, rest)`` for an array's first line, else ``None``.

    The state word identifies it; without one (a damaged copy) an ``md*``
    name followed by member tokens still does.
    """
    match = _HEADER.match(stripped)
    if match is None:
        return None
    name, rest = match.group("name"), match.group("rest")
    words = rest.split()
    if not words:
        return None
    if words[0].lower() in _ARRAY_WORDS or (name.startswith("md") and _MEMBER.match(words[-1])):
        return name, rest
    return None


def _add_detail(block: _Block, stripped: str) -> None:
    """File one detail line of an array under status, progress or bitmap."""
    if "bitmap:" in stripped:
        block.bitmap_line = stripped[stripped.index("bitmap:"):]
        return
    waiting = _WAITING.search(stripped)
    if waiting is not None:
        block.waiting = waiting.group(1).upper()
        return
    if _PROGRESS.search(stripped) or (block.progress_text and _PROGRESS_PARTS.search(stripped)):
        block.progress_text.append(stripped)
        return
    tokens = stripped.split()
    if not block.status_text and tokens and all(_MEMBER.match(t) for t in tokens):
        # A header line wrapped by a mail client: the rest of the member list.
        block.extra_members.extend(tokens)
        block.notes.append(f"{block.name}: member list continued on a second line (wrapped copy)")
        return
    if any(p.search(stripped) for p in _STATUS_FEATURES):
        block.status_text.append(stripped)
        return
    block.notes.append(f"{block.name}: line not understood: {stripped[:60]!r}")


def _parse_header(block: _Block) -> tuple[str | None, bool, bool, str | None, list[tuple[str, int, str]]]:
    """Read state word, read-only flags, level and members from the header."""
    tokens = block.header.split()
    state = None
    read_only = auto_read_only = False
    level = None
    members: list[tuple[str, int, str]] = []
    for token in tokens + block.extra_members:
        lowered = token.lower()
        if state is None and lowered in _ARRAY_WORDS:
            state = lowered
        elif lowered == "(read-only)":
            read_only = True
        elif lowered == "(auto-read-only)":
            auto_read_only = True
        elif level is None and not members and _LEVEL.match(lowered):
            level = lowered
        elif (member := _MEMBER.match(token)) is not None:
            members.append((member.group("dev"), int(member.group("num")), member.group("flags").upper()))
        else:
            block.notes.append(f"{block.name}: word {token[:40]!r} in the first line not understood")
    return state, read_only, auto_read_only, level, members


def _first_int(pattern: re.Pattern[str], text: str, group: int = 1) -> int | None:
    match = pattern.search(text)
    return int(match.group(group)) if match else None


def _build_array(block: _Block) -> MdArray:
    state, read_only, auto_read_only, level, raw_members = _parse_header(block)
    status_text = " ".join(block.status_text)
    has_status = bool(_BLOCKS.search(status_text))
    if not block.status_text:
        block.notes.append(f"{block.name}: only the first line of its entry is present")
    elif not has_status:
        block.notes.append(f"{block.name}: its status line has no block count")

    super_match = _SUPER.search(status_text)
    if super_match:
        metadata = super_match.group(1).rstrip(",")
        if metadata == "non-persistent":
            metadata = "none"  # what sysfs metadata_version says for it
    elif has_status:
        metadata = "0.90"  # the kernel prints no "super" for 0.90 superblocks
    else:
        metadata = None
    container, container_member = container_of(metadata)
    if level is None and metadata and metadata.startswith("external:") and container is None:
        level = "container"  # what sysfs and mdadm call an IMSM/DDF container

    counts = _COUNTS.search(status_text)
    raid_disks = degraded = None
    if counts:
        raid_disks, working = int(counts.group(1)), int(counts.group(2))
        if working <= raid_disks:
            degraded = raid_disks - working
        else:
            block.notes.append(f"{block.name}: [{raid_disks}/{working}] has more working devices than slots")
    pattern_match = _PATTERN.search(status_text)
    status = pattern_match.group(1) if pattern_match else None
    active = state in ("active", "broken")

    chunk = _first_int(_CHUNK, status_text)
    layout = None
    algorithm = _first_int(_ALGORITHM, status_text)
    if algorithm is not None:
        layout = layout_name(level, algorithm)
    copies = dict((kind, int(n)) for n, kind in _COPIES.findall(status_text))
    if copies:
        far = copies.get("far", copies.get("offset", 1))
        layout = raid10_layout(copies.get("near", 1), far, "offset" in copies)

    members = _members(block, raw_members, level, active, status)
    if raid_disks is None and level in NO_REDUNDANCY and active and has_status:
        # raid0 and linear print no [n/m]; every listed member holds a slot.
        raid_disks = sum(1 for m in members if not (m.is_faulty or m.is_spare))

    bitmap = None
    if block.bitmap_line is not None:
        bitmap_match = _BITMAP.search(block.bitmap_line)
        if bitmap_match is None:
            block.notes.append(f"{block.name}: bitmap line not understood")
            bitmap = "internal" if "file:" not in block.bitmap_line else None
        else:
            bitmap = bitmap_match.group("file") or "internal"
    elif block.complete and has_status and active:
        bitmap = "none"

    sync = _sync(block)
    health = judge_health(
        level=level,
        state=state,
        raid_disks=raid_disks,
        degraded=degraded,
        status=status,
        layout=layout,
        members=members,
    )
    return MdArray(
        name=block.name,
        level=level,
        state=state,
        health=health,
        raid_disks=raid_disks,
        degraded=degraded,
        size_kib=_first_int(_BLOCKS, status_text) if active else None,
        chunk_kib=chunk or None,
        layout=layout,
        metadata=metadata,
        bitmap=bitmap,
        members=tuple(members),
        sync=sync,
        status=status,
        read_only=read_only,
        auto_read_only=auto_read_only,
        container=container,
        container_member=container_member,
        notes=tuple(block.notes),
        source="mdstat",
    )


_FLAG_ROLES = {"(W)": "write_mostly", "(J)": "journal", "(F)": "faulty", "(S)": "spare", "(R)": "replacement"}


def _members(
    block: _Block,
    raw: list[tuple[str, int, str]],
    level: str | None,
    active: bool,
    status: str | None,
) -> list[MdMember]:
    """Turn ``name[N](flags)`` into members, deciding in_sync only when certain."""
    flagged_roles: list[list[str]] = []
    for _name, _number, flags in raw:
        roles = [role for flag, role in _FLAG_ROLES.items() if flag in flags]
        flagged_roles.append(roles)

    # Members without F, S, J or R hold a slot; mdstat's [UU_] says how many
    # of those slots are in sync but not which member is which.
    slotted = [i for i, roles in enumerate(flagged_roles) if not set(roles) & {"faulty", "spare", "journal", "replacement"}]
    in_sync_known = False
    if active and level in NO_REDUNDANCY:
        in_sync_known = True
    elif active and status is not None:
        if status.count("U") == len(slotted):
            in_sync_known = True
        elif slotted:
            names = ", ".join(raw[i][0] for i in slotted)
            block.notes.append(
                f"{block.name}: mdstat does not say which of {names} are in sync "
                f"({status.count('U')} of {len(slotted)}); {AMBIGUOUS_ROLES}"
            )
    if in_sync_known:
        for i in slotted:
            flagged_roles[i].append("in_sync")
    return [
        MdMember(name, None, _sorted_roles(roles), None, number)
        for (name, number, _flags), roles in zip(raw, flagged_roles)
    ]


_ROLES_CACHE: dict[tuple[str, ...], tuple[str, ...]] = {}


def _sorted_roles(roles: list[str]) -> tuple[str, ...]:
    """sort_roles, remembered: mdstat members share a few role combinations."""
    key = tuple(roles)
    cached = _ROLES_CACHE.get(key)
    if cached is None:
        cached = _ROLES_CACHE[key] = sort_roles(roles)
    return cached


def _sync(block: _Block) -> MdSync | None:
    if block.progress_text:
        text = " ".join(block.progress_text)
        match = _PROGRESS.search(text)
        if match is None:
            block.notes.append(f"{block.name}: progress line not understood")
            return None
        done_total = _DONE_TOTAL.search(text)
        finish = _FINISH.search(text)
        speed = _SPEED.search(text)
        if done_total is None or finish is None or speed is None:
            block.notes.append(f"{block.name}: progress line incomplete")
        percent: float | None = float(match.group(2))
        done = int(done_total.group(1)) if done_total else None
        total = int(done_total.group(2)) if done_total else None
        if done is not None and total:
            # The printed per-mille is truncated twice by the kernel; the counts are exact.
            percent = sync_percent(done, total)
        if percent is None or percent > 100:
            block.notes.append(f"{block.name}: progress {match.group(2)}% is over 100 %")
            percent = None
        return MdSync(
            action=_ACTIONS[match.group(1)],
            percent=percent,
            done_kib=done,
            total_kib=total,
            speed_kib_s=int(speed.group(1)) if speed else None,
            eta_s_kernel=round(float(finish.group(1)) * 60, 1) if finish else None,
        )
    if block.waiting in ("DELAYED", "PENDING"):
        return MdSync(action=block.waiting.lower())
    if block.waiting == "REMOTE":
        block.notes.append(f"{block.name}: resync=REMOTE (another cluster node is syncing) is shown as no sync")
    return None
