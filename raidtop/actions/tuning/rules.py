"""Make tuning permanent: a udev rules file for device knobs, a sysctl.d snippet for md limits.

sysfs values are lost at reboot or when a device reappears. udev re-applies
block and md attributes each time the device is added or changes (``ATTR{…}=``
assignments, udev(7)); systemd-sysctl or ``sysctl --system`` applies
``dev.raid.speed_limit_*`` at boot.

Devices are matched by what survives a reboot where raidtop can read it:
``ENV{ID_SERIAL}`` from the udev database for disks, ``ATTR{md/uuid}`` for md
arrays (their numbers change: md0 becomes md127), ``ENV{DM_NAME}`` for
device-mapper; otherwise by ``KERNEL`` name, with a comment saying it may
change. Nothing is written under /etc unless the caller passes ``confirmed``
after asking the user with the file named.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Iterable
from pathlib import Path

from raidtop import __version__
from raidtop.model.frozen import frozen_dataclass
from raidtop.actions.tuning.knobs import GLOBAL_TARGET, SPECS, Knob, sys_name
from raidtop.collect.source import Root, as_root
from raidtop.config import xdg_dir
from raidtop.safeio import atomic_write

RULES_NAME = "70-raidtop-tuning.rules"
SYSCTL_NAME = "70-raidtop-tuning.conf"
ETC = Path("/etc")

# Assignments in a rule run in order: the scheduler first, because switching
# it resets nr_requests.
_ORDER = (
    "scheduler",
    "nr_requests",
    "read_ahead_kb",
    "rq_affinity",
    "nomerges",
    "max_sectors_kb",
    "write_cache",
    "sync_speed_min",
    "sync_speed_max",
    "stripe_cache_size",
    "group_thread_cnt",
)


@frozen_dataclass
class Setting:
    """One value to make permanent."""

    target: str
    attr: str
    value: str


def settings_from_knobs(knobs: Iterable[Knob]) -> list[Setting]:
    """The current values of ``knobs`` (usually :meth:`TuningSession.net_changes`)."""
    return [Setting(k.target, k.attr, k.value) for k in knobs if k.value is not None]


def udev_properties(root: Root | str, device: str) -> dict[str, str]:
    """The ``E:`` properties of a block device in the udev database (empty if none)."""
    root = as_root(root)
    numbers = (root.read_optional(f"/sys/block/{sys_name(device)}/dev") or "").strip()
    if ":" not in numbers:
        return {}
    text = root.read_optional(f"/run/udev/data/b{numbers}") or ""
    props = {}
    for line in text.splitlines():
        if line.startswith("E:") and "=" in line:
            key, _, value = line[2:].partition("=")
            props[key] = value
    return props


def device_match(root: Root | str, device: str) -> tuple[str, str]:
    """The udev match keys for ``device`` and a comment saying what they match."""
    root = as_root(root)
    sname = sys_name(device)
    if root.exists(f"/sys/block/{sname}/md"):
        uuid = (root.read_optional(f"/sys/block/{sname}/md/uuid") or "").strip()
        if _safe(uuid):
            return (
                f'SUBSYSTEM=="block", KERNEL=="md*", ATTR{{md/uuid}}=="{uuid}"',
                f"md array {device} (by array UUID; its md number can change)",
            )
        return (
            f'SUBSYSTEM=="block", KERNEL=="{device}"',
            f"md array {device} (by name: no UUID readable, the number can change)",
        )
    props = udev_properties(root, device)
    serial = props.get("ID_SERIAL", "")
    if _safe(serial):
        return (f'SUBSYSTEM=="block", ENV{{DEVTYPE}}=="disk", ENV{{ID_SERIAL}}=="{serial}"', f"{device} (by serial)")
    dm_name = (root.read_optional(f"/sys/block/{sname}/dm/name") or "").strip()
    if _safe(dm_name):
        return f'SUBSYSTEM=="block", ENV{{DM_NAME}}=="{dm_name}"', f"{device} (device-mapper {dm_name})"
    return (
        f'SUBSYSTEM=="block", KERNEL=="{device}"',
        f"{device} (by kernel name: no serial known, the name can change between boots)",
    )


def _safe(value: str) -> bool:
    # A udev string cannot hold a double quote or a newline; glob characters
    # would turn an exact match into a pattern.
    return bool(value) and not any(c in value for c in '"\n\\*?[]')


def udev_rules(
    settings: Iterable[Setting], root: Root | str = "/", *, now: float | None = None, host: str | None = None
) -> str:
    """A udev rules file applying the block and md ``settings``; only a header if there are none."""
    root = as_root(root)
    by_target: dict[str, list[Setting]] = {}
    for setting in settings:
        if SPECS[setting.attr].scope in ("queue", "md"):
            by_target.setdefault(setting.target, []).append(setting)
    lines = _header(
        "udev rules",
        now,
        host,
        [
            f"Install: sudo install -m 0644 THIS_FILE /etc/udev/rules.d/{RULES_NAME}",
            "then:    sudo udevadm control --reload && sudo udevadm trigger --action=change --subsystem-match=block",
        ],
    )
    if not by_target:
        lines.append("# No device settings were changed.")
    for target, items in by_target.items():
        match, comment = device_match(root, target)
        items.sort(key=lambda s: _ORDER.index(s.attr) if s.attr in _ORDER else len(_ORDER))
        assignments = ", ".join(
            f'ATTR{{{"md" if SPECS[s.attr].scope == "md" else "queue"}/{s.attr}}}="{s.value}"'
            for s in items
            if _safe_value(s.value)
        )
        lines.append(f"# {comment}")
        lines.append(f'ACTION=="add|change", {match}, {assignments}')
    return "\n".join(lines) + "\n"


def _safe_value(value: str) -> bool:
    return '"' not in value and "\n" not in value


def sysctl_conf(settings: Iterable[Setting], *, now: float | None = None, host: str | None = None) -> str:
    """A sysctl.d snippet for the global md speed limits among ``settings``."""
    wanted = [s for s in settings if s.target == GLOBAL_TARGET and SPECS[s.attr].scope == "global"]
    lines = _header(
        "sysctl settings",
        now,
        host,
        [
            f"Install: sudo install -m 0644 THIS_FILE /etc/sysctl.d/{SYSCTL_NAME} && sudo sysctl --system",
            "dev.raid.* exists only once the md driver is loaded; if md_mod loads after",
            "systemd-sysctl runs at boot, add md_mod to /etc/modules-load.d/ so these apply.",
        ],
    )
    if not wanted:
        lines.append("# No md speed limits were changed.")
    for setting in wanted:
        lines.append(f"dev.raid.{setting.attr} = {setting.value}")
    return "\n".join(lines) + "\n"


def _header(what: str, now: float | None, host: str | None, extra: list[str]) -> list[str]:
    stamp = time.strftime("%Y-%m-%d %H:%M", time.localtime(time.time() if now is None else now))
    host = host if host is not None else socket.gethostname()
    return [f"# {what} generated by raidtop {__version__} on {host}, {stamp}.", *(f"# {line}" for line in extra)]


# ---------------------------------------------------------------- saving


def default_paths() -> tuple[Path, Path]:
    """Where raidtop suggests saving the rules and the sysctl snippet (not /etc)."""
    base = xdg_dir("data")
    return base / RULES_NAME, base / SYSCTL_NAME


def under_etc(path: str | os.PathLike[str]) -> bool:
    """True when ``path`` (symlinks followed) lies under /etc."""
    resolved = Path(path).expanduser().resolve(strict=False)
    return resolved == ETC or ETC in resolved.parents


def save_question(path: str | os.PathLike[str]) -> str | None:
    """Why saving to ``path`` needs the user's explicit yes, or ``None`` when it does not."""
    target = Path(path).expanduser()
    reasons = []
    if under_etc(target):
        reasons.append(f"{target} is under /etc: the system will use it (udev and sysctl read it at boot)")
    if target.exists():
        reasons.append(f"{target} exists and will be replaced")
    return "; ".join(reasons) or None


