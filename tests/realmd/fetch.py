"""Fetch the guest's kernel, mdadm and busybox from Debian, once.

The packages are fetched with ``apt-get download`` and unpacked with
``dpkg -x`` into the cache, so the host system is never changed. A stamp
file per kernel version marks a complete unpack; later runs only look at it.
qemu itself is the one thing installed on the host, and only on request.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import subprocess
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Iterator

from .paths import CACHE_DIR

#: Generic Debian 6.1 kernels only: the -cloud-amd64 flavour has no 9p.
KERNEL_PACKAGE = re.compile(r"^linux-image-(6\.1\.0-(\d+)-amd64)$")
USERLAND_PACKAGES = ("mdadm", "busybox-static")
QEMU_BINARY = "qemu-system-x86_64"
APT_LOCK_WAIT_SECONDS = 600
STAMP_NAME = "stamp.json"


class PrepareError(RuntimeError):
    """The VM cannot be prepared here; the message says why (used as skip reason)."""


@dataclass(frozen=True)
class GuestTree:
    """The unpacked Debian packages the guest is built from."""

    kernel_version: str
    root: Path

    @property
    def vmlinuz(self) -> Path:
        return self.root / "boot" / f"vmlinuz-{self.kernel_version}"

    @property
    def modules_dir(self) -> Path:
        return self.root / "lib" / "modules" / self.kernel_version

    @property
    def busybox(self) -> Path:
        return self.root / "bin" / "busybox"

    @property
    def mdadm(self) -> Path:
        return self.root / "sbin" / "mdadm"

    @property
    def packages(self) -> dict[str, str]:
        """Package name -> version, as recorded when the tree was unpacked."""
        stamp = json.loads((self.root.parent / STAMP_NAME).read_text())
        return stamp["packages"]


def _run(cmd: list[str], cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)


def _apt(args: list[str], cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run apt-get, waiting while another process (e.g. an upgrade) holds a lock.

    DPkg::Lock::Timeout covers the dpkg lock only; the lists and archive
    locks of ``apt-get update`` fail at once, so those are retried here.
    """
    if shutil.which("apt-get") is None:
        raise PrepareError("apt-get not found: the realmd VM needs a Debian/Ubuntu host")
    cmd = [
        "apt-get",
        "-q",
        "-o",
        f"DPkg::Lock::Timeout={APT_LOCK_WAIT_SECONDS}",
        # apt-get download into a root-owned folder otherwise warns about _apt
        "-o",
        "APT::Sandbox::User=root",
        *args,
    ]
    deadline = time.monotonic() + APT_LOCK_WAIT_SECONDS
    while True:
        proc = _run(cmd, cwd=cwd)
        locked = "Could not get lock" in proc.stderr or "is held by process" in proc.stderr
        if proc.returncode == 0 or not locked or time.monotonic() > deadline:
            return proc
        time.sleep(2)


def _apt_update() -> None:
    proc = _apt(["update"])
    if proc.returncode != 0:
        raise PrepareError(f"apt-get update failed: {proc.stderr.strip()[-500:]}")


@contextmanager
def cache_lock() -> Iterator[None]:
    """Serialise cache writers (parallel pytest workers, two checkouts)."""
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    with open(CACHE_DIR / ".lock", "w") as lock_file:
        fcntl.flock(lock_file, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock_file, fcntl.LOCK_UN)


def ensure_qemu(install: bool = False) -> Path:
    """Return the qemu binary, installing Debian's qemu-system-x86 if asked to.

    Args:
        install: run ``apt-get install -y qemu-system-x86`` when qemu is missing
            (needs root). Off by default: a test run should not change the host
            unless CI or the user asked for it.

    Raises:
        PrepareError: qemu is missing and could not (or may not) be installed.
    """
    found = shutil.which(QEMU_BINARY)
    if found:
        return Path(found)
    if not install:
        raise PrepareError(
            f"{QEMU_BINARY} not found: apt-get install qemu-system-x86 "
            "(or set REALMD_INSTALL_QEMU=1 to let the tests install it)"
        )
    if os.geteuid() != 0:
        raise PrepareError(f"{QEMU_BINARY} not found and installing it needs root")
    proc = _apt(["install", "-y", "--no-install-recommends", "qemu-system-x86"])
    if proc.returncode != 0 and "Unable to locate package" in proc.stderr:
        _apt_update()
        proc = _apt(["install", "-y", "--no-install-recommends", "qemu-system-x86"])
    found = shutil.which(QEMU_BINARY)
    if proc.returncode != 0 or not found:
        raise PrepareError(f"installing qemu-system-x86 failed: {proc.stderr.strip()[-500:]}")
    return Path(found)


