"""Device-mapper tables for the lab's realistic failures, and how to recognise the lab's dm devices.

A lab member can be put behind one of four targets (Documentation/admin-guide/device-mapper/):

- ``delay``: every request waits a fixed number of milliseconds (a slow disk);
- ``flakey``: the device works for ``up`` seconds, then fails every request for ``down``
  seconds, and again (a disk that drops out and comes back);
- ``error`` over a sector range, ``linear`` around it: reads and writes there fail for good
  (a dead zone: md records it in its bad-block log, and only replacing the member clears it);
- ``unreadable``: ``dust`` (dm-dust.rst) over the whole member, with a sector range in its
  bad-block list: reads there fail until something writes them, as a drive remaps a pending
  sector on write (md rewrites them from the other copy: a check, or a read that hits them).

The lab's dm devices are named ``raidtop-lab-<array>-<loop>`` and sit on exactly one of
the lab's loop devices: that name and that one slave are what the guard accepts.
"""

from __future__ import annotations

import re

from raidtop.model.frozen import frozen_dataclass
from raidtop.actions.lab.loopdev import is_loop_name
from raidtop.collect.source import Root, SourceError, as_root

DM_PREFIX = "raidtop-lab-"
FAULT_KINDS = ("delay", "flakey", "error", "unreadable")
MAX_DELAY_MS = 60_000
MAX_FLAKEY_S = 3600
DUST_BLOCK = 4096
"""dm-dust's block, in bytes. 4 KiB, not 512: the physical sector a modern (512e) disk remaps whole, the
page md's read-error fixing rewrites at a time, and dust splits every request into blocks, so 512 would
cut each page into eight requests and slow the whole member, not just the bad range."""
DUST_SECTORS = DUST_BLOCK // 512
MAX_DUST_BLOCKS = 64
"""Each bad block is one ``dmsetup message`` shown in the confirmation: 64 (256 KiB) keeps that readable."""
_DM_NAME = re.compile(r"dm-[0-9]{1,6}\Z")
_MD_NAME = re.compile(r"md[0-9]{1,6}\Z")


NO_DEVICE_MAPPER = (
    "this kernel has no device-mapper (/proc/misc lists no device-mapper: modprobe dm_mod, or boot a kernel "
    "built with CONFIG_BLK_DEV_DM), so the lab cannot put a member behind a delay, flakey or error target here"
)
NO_DUST = (
    "this kernel has no dm-dust target (CONFIG_DM_DUST: Debian's kernels are built without it), so the lab "
    "cannot make sectors unreadable-until-rewritten here; error START+LEN fails a range for good instead"
)
FAULT_FORMS = "delay MS | flakey UP,DOWN | error START+LEN | unreadable START+LEN"
"""How a fault is written in one line (the Lab screen's dialog); the CLI's options say the same."""
_PAIR = re.compile(r"([0-9]{1,9})[,+]([0-9]{1,12})\Z")


class FaultRefused(ValueError):
    """A fault that cannot be set up as asked; ``str()`` says why in a sentence."""


@frozen_dataclass
class FaultSpec:
    """One failure to put under a member: the target and its parameters."""

    kind: str
    delay_ms: int = 0
    up_s: int = 0
    down_s: int = 0
    start: int = 0
    """First failing sector (512 bytes) of an ``error`` or ``unreadable`` range."""
    length: int = 0
    """Sectors in the ``error`` or ``unreadable`` range."""

    def describe(self) -> str:
        """The fault in words, for the confirmation and the log."""
        if self.kind == "delay":
            return f"every request delayed {self.delay_ms} ms"
        if self.kind == "flakey":
            return f"up {self.up_s} s, then failing every request for {self.down_s} s, repeating"
        if self.kind == "unreadable":
            return f"sectors {self.start}–{self.start + self.length - 1} unreadable until rewritten"
        return f"sectors {self.start}–{self.start + self.length - 1} unreadable and unwritable"


