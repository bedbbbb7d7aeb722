"""Can this machine run the lab? Each missing piece named in words, with what to do.

The lab needs the md driver (and the personality of each level), mdadm,
losetup, the loop driver and root. A kernel without md (like containers'
and some cloud kernels') is told apart from one whose md module is merely
not loaded, because the advice differs: ``modprobe`` helps only the second.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable

from raidtop.model.frozen import frozen_dataclass
from raidtop.actions.lab.commands import find_tool
from raidtop.collect.source import Root, as_root

LEVEL_PERSONALITY = {
    "raid0": "raid0",
    "raid1": "raid1",
    "raid4": "raid4",
    "raid5": "raid5",
    "raid6": "raid6",
    "raid10": "raid10",
}
"""The word /proc/mdstat's Personalities line shows for each level."""
LEVEL_MODULE = {
    "raid0": "raid0",
    "raid1": "raid1",
    "raid4": "raid456",
    "raid5": "raid456",
    "raid6": "raid456",
    "raid10": "raid10",
}
"""The kernel module that provides each level."""
MODPROBE_MD = "sudo modprobe md_mod raid0 raid1 raid456 raid10"
DEMO_HINT = "meanwhile, `raidtop --demo` shows a simulated array you can fail, remove and add disks on"

_PERSONALITIES = re.compile(r"^Personalities\s*:(.*)$", re.MULTILINE)


@frozen_dataclass
class LabProblem:
    """One thing the lab lacks."""

    key: str
    """``md``, ``md-level``, ``mdadm``, ``losetup``, ``loop``, ``root`` or ``fio``."""
    message: str
    """What is missing, in words."""
    fix: str
    """What to do about it."""

    @property
    def text(self) -> str:
        """Message and fix in one sentence."""
        return f"{self.message}: {self.fix}"


@frozen_dataclass
class LabEnvironment:
    """The outcome of :func:`check_environment`."""

    problems: tuple[LabProblem, ...] = ()
    kernel: str | None = None

    @property
    def ready(self) -> bool:
        """True when nothing is missing."""
        return not self.problems

    @property
    def md_missing(self) -> bool:
        """True when the kernel cannot run md at all right now."""
        return any(p.key == "md" for p in self.problems)

    def describe(self) -> str:
        """Every problem on its own line (empty when ready)."""
        return "\n".join(f"- {p.text}" for p in self.problems)

    @property
    def refusal(self) -> str:
        """Why nothing can be created here, in one sentence (empty when ready): what the Lab screen's keys say."""
        if self.ready:
            return ""
        missing = "; ".join(p.message for p in self.problems)
        return (
            f"the lab cannot run here: {missing} (raidtop lab doctor says what to do; raidtop --demo works meanwhile)"
        )


def check_environment(
    root: Root | str = "/",
    *,
    levels: Iterable[str] = (),
    need_fio: bool = False,
    euid: int | None = None,
    which: Callable[[str], str | None] = find_tool,
) -> LabEnvironment:
    """Everything the lab would miss on this machine (for ``levels``, e.g. ``["raid5"]``)."""
    root = as_root(root)
    release = (root.read_optional("/proc/sys/kernel/osrelease") or "").strip() or None
    problems: list[LabProblem] = []
    problems += _md_problems(root, release, list(levels))
    if which("mdadm") is None:
        problems.append(
            LabProblem(
                "mdadm",
                "mdadm is not installed",
                "install it: sudo apt install mdadm (Debian, Ubuntu) or sudo dnf install mdadm (Fedora)",
            )
        )
    if which("losetup") is None:
        problems.append(
            LabProblem(
                "losetup",
                "losetup is not installed",
                "install it: sudo apt install mount (Debian and Ubuntu ship losetup there) or util-linux elsewhere",
            )
        )
    if not root.exists("/dev/loop-control") and not root.exists("/sys/module/loop"):
        problems.append(LabProblem("loop", "the loop driver is not loaded", "load it: sudo modprobe loop"))
    uid = os.geteuid() if euid is None else euid
    if uid != 0:
        problems.append(
            LabProblem(
                "root",
                f"the lab needs root to attach loop devices and create md arrays (you are uid {uid})",
                "run it with sudo: sudo raidtop lab …, or sudo raidtop for the Lab screen",
            )
        )
    if need_fio and which("fio") is None:
        problems.append(LabProblem("fio", "fio is not installed", "install it: sudo apt install fio"))
    return LabEnvironment(tuple(problems), release)


def personalities(root: Root) -> set[str] | None:
    """The levels md has loaded (from /proc/mdstat), or ``None`` without md."""
    text = root.read_optional("/proc/mdstat")
    if text is None:
        return None
    match = _PERSONALITIES.search(text)
    return set(re.findall(r"\[([^\]]+)\]", match.group(1))) if match else set()


def _md_problems(root: Root, release: str | None, levels: list[str]) -> list[LabProblem]:
    loaded = personalities(root)
    if loaded is None and not root.exists("/sys/module/md_mod"):
        if _module_available(root, release, "md-mod") or _module_available(root, release, "md_mod"):
            return [LabProblem("md", "the md driver (md_mod) is not loaded", f"load it: {MODPROBE_MD}")]
        kernel = f"this kernel ({release})" if release else "this kernel"
        where = f"/lib/modules/{release}" if release else "/lib/modules"
        return [
            LabProblem(
                "md",
                f"{kernel} has no md driver: /proc/mdstat is absent and {where} has no md_mod module",
                "boot a kernel with md software RAID (any distribution kernel, e.g. in a VM), "
                f"then {MODPROBE_MD}; {DEMO_HINT}",
            )
        ]
    problems = []
    for level in dict.fromkeys(levels):
        personality = LEVEL_PERSONALITY.get(level)
        if personality is None or (loaded is not None and personality in loaded):
            continue
        module = LEVEL_MODULE[level]
        # mdadm makes the kernel load a missing personality itself, if the module exists.
        if loaded is not None and not _module_available(root, release, module):
            problems.append(
                LabProblem(
                    "md-level",
                    f"md is loaded but has no {level} personality and no {module} module to load",
                    f"load it: sudo modprobe {module}, or use another level",
                )
            )
    return problems


def _module_available(root: Root, release: str | None, module: str) -> bool:
    if not release:
        return False
    base = f"/lib/modules/{release}"
    names = {module, module.replace("-", "_"), module.replace("_", "-")}
    for listing in ("modules.dep", "modules.builtin"):
        text = root.read_optional(f"{base}/{listing}")
        if not text:
            continue
        for line in text.splitlines():
            path = line.partition(":")[0]
            stem = os.path.basename(path).split(".ko")[0]
            if stem in names:
                return True
    return False
