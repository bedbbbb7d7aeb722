"""Build the guest's initramfs: busybox, md/9p/overlay/nvme/ahci modules, mdadm, init.

The archive is uncompressed (the kernel unpacks it faster than it would
inflate it, and it is ~10 MB) and cached under a hash of everything that goes
into it, so only the first run after a change pays the ~1 s build.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from .cpio import CpioWriter
from .fetch import CACHE_DIR, GuestTree, PrepareError

INIT_SCRIPT = Path(__file__).with_name("guest_init.sh")

#: Modules the guest loads, in this order, each after the dependencies
#: modules.dep lists for it. (name, insmod parameters)
GUEST_MODULES: tuple[tuple[str, str], ...] = (
    # A soft dependency of libcrc32c that modules.dep does not show: without
    # it loaded first, libcrc32c and so raid456 fail to load.
    ("crc32c_generic", ""),
    ("md-mod", ""),
    ("raid0", ""),
    ("raid1", ""),
    ("raid10", ""),
    ("async_tx", ""),
    ("async_memcpy", ""),
    ("xor", ""),
    ("async_xor", ""),
    ("raid6_pq", ""),
    ("async_pq", ""),
    ("async_raid6_recov", ""),
    ("libcrc32c", ""),
    ("raid456", ""),
    ("linear", ""),
    # Scenarios use many loop disks; devtmpfs then has /dev/loop0..63 at once.
    ("loop", "max_loop=64"),
    ("virtio_pci", ""),
    ("9pnet_virtio", ""),
    ("9p", ""),
    ("overlay", ""),
    # Disks smartctl can read (test_smart.py): qemu's emulated NVMe
    # controller and SATA disks behind AHCI. Loaded on every boot (+0.2-0.8 s
    # under TCG, measured in pairs of boots on a busy host);
    # without such devices they just find nothing.
    ("nvme", ""),
    ("ahci", ""),
    ("sd_mod", ""),
)


def _module_key(name: str) -> str:
    """Module names treat '-' and '_' alike (md-mod.ko is loaded as md_mod)."""
    return name.replace("-", "_")


def module_load_order(modules_dir: Path) -> list[tuple[str, str]]:
    """Resolve :data:`GUEST_MODULES` against modules.dep.

    Returns:
        ``(path relative to modules_dir, parameters)`` in a safe load order.

    Raises:
        PrepareError: a module is missing from this kernel.
    """
    deps: dict[str, list[str]] = {}
    by_name: dict[str, str] = {}
    for line in (modules_dir / "modules.dep").read_text().splitlines():
        path, _, rest = line.partition(":")
        deps[path] = rest.split()
        by_name[_module_key(Path(path).name.split(".ko")[0])] = path

    order: list[tuple[str, str]] = []
    loaded: set[str] = set()

    def add(path: str, params: str) -> None:
        if path in loaded:
            return
        # modules.dep lists dependencies so that the last one must load first.
        for dependency in reversed(deps[path]):
            add(dependency, "")
        loaded.add(path)
        order.append((path, params))

    for name, params in GUEST_MODULES:
        path = by_name.get(_module_key(name))
        if path is None:
            raise PrepareError(f"kernel module {name} not found in {modules_dir}")
        add(path, params)
    return order


def shared_libraries(binary: Path) -> list[Path]:
    """The libraries ``ldd`` lists for a binary (absolute paths on the host)."""
    proc = subprocess.run(["ldd", str(binary)], capture_output=True, text=True)
    if proc.returncode != 0:
        if "not a dynamic executable" in proc.stdout + proc.stderr:
            return []
        raise PrepareError(f"ldd {binary} failed: {proc.stderr.strip()}")
    libraries = []
    for line in proc.stdout.splitlines():
        match = re.search(r"(?:=>\s*)?(/\S+)\s+\(0x", line)
        if match:
            libraries.append(Path(match.group(1)))
        elif "not found" in line:
            raise PrepareError(f"{binary} needs a library the host lacks: {line.strip()}")
    return libraries


@dataclass(frozen=True)
class _Entry:
    """One archive member: a file copied from ``source`` or a symlink to ``target``."""

    path: str
    source: Path | None = None
    target: str | None = None
    mode: int = 0o644


def _entries(tree: GuestTree) -> tuple[list[_Entry], str]:
    """Everything the archive holds, plus the insmod list (/etc/realmd/modules)."""
    entries = [
        _Entry("init", source=INIT_SCRIPT, mode=0o755),
        _Entry("bin/busybox", source=tree.busybox, mode=0o755),
        _Entry("sbin/mdadm", source=tree.mdadm, mode=0o755),
    ]
    applets = subprocess.run([str(tree.busybox), "--list"], capture_output=True, text=True, check=True).stdout.split()
    entries += [_Entry(f"bin/{applet}", target="busybox") for applet in applets if applet != "busybox"]
    # Same paths as on the host, where ldd found them; the file behind a
    # symlink is stored under the listed name.
    entries += [
        _Entry(str(library).lstrip("/"), source=library.resolve(), mode=0o755)
        for library in shared_libraries(tree.mdadm)
    ]
    load_order = module_load_order(tree.modules_dir)
    module_dir = f"lib/modules/{tree.kernel_version}"
    entries += [_Entry(f"{module_dir}/{path}", source=tree.modules_dir / path) for path, _ in load_order]
    insmod_list = "".join(f"/{module_dir}/{path} {params}".rstrip() + "\n" for path, params in load_order)
    return entries, insmod_list


def build_initramfs(tree: GuestTree) -> Path:
    """Return the initramfs for ``tree``, building it if its inputs changed.

    The cache key hashes every member's path and content, the insmod list and
    this builder's own source, so editing guest_init.sh, a new mdadm or a host
    libc update all give a fresh image.
    """
    entries, insmod_list = _entries(tree)
    digest = hashlib.sha256()
    for builder_source in (Path(__file__), Path(__file__).with_name("cpio.py")):
        digest.update(builder_source.read_bytes())
    digest.update(tree.kernel_version.encode() + insmod_list.encode())
    contents: dict[str, bytes] = {}
    for entry in entries:
        digest.update(f"{entry.path}\0{entry.target}\0{entry.mode}\0".encode())
        if entry.source is not None:
            contents[entry.path] = entry.source.read_bytes()
            digest.update(hashlib.sha256(contents[entry.path]).digest())
    image = CACHE_DIR / "initramfs" / f"{tree.kernel_version}-{digest.hexdigest()[:16]}.cpio"
    if image.exists():
        return image

    image.parent.mkdir(parents=True, exist_ok=True)
    partial = image.with_suffix(f".{os.getpid()}.partial")
    with open(partial, "wb") as out:
        archive = CpioWriter(out)
        for mount_point in ("dev", "proc", "sys", "host", "rw", "newroot", "tmp", "run", "etc/realmd"):
            archive.directory(mount_point)
        # The kernel opens /dev/console for init before devtmpfs is mounted.
        archive.char_device("dev/console", 5, 1)
        archive.file("etc/realmd/modules", insmod_list.encode())
        for entry in entries:
            if entry.target is not None:
                archive.symlink(entry.path, entry.target)
            else:
                archive.file(entry.path, contents[entry.path], entry.mode)
        archive.close()
    partial.rename(image)  # atomic: a parallel reader never sees half an image
    return image
