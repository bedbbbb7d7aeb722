"""Run ``dmsetup status --target raid`` safely, only where dm-raid is loaded.

The kernel's own status line is used, not ``lvs``: it is what dm-raid
itself reports, it costs one ioctl per volume (``lvs`` scans every PV's
metadata, takes the VG lock and has taken seconds on a busy host), and it
works where lvm2 is not installed (a rescue system, a container with
/dev/mapper). What only lvm2 knows (``partial``, ``refresh needed``) is in
the README: it comes from VG metadata, not the kernel.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable

from raidtop.collect.bounded_run import Ran, run_bounded
from raidtop.collect.dmraid.status import parse_status
from raidtop.collect.source import Root
from raidtop.model.md import MdArray

TIMEOUT_S = 3.0
LIMIT = 1 << 20
"""1 MiB of status: a line per volume is under 200 bytes."""
_SBIN = "/usr/sbin:/sbin:/usr/bin:/bin"

Runner = Callable[[list[str]], Ran]


def _run(argv: list[str]) -> Ran:
    return run_bounded(argv, timeout_s=TIMEOUT_S, limit=LIMIT, keep_stderr=True)


class DmRaidReader:
    """Reads dm-raid volumes each sample while the dm_raid module is loaded."""

    def __init__(self, run: Runner | None = None) -> None:
        """``run``: how the command is run (tests pass recorded output); default: the bounded runner, live root only."""
        self._run = run
        self._dmsetup: str | None = None

    def read(self, root: Root) -> tuple[list[MdArray], list[str]]:
        """The volumes, and notes for what could not be read."""
        # No module, no volume: the common case costs one stat, no process.
        if not root.exists("/sys/module/dm_raid"):
            return [], []
        run = self._run
        if run is None:
            if not root.is_live:
                return [], []  # a --root tree or recording: never run a program about the live host
            self._dmsetup = self._dmsetup or shutil.which("dmsetup", path=_SBIN)
            if self._dmsetup is None:
                return [], ["dm-raid is loaded but dmsetup is not installed: LVM RAID volumes are not shown"]
            run = _run
        argv = [self._dmsetup or "dmsetup", "status", "--target", "raid"]
        try:
            ran = run(argv)
        except OSError as exc:
            return [], [f"dmsetup status: {exc.strerror or exc}"]
        if ran.cut is not None:
            return [], [f"dmsetup status: stopped ({ran.cut}); LVM RAID volumes not shown this sample"]
        if ran.returncode != 0:
            last = ran.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no message"]
            return [], [f"dmsetup status failed: {last[0][:200]}"]
        return parse_status(ran.stdout.decode("utf-8", "replace"))
