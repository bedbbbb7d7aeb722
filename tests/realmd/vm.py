"""Run a shell script as root inside a throwaway VM with a real md driver.

One boot per call: the guest mounts the host's root read-only over 9p under a
tmpfs overlay, runs the script in a chroot (cwd = the project), and powers
off. Files the script puts in ``$RESULTS`` come back through a second,
writable 9p share.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import shlex
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Sequence

from .boot import BootOutcome, VmImage, boot
from .fetch import PrepareError, ensure_qemu, fetch_guest_tree
from .guest_disks import GuestDisk, disk_arguments
from .initramfs import build_initramfs
from .kernel import boot_kernel
from .paths import REPO_ROOT
from .qmp import QmpBridge, qmp_arguments

__all__ = ["GuestResult", "PrepareError", "VmImage", "prepare_image", "run_in_guest"]

#: Where the writable share appears inside the guest.
GUEST_SHARE = "/run/realmd/share"
EXIT_MARKER = re.compile(r"REALMD-EXIT (\d+)\s*$", re.MULTILINE)


@dataclass(frozen=True)
class GuestResult:
    """The outcome of one :func:`run_in_guest` call.

    Attributes:
        returncode: the script's exit status, or None if it never finished
            (timeout, kernel panic, init failure: see ``console_log``).
        console_log: everything the guest printed on its serial console,
            including the script's stdout and stderr.
        results_dir: host folder holding what the script wrote to ``$RESULTS``.
        dmesg: the guest kernel log at the end (empty if the script never finished).
        timed_out: the host killed qemu after ``timeout`` seconds.
        elapsed: wall seconds qemu ran (the successful boot only).
        stalled_boots: boots retried because the kernel never reached init.
        qmp_log: ``(name, command, reply)`` for each QMP request the guest
            made through the bridge (``qmp=True``).
        device_dir: the host folder that held the disk images and the QMP
            socket during the boot (removed before this returns).
    """

    returncode: int | None
    console_log: str
    results_dir: Path
    dmesg: str = ""
    timed_out: bool = False
    elapsed: float = 0.0
    stalled_boots: int = 0
    qmp_log: tuple[tuple[str, dict, dict], ...] = ()
    device_dir: Path | None = None

    @property
    def init_at(self) -> float | None:
        """Guest uptime (s) when init started: the kernel's share of the boot."""
        return _marker_seconds("REALMD-INIT", self.console_log)

    @property
    def ready_at(self) -> float | None:
        """Guest uptime (s) when the script started: the whole boot and setup."""
        return _marker_seconds("REALMD-READY", self.console_log)

    def describe_failure(self, tail_lines: int = 60) -> str:
        """A short text for assertion messages: status and the console's tail."""
        status = "timed out" if self.timed_out else f"returncode={self.returncode}"
        tail = "\n".join(self.console_log.splitlines()[-tail_lines:])
        return f"guest {status} after {self.elapsed:.1f}s; console tail:\n{tail}"


@functools.cache
def prepare_image(install_qemu: bool = False) -> VmImage:
    """Make sure qemu, the Debian packages, the kernel and initramfs are ready.

    Cached per process; on a fresh machine the first call downloads ~72 MB.

    Args:
        install_qemu: apt-get install qemu-system-x86 if it is missing.

    Raises:
        PrepareError: something is missing and cannot be fetched or built.
    """
    if os.uname().machine != "x86_64":
        raise PrepareError(f"the realmd VM needs an x86_64 host, not {os.uname().machine}")
    qemu = ensure_qemu(install=install_qemu)
    tree = fetch_guest_tree()
    return VmImage(qemu, boot_kernel(tree), build_initramfs(tree), tree.kernel_version)


def _job_script(results: str, cwd: Path) -> str:
    """The wrapper init runs in the chroot: environment, cwd, then the script."""
    environment = {
        "HOME": "/root",
        "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "RESULTS": results,
        # No udev in the guest: mdadm makes its own device nodes and does
        # not wait for udev or try to start systemd units.
        "MDADM_NO_UDEV": "1",
        "MDADM_NO_SYSTEMCTL": "1",
        # The root is read-only underneath; .pyc writes would only fill tmpfs.
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONUNBUFFERED": "1",
    }
    exports = "".join(f"export {key}={shlex.quote(value)}\n" for key, value in environment.items())
    return f"{exports}cd {shlex.quote(str(cwd))} || exit 125\nexec /bin/bash {GUEST_SHARE}/script.sh\n"


