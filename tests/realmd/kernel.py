"""Unpack the kernel image once so qemu can boot it without decompressing.

Debian's vmlinuz is an xz-compressed bzImage; under TCG the guest spends
~3 s inflating it on every boot. The ELF inside carries a PVH entry note
(CONFIG_PVH=y), which qemu boots directly, so one unpack on the host saves
those seconds on every later boot.
"""

from __future__ import annotations

import lzma
import os
from pathlib import Path

from .fetch import GuestTree

XZ_MAGIC = b"\xfd7zXZ\x00"
ELF_MAGIC = b"\x7fELF"


def _has_pvh_entry(tree: GuestTree) -> bool:
    config = tree.root / "boot" / f"config-{tree.kernel_version}"
    return config.exists() and "\nCONFIG_PVH=y\n" in config.read_text()


def boot_kernel(tree: GuestTree) -> Path:
    """The kernel file to hand to ``qemu -kernel``.

    Returns the unpacked ELF vmlinux (cached next to the unpacked packages)
    when this kernel supports PVH boot and is xz-compressed; otherwise the
    vmlinuz itself, which boots the same way, only ~3 s slower.
    """
    vmlinux = tree.root.parent / "vmlinux"
    if vmlinux.exists():
        return vmlinux
    if not _has_pvh_entry(tree):
        return tree.vmlinuz
    image = tree.vmlinuz.read_bytes()
    start = image.find(XZ_MAGIC)
    if start < 0:
        return tree.vmlinuz
    # The xz stream is followed by a size field and padding; the decompressor
    # stops at the end of the stream and ignores them.
    elf = lzma.LZMADecompressor(format=lzma.FORMAT_XZ).decompress(image[start:])
    if not elf.startswith(ELF_MAGIC):
        return tree.vmlinuz
    partial = vmlinux.with_name(f"vmlinux.{os.getpid()}.partial")
    partial.write_bytes(elf)
    partial.rename(vmlinux)
    return vmlinux
