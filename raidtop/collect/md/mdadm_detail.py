"""``mdadm --detail --export`` and ``--examine --export``, run safely, for the detail screen and the JSON.

Only on an array md lists in ``/sys/block`` and on the members md lists in its
``md/dev-*`` directories (never a path from outside); as an argument list
through the one bounded runner (5 s, 256 KiB each). The times and event
counts come from ``--examine`` (each member's superblock): ``--detail
--export`` carries only the UUID, name and roles. The creation time is in
neither export for 1.x metadata; plain ``mdadm --detail`` prints it as
``ctime()`` text, so mdadm runs with ``TZ=UTC0`` and ``LC_ALL=C`` and the
line is read as UTC.
"""

from __future__ import annotations

import calendar
import re
import shutil
import time
from collections.abc import Callable

from raidtop.collect.bounded_run import Ran, run_bounded
from raidtop.collect.md.mdadm_export import parse_mdadm_export
from raidtop.collect.source import Root, SourceError
from raidtop.collect.whole_disk import valid_name
from raidtop.model.mdadm import MdadmDetail, MdadmMemberDetail

TIMEOUT_S = 5.0
LIMIT = 256 * 1024
_ARRAY = re.compile(r"^md(\d{1,6}|_[A-Za-z0-9_.-]{1,32})$")
_SBIN = "/usr/sbin:/sbin:/usr/bin:/bin"
_MAX_MEMBERS = 64
_ENV = {"PATH": _SBIN, "TZ": "UTC0", "LC_ALL": "C"}
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_CREATION = re.compile(
    r"^ {0,24}Creation Time : (?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (?P<mon>[A-Z][a-z]{2}) {1,2}(?P<day>\d{1,2}) "
    r"(?P<h>\d\d):(?P<m>\d\d):(?P<s>\d\d) (?P<year>\d{4})\s*$",
    re.MULTILINE,
)
Runner = Callable[[list[str]], Ran]


def _run(argv: list[str]) -> Ran:
    return run_bounded(argv, timeout_s=TIMEOUT_S, limit=LIMIT, keep_stderr=True, env=_ENV)


def parse_creation_time(text: str) -> int | None:
    """Unix time of ``mdadm --detail``'s ``Creation Time :`` line (printed in UTC), or ``None``.

    The text is untrusted: only a well-formed ctime() line with a real date
    between 1970 and 9999 is taken.
    """
    match = _CREATION.search(text)
    if match is None or match["mon"] not in _MONTHS:
        return None
    year, day = int(match["year"]), int(match["day"])
    hour, minute, second = int(match["h"]), int(match["m"]), int(match["s"])
    month = _MONTHS.index(match["mon"]) + 1
    if year < 1970 or not 1 <= day <= calendar.monthrange(year, month)[1] or hour > 23 or minute > 59 or second > 60:
        return None
    return calendar.timegm((year, month, day, hour, minute, second, 0, 0, 0))


def md_members(root: Root, array: str) -> list[str]:
    """The members md itself lists for ``array`` (its ``md/dev-*`` directories)."""
    try:
        entries = root.listdir(f"/sys/block/{array}/md")
    except SourceError:
        return []
    names = [e.removeprefix("dev-") for e in entries if e.startswith("dev-")]
    return [n for n in names if valid_name(n)][:_MAX_MEMBERS]


def read_mdadm_detail(root: Root, array: str, run: Runner | None = None, mdadm: str | None = None) -> MdadmDetail:
    """mdadm's view of ``array``; with a reason instead when it cannot be had."""
    if run is None and not root.is_live and _ARRAY.match(array):
        return MdadmDetail(array, unavailable="not the live system: mdadm is only run on /")
    if not _ARRAY.match(array) or not root.exists(f"/sys/block/{array}/md"):
        return MdadmDetail(array, unavailable=f"{array} is not an md array the kernel lists in /sys/block")
    if run is None:
        mdadm = mdadm or shutil.which("mdadm", path=_SBIN)
        if mdadm is None:
            return MdadmDetail(array, unavailable="mdadm is not installed")
        run = _run
    exe = mdadm or "mdadm"
    notes: list[str] = []
    detail = _export(run, [exe, "--detail", "--export", f"/dev/{array}"], notes)
    if detail is None:
        return MdadmDetail(array, unavailable=notes[-1] if notes else "mdadm --detail gave nothing", notes=tuple(notes))
    parsed, more = parse_mdadm_export(detail)
    notes.extend(more)
    roles = {d.name: d.role for d in parsed.devices}
    members = []
    creation = None
    for member in md_members(root, array):
        text = _export(run, [exe, "--examine", "--export", f"/dev/{member.replace('!', '/')}"], notes)
        keys = dict(parse_mdadm_export(text)[0].other) if text else {}
        members.append(
            MdadmMemberDetail(
                member,
                roles.get(member),
                _int(keys.get("MD_EVENTS")),
                _int(keys.get("MD_UPDATE_TIME")),
                keys.get("MD_DEV_UUID") or None,
            )
        )
        creation = creation or _int(keys.get("MD_CREATION_TIME"))
    if creation is None:
        plain = _export(run, [exe, "--detail", f"/dev/{array}"], notes)
        creation = parse_creation_time(plain) if plain else None
    events = [m.events for m in members if m.events is not None]
    updates = [m.update_time for m in members if m.update_time is not None]
    return MdadmDetail(
        array,
        uuid=parsed.uuid,
        name=parsed.name,
        creation_time=creation,
        update_time=max(updates) if updates else None,
        events=max(events) if events else None,
        members=tuple(members),
        notes=tuple(notes),
        read_at=time.time(),
    )


def _export(run: Runner, argv: list[str], notes: list[str]) -> str | None:
    what = " ".join(argv[1:])
    try:
        ran = run(argv)
    except OSError as exc:
        notes.append(f"mdadm {what}: {exc.strerror or exc}")
        return None
    if ran.cut is not None:
        notes.append(f"mdadm {what}: stopped ({ran.cut})")
        return None
    if ran.returncode != 0:
        last = ran.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no message"]
        notes.append(f"mdadm {what}: {last[0][:200]}")
        return None
    return ran.stdout.decode("utf-8", "replace")


def _int(text: str | None) -> int | None:
    if text is None or not text.isdigit() or len(text) > 19:
        return None
    return int(text)