def cached_kernel_versions() -> list[str]:
    """Kernel versions with a complete unpack in the cache, newest first."""
    versions = []
    for stamp in CACHE_DIR.glob(f"*/{STAMP_NAME}"):
        match = KERNEL_PACKAGE.match(f"linux-image-{stamp.parent.name}")
        if match:
            versions.append((int(match.group(2)), match.group(1)))
    return [version for _, version in sorted(versions, reverse=True)]


def newest_available_kernel() -> str:
    """The newest generic 6.1 kernel apt knows about (updates the lists if none)."""
    for attempt in range(2):
        proc = _run(["apt-cache", "pkgnames", "linux-image-6.1.0-"])
        found = []
        for name in proc.stdout.split():
            match = KERNEL_PACKAGE.match(name)
            if match:
                found.append((int(match.group(2)), match.group(1)))
        if found:
            return max(found)[1]
        if attempt == 0:
            _apt_update()
    raise PrepareError("apt knows no linux-image-6.1.0-*-amd64 package (not Debian 12?)")


def _depmod(root: Path, kernel_version: str) -> None:
    """Write modules.dep; dpkg -x skips the postinst that normally does it.

    The host's depmod is used when installed; otherwise the busybox applet
    from the unpacked busybox-static writes the same modules.dep format.
    """
    depmod = shutil.which("depmod")
    cmd = [depmod] if depmod else [str(root / "bin" / "busybox"), "depmod"]
    proc = _run([*cmd, "-b", str(root), kernel_version])
    if proc.returncode != 0 or not (root / "lib/modules" / kernel_version / "modules.dep").exists():
        raise PrepareError(f"depmod failed: {proc.stderr.strip()[-500:]}")


def _download_and_unpack(kernel_version: str, target: Path) -> dict[str, str]:
    """Download the guest packages and unpack them into ``target/root``."""
    debs = target / "debs"
    debs.mkdir(parents=True)
    names = [f"linux-image-{kernel_version}", *USERLAND_PACKAGES]
    proc = _apt(["download", *names], cwd=debs)
    if proc.returncode != 0 and "Unable to locate package" in proc.stderr:
        _apt_update()
        proc = _apt(["download", *names], cwd=debs)
    if proc.returncode != 0:
        raise PrepareError(f"apt-get download {' '.join(names)} failed: {proc.stderr.strip()[-500:]}")
    root = target / "root"
    versions = {}
    for deb in sorted(debs.glob("*.deb")):
        unpack = _run(["dpkg", "-x", str(deb), str(root)])
        if unpack.returncode != 0:
            raise PrepareError(f"dpkg -x {deb.name} failed: {unpack.stderr.strip()[-500:]}")
        fields = _run(["dpkg-deb", "-f", str(deb), "Package", "Version"]).stdout
        info = dict(line.split(": ", 1) for line in fields.splitlines() if ": " in line)
        versions[info["Package"]] = info["Version"]
    # The .debs (~70 MB) are not needed once unpacked; a refetch takes seconds.
    shutil.rmtree(debs)
    return versions


def fetch_guest_tree(kernel_version: str | None = None) -> GuestTree:
    """Return the unpacked guest packages, downloading them on first use.

    Args:
        kernel_version: e.g. ``"6.1.0-56-amd64"``. Default: REALMD_KERNEL, else
            the newest one already cached, else the newest apt offers.

    Raises:
        PrepareError: apt, the network or dpkg failed; the message says which.
    """
    kernel_version = kernel_version or os.environ.get("REALMD_KERNEL")
    if not kernel_version:
        cached = cached_kernel_versions()
        kernel_version = cached[0] if cached else newest_available_kernel()
    if not KERNEL_PACKAGE.match(f"linux-image-{kernel_version}"):
        raise PrepareError(f"{kernel_version!r} is not a generic 6.1 amd64 kernel version")
    final = CACHE_DIR / kernel_version
    tree = GuestTree(kernel_version, final / "root")
    if (final / STAMP_NAME).exists():
        return tree
    with cache_lock():
        if (final / STAMP_NAME).exists():  # another worker finished meanwhile
            return tree
        partial = CACHE_DIR / f"{kernel_version}.partial"
        shutil.rmtree(partial, ignore_errors=True)
        shutil.rmtree(final, ignore_errors=True)
        versions = _download_and_unpack(kernel_version, partial)
        _depmod(partial / "root", kernel_version)
        (partial / STAMP_NAME).write_text(json.dumps({"packages": versions}, indent=1) + "\n")
        partial.rename(final)
    return tree
