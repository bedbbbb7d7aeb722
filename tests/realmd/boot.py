"""Start qemu for one guest boot and collect its console, with time limits.

Always TCG: /dev/kvm on these machines is PVM and hangs a stock kernel.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Sequence

MEMORY_MIB = 1024
#: A boot reaches init in ~2-4 s; rarely a TCG boot stalls before that.
#: No init after this long counts as such a stall (see BootOutcome.stalled).
INIT_DEADLINE_SECONDS = 60.0
INIT_MARKER = b"REALMD-INIT"


@dataclass(frozen=True)
class VmImage:
    """What a boot needs: the qemu binary, a kernel and its initramfs."""

    qemu: Path
    kernel: Path
    initramfs: Path
    kernel_version: str


@dataclass(frozen=True)
class BootOutcome:
    """How one qemu run ended."""

    console_log: str
    elapsed: float
    timed_out: bool
    #: The kernel never started init: the boot itself stalled, not the job.
    stalled: bool


def kernel_args(verbose: bool | None = None) -> str:
    """Kernel command line; ``verbose`` (default: REALMD_VERBOSE=1) drops "quiet"."""
    if verbose is None:
        verbose = os.environ.get("REALMD_VERBOSE") == "1"
    # panic=-1 with -no-reboot: a guest panic ends qemu at once, not at the timeout.
    return "console=ttyS0 panic=-1" + ("" if verbose else " quiet")


def qemu_command(
    image: VmImage, share_dir: Path, verbose: bool | None = None, extra_args: Sequence[str] = ()
) -> list[str]:
    """The qemu command line for one boot with ``share_dir`` as the writable share.

    ``extra_args`` go last: extra devices (``guest_disks.disk_arguments``), a
    QMP socket.
    """

    def ninep(tag: str, path: Path | str, readonly: bool) -> list[str]:
        # multidevs=remap: the host root spans several filesystems; without it
        # inode numbers from different ones could collide in the guest.
        options = f"local,id={tag},path={path},security_model=none,multidevs=remap"
        if readonly:
            options += ",readonly=on"
        return ["-fsdev", options, "-device", f"virtio-9p-pci,fsdev={tag},mount_tag={tag}"]

    return [
        str(image.qemu),
        "-nographic",
        "-accel",
        "tcg,thread=multi",
        "-cpu",
        "max",
        "-smp",
        "2",
        "-m",
        str(MEMORY_MIB),
        "-no-reboot",
        "-nic",
        "none",
        "-kernel",
        str(image.kernel),
        "-initrd",
        str(image.initramfs),
        "-append",
        kernel_args(verbose),
        *ninep("hostroot", "/", readonly=True),
        *ninep("share", share_dir, readonly=False),
        *extra_args,
    ]


def _wait_for_init(process: subprocess.Popen[bytes], console_path: Path, deadline: float) -> bool:
    """True once init announced itself; False if qemu exits or the deadline passes first."""
    while True:
        if INIT_MARKER in console_path.read_bytes():
            return True
        if process.poll() is not None or time.monotonic() > deadline:
            return INIT_MARKER in console_path.read_bytes()
        time.sleep(0.2)


def boot(
    image: VmImage,
    share_dir: Path,
    console_path: Path,
    timeout: float,
    verbose: bool | None = None,
    extra_args: Sequence[str] = (),
) -> BootOutcome:
    """Run qemu until the guest powers off, ``timeout`` passes or init never comes.

    The console goes to ``console_path`` (a file, so a chatty guest can never
    block on a full pipe). On any limit qemu is killed, by its own pid.
    """
    started = time.monotonic()
    timed_out = False
    with open(console_path, "wb") as console:
        process = subprocess.Popen(
            qemu_command(image, share_dir, verbose, extra_args),
            stdin=subprocess.DEVNULL,
            stdout=console,
            stderr=subprocess.STDOUT,
            # Own session: a Ctrl-C aimed at pytest does not reach qemu
            # first, so the finally below still reaps it.
            start_new_session=True,
        )
        try:
            init_deadline = started + min(INIT_DEADLINE_SECONDS, timeout)
            stalled = not _wait_for_init(process, console_path, init_deadline)
            if stalled:
                timed_out = process.poll() is None
            else:
                try:
                    process.wait(timeout=max(0.0, started + timeout - time.monotonic()))
                except subprocess.TimeoutExpired:
                    timed_out = True
        finally:
            if process.poll() is None:
                process.send_signal(signal.SIGKILL)
                process.wait()
    console_log = console_path.read_text(errors="replace")
    return BootOutcome(console_log, time.monotonic() - started, timed_out, stalled)