def kernel_text(root: Root, path: str) -> str:
    """A /proc, /sys or /lib/modules file's text under ``root``; ``""`` when it is not there.

    Something else in its place (a FIFO, a device, an unreadable file: under a ``--root``
    tree, say) raises :class:`SourceError` in the file's own words: taken for absent, it
    would make a wrong sentence ("no device-mapper", "no write-intent bitmap").
    """
    try:
        return root.read_text(path)
    except SourceError:
        if root.exists(path):
            raise
        return ""


def device_mapper_missing(root: Root | str = "/") -> str | None:
    """Why no dm device can be made on ``root``'s kernel, or ``None`` when device-mapper is there.

    The kernel lists its ``device-mapper`` control device in /proc/misc once dm_mod is loaded (or built in).
    """
    try:
        misc = kernel_text(as_root(root), "/proc/misc")
    except SourceError as exc:
        return f"cannot tell whether this kernel has device-mapper: {exc}"
    if any(line.split()[1:2] == ["device-mapper"] for line in misc.splitlines()[:512]):
        return None
    return NO_DEVICE_MAPPER


def parse_fault(kind: str, value: str) -> FaultSpec:
    """The spec for ``kind`` written as the CLI and the dialog take it: ``25``, ``20,5``, ``2048+16``.

    FaultRefused with a sentence when it does not parse; :func:`check_spec` judges the numbers.
    """
    value = value.strip()
    if kind == "delay":
        if not value.isdigit() or len(value) > 9:
            raise FaultRefused("a delay takes whole milliseconds, e.g. delay 25")
        return FaultSpec("delay", delay_ms=int(value))
    pair = _PAIR.match(value)
    if kind not in ("flakey", "error", "unreadable"):
        raise FaultRefused(f"a fault is one of: {FAULT_FORMS}")
    if pair is None:
        raise FaultRefused(
            "flakey takes UP,DOWN seconds, e.g. flakey 20,5"
            if kind == "flakey"
            else f"{kind} takes START+LEN sectors, e.g. {kind} 2048+16"
        )
    first, second = int(pair.group(1)), int(pair.group(2))
    if kind == "flakey":
        return FaultSpec("flakey", up_s=first, down_s=second)
    return FaultSpec(kind, start=first, length=second)


def parse_fault_line(line: str) -> FaultSpec:
    """``delay 25``, ``flakey 20,5``, ``error 2048+16`` or ``unreadable 8192+16`` as a spec.

    FaultRefused with a sentence otherwise.
    """
    words = line.split()
    if len(words) != 2:
        raise FaultRefused(f"write a fault as one of: {FAULT_FORMS}")
    return parse_fault(words[0].lower(), words[1])


def check_spec(spec: FaultSpec, sectors: int) -> FaultSpec:
    """``spec`` if it fits a device of ``sectors``; FaultRefused with the reason otherwise."""
    if spec.kind not in FAULT_KINDS:
        raise FaultRefused(f"unknown fault {spec.kind!r}: one of {', '.join(FAULT_KINDS)}")
    if sectors <= 0:
        raise FaultRefused("the member's size is unknown")
    if spec.kind == "delay" and not 1 <= spec.delay_ms <= MAX_DELAY_MS:
        raise FaultRefused(f"a delay is 1 to {MAX_DELAY_MS} ms")
    if spec.kind == "flakey" and not (1 <= spec.up_s <= MAX_FLAKEY_S and 1 <= spec.down_s <= MAX_FLAKEY_S):
        raise FaultRefused(f"flakey needs up and down times of 1 to {MAX_FLAKEY_S} s")
    if spec.kind == "error" and not (spec.length >= 1 and spec.start >= 0 and spec.start + spec.length <= sectors):
        raise FaultRefused(f"the error range must lie inside the member's {sectors} sectors")
    if spec.kind == "unreadable":
        if spec.start % DUST_SECTORS or spec.length % DUST_SECTORS or spec.length <= 0:
            raise FaultRefused(
                f"unreadable takes whole {DUST_BLOCK // 1024} KiB blocks: START and LEN multiples of {DUST_SECTORS} "
                "sectors, e.g. unreadable 8192+16"
            )
        if spec.length // DUST_SECTORS > MAX_DUST_BLOCKS:
            raise FaultRefused(f"unreadable covers at most {MAX_DUST_BLOCKS * DUST_SECTORS} sectors")
        if spec.start + spec.length > sectors:
            raise FaultRefused(f"the unreadable range must lie inside the member's {sectors} sectors")
    return spec


