"""Ask smartctl about one whole disk: ``smartctl --json=c --xall -n standby -- /dev/NAME``.

The name is checked against sysfs (a whole physical disk, not a partition,
dm, md, loop or zram device) and the ``/dev`` node must be a block device
(not a symlink) whose device number is the one sysfs gives for that disk,
so smartctl is handed a path that names what we meant. ``--`` ends options,
so no name can be read as one. smartctl runs from an argv list (never a
shell) in its own session, with a timeout (killed when it runs over) and a
cap on what it may write. ``-n standby`` keeps a sleeping disk asleep.

Outcome, always a :class:`SmartHealth` (never an exception):
``read`` (judged by the ``judge`` the caller hands in: readers only read, the
verdict is :mod:`raidtop.presentation.smart_rules`'s), ``standby`` ("standby, not
read"), ``unsupported`` (no SMART here: virtio, a RAID controller without
passthrough), ``error`` (timed out, no JSON), ``not_root``, ``no_smartctl``.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import time
from collections.abc import Callable

from raidtop.collect import bounded_run
from raidtop.collect.smart.parse import EXIT_BITS, bit_meanings, is_smartctl_document, messages, parse_smartctl
from raidtop.collect.source import Root
from raidtop.collect.whole_disk import is_physical_disk, valid_name
from raidtop.model.smart import SmartHealth

Judge = Callable[[SmartHealth], SmartHealth]
"""Fills a read disk's verdict and reasons (:func:`raidtop.presentation.smart_rules.judge`)."""


def unjudged(health: SmartHealth) -> SmartHealth:
    """The reading as smartctl gave it, verdict ``unknown``: for callers that judge later or not at all."""
    return health


DEFAULT_TIMEOUT_S = 20.0
OUTPUT_LIMIT = 4 * 1024 * 1024
NOT_ROOT = "SMART needs root"
NO_SMARTCTL = "smartctl is not installed (Debian/Ubuntu: apt install smartmontools)"
STANDBY = "standby, not read"
# Where Debian and Red Hat put smartctl when it is not on a user's PATH.
_SBIN = ("/usr/sbin", "/sbin", "/usr/local/sbin")


def find_smartctl() -> str | None:
    """The smartctl to run: the first on PATH, else the usual sbin directories."""
    path = os.environ.get("PATH", "")
    return shutil.which("smartctl", path=os.pathsep.join([path, *_SBIN]))


def cannot_ask(euid: int | None = None) -> tuple[str, str] | None:
    """(state, note) when raidtop cannot ask smartctl at all; ``None`` when it can."""
    if (os.geteuid() if euid is None else euid) != 0:
        return "not_root", NOT_ROOT
    if find_smartctl() is None:
        return "no_smartctl", NO_SMARTCTL
    return None


def device_path(root: Root, name: str) -> tuple[str | None, str]:
    """The ``/dev`` path to hand smartctl for whole disk ``name``, or (None, why not)."""
    sys_name = name.replace("/", "!")
    if not valid_name(sys_name) or not is_physical_disk(root, sys_name):
        return None, f"{name}: not a whole physical disk"
    dev = (root.read_optional(f"/sys/block/{sys_name}/dev") or "").strip()
    path = "/dev/" + sys_name.replace("!", "/")
    try:
        info = os.lstat(path)
    except OSError as exc:
        return None, f"{path}: {exc.strerror or exc}"
    if not stat.S_ISBLK(info.st_mode):
        return None, f"{path} is not a block device node"
    if dev != f"{os.major(info.st_rdev)}:{os.minor(info.st_rdev)}":
        return (
            None,
            f"{path} is device {os.major(info.st_rdev)}:{os.minor(info.st_rdev)}, sysfs says {dev or 'nothing'}",
        )
    return path, ""


def read_disk(
    root: Root,
    name: str,
    *,
    timeout: float = DEFAULT_TIMEOUT_S,
    clock: Callable[[], float] = time.time,
    judge: Judge = unjudged,
) -> SmartHealth:
    """Run smartctl once for ``name`` and return what it said, a disk that was read passed through ``judge``."""
    now = clock()
    refusal = cannot_ask()
    if refusal is not None:
        return SmartHealth(disk=name, read_at=now, state=refusal[0], message=refusal[1])
    path, why = device_path(root, name)
    if path is None:
        return SmartHealth(disk=name, read_at=now, state="unsupported", message=why)
    smartctl = find_smartctl()
    if smartctl is None:
        return SmartHealth(disk=name, read_at=now, state="no_smartctl", message=NO_SMARTCTL)
    output, problem = run_bounded([smartctl, "--json=c", "--xall", "-n", "standby", "--", path], timeout)
    if problem:
        return SmartHealth(disk=name, read_at=now, state="error", message=f"smartctl {path}: {problem}")
    return health_from_output(name, now, output, judge)


def health_from_output(name: str, read_at: float, output: bytes, judge: Judge = unjudged) -> SmartHealth:
    """Turn smartctl's stdout into a SmartHealth (standby, unsupported, error or read, the last through ``judge``)."""
    try:
        doc = json.loads(output.decode("utf-8", "replace"))
    except ValueError:
        doc = None
    if not is_smartctl_document(doc):
        return SmartHealth(disk=name, read_at=read_at, state="error", message="smartctl wrote no JSON")
    status = doc["smartctl"].get("exit_status")
    status = status if isinstance(status, int) and not isinstance(status, bool) else 0
    said = messages(doc)
    text = "; ".join(said)
    if status & 2 and any(word in text.lower() for word in ("standby", "sleep")):
        return SmartHealth(
            disk=name,
            read_at=read_at,
            state="standby",
            message=STANDBY,
            exit_status=status,
            exit_meanings=bit_meanings(status, EXIT_BITS),
        )
    support = doc.get("smart_support")
    no_smart = isinstance(support, dict) and support.get("available") is False
    if (status & 3 and not isinstance(doc.get("device"), dict)) or no_smart:
        return SmartHealth(
            disk=name,
            read_at=read_at,
            state="unsupported",
            message=text or "no SMART on this device",
            exit_status=status,
            exit_meanings=bit_meanings(status, EXIT_BITS),
        )
    return judge(parse_smartctl(doc, name, read_at))


def run_bounded(argv: list[str], timeout: float, limit: int = OUTPUT_LIMIT) -> tuple[bytes, str]:
    """Run ``argv``; (stdout, "") or (what was read, why it was cut short). Never a shell."""
    try:
        ran = bounded_run.run_bounded(argv, timeout_s=timeout, limit=limit)
    except OSError as exc:
        return b"", f"cannot run: {exc.strerror or exc}"
    if ran.cut == "timeout":
        return ran.stdout, f"no answer within {timeout:g} s (killed)"
    if ran.cut == "limit":
        return ran.stdout, f"wrote more than {limit} bytes (killed)"
    return ran.stdout, ""