def run_in_guest(
    script: str,
    timeout: float = 120.0,
    results_dir: Path | None = None,
    cwd: Path = REPO_ROOT,
    image: VmImage | None = None,
    disks: Sequence[GuestDisk] = (),
    qmp: bool = False,
) -> GuestResult:
    """Boot the VM, run ``script`` with bash as root inside it, power off.

    Args:
        script: bash script run after setup, cwd = the project checkout. md,
            loop (64 devices) and mdadm are ready; ``$RESULTS`` is a folder
            that comes back to the host. Its stdout/stderr go to the console.
            ``tests/realmd/guest_lib.sh`` has helpers to source.
        timeout: wall seconds for the boot, script and power-off; qemu is
            killed after it. A boot that stalls before init (rare under
            TCG) is retried once, verbosely, with a fresh ``timeout``.
        results_dir: empty host folder to receive ``$RESULTS`` (created if
            needed); default: a new temporary folder the caller owns.
        cwd: the folder the script starts in (seen in the guest at the same path).
        image: what to boot; default :func:`prepare_image` (cached per process).
        disks: emulated NVMe/SATA disks to attach (``guest_disks.GuestDisk``);
            their sparse images live in a temp folder removed after the boot.
        qmp: give qemu a QMP socket and run a :class:`qmp.QmpBridge`, so the
            script can ask the host for ``qom-get``/``qom-set`` (``qmp_request``
            in guest_lib.sh).

    Returns:
        The script's exit status, the console log and the results folder.

    Raises:
        PrepareError: qemu or the cached kernel/initramfs cannot be prepared.
    """
    image = image or prepare_image()
    if results_dir is None:
        results_dir = Path(tempfile.mkdtemp(prefix="realmd-results-"))
    results_dir.mkdir(parents=True, exist_ok=True)

    # The share holds the job, the console log and the results; the results
    # move to results_dir afterwards, the rest goes with the temp dir. Disk
    # images and the QMP socket get their own folder: the guest need not see
    # them, and a short path keeps the socket under the 108-byte limit.
    with (
        tempfile.TemporaryDirectory(prefix="realmd-share-") as share_name,
        tempfile.TemporaryDirectory(prefix="realmd-dev-") as device_name,
    ):
        share = Path(share_name)
        (share / "script.sh").write_text(script)
        (share / "job.sh").write_text(_job_script(f"{GUEST_SHARE}/results", cwd))
        (share / "results").mkdir()
        extra_args = disk_arguments(disks, Path(device_name))
        socket_path = Path(device_name) / "qmp.sock"
        if qmp:
            extra_args += qmp_arguments(socket_path)

        with QmpBridge(share / "results", socket_path) if qmp else contextlib.nullcontext() as bridge:
            outcome = boot(image, share, share / "console.log", timeout, extra_args=extra_args)
            stalled_logs = []
            if outcome.stalled:
                # Verbose this time, so a second stall shows where the kernel stops.
                stalled_logs.append(outcome.console_log)
                outcome = boot(image, share, share / "console.log", timeout, verbose=True, extra_args=extra_args)
        qmp_log = tuple(bridge.handled) if bridge is not None else ()
        console_log = (
            "".join(f"{log}\n[realmd: boot stalled before init; retried]\n" for log in stalled_logs)
            + outcome.console_log
        )

        returncode = None if outcome.timed_out else _read_exit_code(share, outcome)
        dmesg_path = share / "dmesg.txt"
        dmesg = dmesg_path.read_text(errors="replace") if dmesg_path.exists() else ""
        for child in (share / "results").iterdir():
            shutil.move(str(child), results_dir / child.name)

    return GuestResult(
        returncode,
        console_log,
        results_dir,
        dmesg,
        outcome.timed_out,
        outcome.elapsed,
        len(stalled_logs),
        qmp_log,
        Path(device_name),
    )


def _marker_seconds(marker: str, console_log: str) -> float | None:
    match = re.search(rf"{marker} ([\d.]+)", console_log)
    return float(match.group(1)) if match else None


def _read_exit_code(share: Path, outcome: BootOutcome) -> int | None:
    """The exit code init wrote to the share, else the console's marker line."""
    exit_file = share / "exitcode"
    if exit_file.exists() and exit_file.read_text().strip().isdigit():
        return int(exit_file.read_text().strip())
    match = EXIT_MARKER.search(outcome.console_log.replace("\r", ""))
    return int(match.group(1)) if match else None