@frozen_dataclass
class SaveResult:
    """Whether a file was written, and what to tell the user."""

    ok: bool
    path: str
    message: str


def save_text(path: str | os.PathLike[str], text: str, *, confirmed: bool = False) -> SaveResult:
    """Write ``text`` to ``path`` atomically; refuse /etc or an existing file unless ``confirmed``.

    Never raises: a failure comes back as a :class:`SaveResult` with the reason.
    """
    target = Path(path).expanduser()
    if not str(path).strip():
        return SaveResult(False, "", "no file name given")
    question = save_question(target)
    if question and not confirmed:
        return SaveResult(False, str(target), f"not saved: {question} (confirm to write it)")
    try:
        # Written whole or not at all, fsynced, and a link at the path is replaced, never followed.
        atomic_write(target, text, 0o644)
    except OSError as exc:
        reason = "permission denied (needs root?)" if isinstance(exc, PermissionError) else (exc.strerror or str(exc))
        return SaveResult(False, str(target), f"could not write {target}: {reason}")
    return SaveResult(True, str(target), f"saved {target}")


def install_command(path: str | os.PathLike[str], kind: str) -> str:
    """The commands that put a saved file in place and apply it (``kind``: ``udev`` or ``sysctl``)."""
    if kind == "udev":
        return (
            f"sudo install -m 0644 {path} /etc/udev/rules.d/{RULES_NAME} && sudo udevadm control --reload "
            f"&& sudo udevadm trigger --action=change --subsystem-match=block"
        )
    return f"sudo install -m 0644 {path} /etc/sysctl.d/{SYSCTL_NAME} && sudo sysctl --system"
