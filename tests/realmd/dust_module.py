"""Build dm-dust.ko for the guest's kernel, once: Debian builds its kernels without CONFIG_DM_DUST.

The lab's ``unreadable`` fault is device-mapper's ``dust`` target, and the cached
Debian 6.1 kernel's config says ``# CONFIG_DM_DUST is not set``. dm-dust.c uses
only the public device-mapper interface, so it builds out of tree against the
kernel's own headers: the exact source (``linux-source-6.1``) and headers
(``linux-headers-<abi>``, ``linux-kbuild-6.1``) of the cached kernel's Debian
version are fetched with ``apt-get download`` and unpacked with ``dpkg -x``, as
fetch.py does, so the host system is not changed. The module is unsigned; the
guest boots without Secure Boot, so the kernel loads it (tainted).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from .fetch import GuestTree, PrepareError, _apt, _run, cache_lock
from .paths import CACHE_DIR

SOURCE_FILE = "drivers/md/dm-dust.c"


def dust_module(tree: GuestTree) -> Path:
    """The built dm-dust.ko for ``tree``'s kernel, building it on first use; PrepareError says why not."""
    final = CACHE_DIR / f"{tree.kernel_version}-dm-dust"
    module = final / "dm-dust.ko"
    if module.exists():
        return module
    for tool in ("gcc-12", "make", "xz"):
        if shutil.which(tool) is None:
            raise PrepareError(f"{tool} not found: building dm-dust.ko needs gcc-12, make and xz-utils")
    with cache_lock():
        if module.exists():
            return module
        partial = CACHE_DIR / f"{tree.kernel_version}-dm-dust.partial"
        shutil.rmtree(partial, ignore_errors=True)
        try:
            built = _build(tree, partial)
            final.mkdir(parents=True, exist_ok=True)
            shutil.copy2(built, final / "dm-dust.ko.tmp")
            (final / "dm-dust.ko.tmp").rename(module)
        finally:
            shutil.rmtree(partial, ignore_errors=True)  # ~1 GB of headers and source once unpacked
    return module


def _build(tree: GuestTree, work: Path) -> Path:
    version = tree.packages[f"linux-image-{tree.kernel_version}"]
    abi = tree.kernel_version.rsplit("-", 1)[0]  # 6.1.0-56
    series = ".".join(abi.split(".")[:2])  # 6.1
    names = [
        f"linux-headers-{tree.kernel_version}={version}",
        f"linux-headers-{abi}-common={version}",
        f"linux-kbuild-{series}={version}",
        f"linux-source-{series}={version}",
    ]
    debs = work / "debs"
    debs.mkdir(parents=True)
    proc = _apt(["download", *names], cwd=debs)
    if proc.returncode != 0:
        raise PrepareError(f"apt-get download {' '.join(names)} failed: {proc.stderr.strip()[-500:]}")
    root = work / "root"
    for deb in sorted(debs.glob("*.deb")):
        unpack = _run(["dpkg", "-x", str(deb), str(root)])
        if unpack.returncode != 0:
            raise PrepareError(f"dpkg -x {deb.name} failed: {unpack.stderr.strip()[-500:]}")
    headers = root / "usr" / "src" / f"linux-headers-{tree.kernel_version}"
    makefile = headers / "Makefile"
    # The flavour's Makefile includes the common headers by their installed, absolute path.
    makefile.write_text(makefile.read_text().replace("include /usr/src/", f"include {root}/usr/src/"))
    tarball = root / "usr" / "src" / f"linux-source-{series}.tar.xz"
    member = f"linux-source-{series}/{SOURCE_FILE}"
    proc = _run(["tar", "-xJf", str(tarball), "-C", str(work), member])
    if proc.returncode != 0:
        raise PrepareError(f"{member} not in {tarball.name}: {proc.stderr.strip()[-300:]}")
    source = work / "module"
    source.mkdir()
    shutil.copy2(work / member, source / "dm-dust.c")
    (source / "Kbuild").write_text("obj-m := dm-dust.o\n")
    make = subprocess.run(
        ["make", "-C", str(headers), f"M={source}", "modules"], capture_output=True, text=True, timeout=600
    )
    built = source / "dm-dust.ko"
    if make.returncode != 0 or not built.exists():
        raise PrepareError(f"building dm-dust.ko failed: {(make.stdout + make.stderr).strip()[-800:]}")
    return built
