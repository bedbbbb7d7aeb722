"""Mounted filesystems from ``/proc/self/mountinfo``, keyed by ``major:minor``.

The third field (``major:minor``) names the block device exactly; the source
field is a free string (``/dev/mapper/vg-lv``, ``UUID=...``, ``none``) and is
not trusted to name a device.
"""

from __future__ import annotations

import re

from raidtop.model.frozen import frozen_dataclass
from raidtop.collect.source import Root, SourceError

_DEV = re.compile(r"^\d{1,9}:\d{1,9}$")
_OCTAL = re.compile(r"\\([0-7]{3})")
MAX_MOUNTS = 20000
"""Lines read at most; a host with more mounts than that is not a storage server."""


@frozen_dataclass(slots=False)
class Mount:
    """One mount of a block device."""

    dev: str
    """``major:minor``."""
    mountpoint: str
    fstype: str
    source: str
    options: str = ""
    """The filesystem's own (super) options: ext4's ``stripe=``, XFS's ``sunit=``/``swidth=``."""


def unescape(field: str) -> str:
    r"""Undo the kernel's octal escapes (``\040`` is a space)."""
    return _OCTAL.sub(lambda m: chr(int(m.group(1), 8)), field)


def parse_mountinfo(text: str) -> dict[str, list[Mount]]:
    """Every mount with a ``major:minor``, by device, in table order; bad lines are skipped."""
    found: dict[str, list[Mount]] = {}
    for line in text.splitlines()[:MAX_MOUNTS]:
        fields = line.split(" ")
        try:
            sep = fields.index("-", 6)
        except ValueError:
            continue
        if len(fields) < sep + 3 or not _DEV.match(fields[2]):
            continue
        options = fields[sep + 3] if len(fields) > sep + 3 else ""
        mount = Mount(fields[2], unescape(fields[4]), unescape(fields[sep + 1]), unescape(fields[sep + 2]), options)
        found.setdefault(mount.dev, []).append(mount)
    return found


def read_mounts(root: Root) -> tuple[dict[str, list[Mount]], list[str]]:
    """The mount table under ``root``, and a note when it could not be read."""
    try:
        return parse_mountinfo(root.read_text("/proc/self/mountinfo")), []
    except SourceError as exc:
        return {}, [f"storage stack: {exc}; mountpoints unknown"]