def dm_table(spec: FaultSpec, device: str, sectors: int) -> str:
    """The table ``dmsetup create --table`` takes, one target per line; ``device`` is ``/dev/loopN``."""
    check_spec(spec, sectors)
    if spec.kind == "delay":
        return f"0 {sectors} delay {device} 0 {spec.delay_ms}"
    if spec.kind == "flakey":
        return f"0 {sectors} flakey {device} 0 {spec.up_s} {spec.down_s}"
    if spec.kind == "unreadable":
        return f"0 {sectors} dust {device} 0 {DUST_BLOCK}"
    end = spec.start + spec.length
    lines = []
    if spec.start:
        lines.append(f"0 {spec.start} linear {device} 0")
    lines.append(f"{spec.start} {spec.length} error")
    if end < sectors:
        lines.append(f"{end} {sectors - end} linear {device} {end}")
    return "\n".join(lines)


def dust_blocks(spec: FaultSpec) -> range:
    """The dust blocks (of :data:`DUST_BLOCK`) an ``unreadable`` range covers, for ``addbadblock``."""
    return range(spec.start // DUST_SECTORS, (spec.start + spec.length) // DUST_SECTORS)


def dust_missing(root: Root | str = "/") -> str | None:
    """Why ``root``'s kernel cannot make a dust target, or ``None`` when it can.

    Loaded (/sys/module/dm_dust), built in (modules.builtin) or on disk for the running kernel (modules.dep,
    which dmsetup's table load makes the kernel modprobe).
    """
    root = as_root(root)
    if root.exists("/sys/module/dm_dust"):
        return None
    try:
        release = kernel_text(root, "/proc/sys/kernel/osrelease").strip()
        if release and "/" not in release and len(release) < 128:
            for listing in ("modules.builtin", "modules.dep"):
                if "/dm-dust.ko" in kernel_text(root, f"/lib/modules/{release}/{listing}"):
                    return None
    except SourceError as exc:
        return f"cannot tell whether this kernel has dm-dust: {exc}"
    return NO_DUST


def dm_name_for(array: str, loop: str) -> str:
    """``raidtop-lab-md0-loop3``: the name the lab gives the dm device over ``loop``."""
    if not _MD_NAME.match(array) or not is_loop_name(loop):
        raise FaultRefused(f"{array}/{loop}: not an md array and loop device name")
    return f"{DM_PREFIX}{array}-{loop}"


def dm_loop_under(device: str, root: Root | str = "/") -> tuple[str, str] | None:
    """(dm name, loop) when ``device`` (``dm-3``) is a lab dm device over exactly one loop device."""
    root = as_root(root)
    if not _DM_NAME.match(device):
        return None
    name = (root.read_optional(f"/sys/block/{device}/dm/name") or "").strip()
    if not name.startswith(DM_PREFIX):
        return None
    try:
        slaves = root.listdir(f"/sys/block/{device}/slaves")
    except SourceError:
        return None
    if len(slaves) != 1 or not is_loop_name(slaves[0]):
        return None
    return name, slaves[0]


def lab_dm_devices(root: Root | str = "/") -> list[tuple[str, str, str]]:
    """Every lab dm device now: (dm-N, dm name, loop under it)."""
    root = as_root(root)
    try:
        entries = root.listdir("/sys/block")
    except SourceError:
        return []
    found = []
    for entry in entries:
        under = dm_loop_under(entry, root)
        if under is not None:
            found.append((entry, *under))
    return found
