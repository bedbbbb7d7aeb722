"""The lab's images folder: the only place the lab creates or deletes a file.

The registry says which files are the lab's, but the registry is a file too,
and a path in it is only text. So the lab never acts on a path string: it
opens its images folder itself (``O_DIRECTORY|O_NOFOLLOW``, so a folder
swapped for a link is refused), and creates, checks and deletes image files
by name *relative to that descriptor*, never following a link in the last
component either. A path the registry names outside the folder, a link, a
directory, a device, or a file whose inode is not the one the lab recorded
is refused with the reason (:class:`ImageRefused`), and nothing is done to it.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from raidtop.actions.lab.records import ImageRecord, LabState
from raidtop.safeio import open_directory
from raidtop.untrusted import plain

FOLDER_MODE = 0o700
"""The images folder is root's alone: nobody else may add, swap or link a file in it."""


class ImageRefused(OSError):
    """The lab will not touch this file; ``str()`` says which and why, in one sentence.

    An OSError, so the command runner logs a refusal met while acting as that command's failure.
    """

    def __init__(self, message: str) -> None:
        super().__init__(errno.EPERM, message)

    def __str__(self) -> str:
        return self.strerror or ""


def create_image(images_dir: Path, name: str, size_bytes: int) -> int:
    """Create the sparse file ``name`` in the images folder; return its inode.

    ``O_EXCL|O_NOFOLLOW`` relative to the folder: an existing file or a link
    of that name is never opened, resized or reused.
    """
    images_dir.mkdir(mode=FOLDER_MODE, parents=True, exist_ok=True)
    folder = open_directory(images_dir)
    try:
        fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=folder)
        try:
            os.ftruncate(fd, size_bytes)
            # fstat, not stat(path): the inode of the file this call made, whatever the name holds by now.
            return os.fstat(fd).st_ino
        finally:
            os.close(fd)
    finally:
        os.close(folder)


def folder_name(state: LabState, image: ImageRecord) -> str:
    """The image's name inside the images folder; ImageRefused when its path is anywhere else."""
    name = state.image_name(image.path)
    if name is None:
        raise ImageRefused(
            f"{plain(image.path)} is not in the lab's images folder {plain(state.images_dir)}; "
            "the lab never makes files anywhere else, so it did not touch it"
        )
    return name


def image_exists(state: LabState, image: ImageRecord) -> bool:
    """True when :func:`remove_image` would delete the file, False when it is already gone.

    Raises ImageRefused like :func:`remove_image`, before any command is shown or logged.
    """
    return _act(state, image, delete=False)


def remove_image(state: LabState, image: ImageRecord) -> bool:
    """Delete the lab's image file; False when it was already gone.

    Raises:
        ImageRefused: the path is outside the images folder, or the file
            there is a link, not a regular file, or not the inode the lab
            recorded (an image with no recorded inode is deleted only while
            it is still ``planned``: the lab made it with ``O_EXCL`` a moment
            before a crash, and it is a single-link file owned by this user).
        OSError: the unlink itself failed.
    """
    return _act(state, image, delete=True)


def _act(state: LabState, image: ImageRecord, delete: bool) -> bool:
    name = folder_name(state, image)
    try:
        folder = open_directory(state.images_dir)
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise ImageRefused(
            f"the lab's images folder {plain(state.images_dir)} cannot be opened safely "
            f"({exc.strerror}); {plain(image.path)} was not touched"
        ) from None
    try:
        try:
            # The entry itself is judged (a link is a link), never what it points to.
            info = os.stat(name, dir_fd=folder, follow_symlinks=False)
        except FileNotFoundError:
            return False
        _check(image, info)
        if delete:
            os.unlink(name, dir_fd=folder)
        return True
    finally:
        os.close(folder)


def _check(image: ImageRecord, info: os.stat_result) -> None:
    where = plain(image.path)
    if stat.S_ISLNK(info.st_mode):
        raise ImageRefused(
            f"{where} is a symbolic link; the lab never makes links, so it neither followed nor deleted it"
        )
    if not stat.S_ISREG(info.st_mode):
        raise ImageRefused(f"{where} is not a regular file (the lab makes only regular files); left alone")
    if image.inode is not None:
        if info.st_ino != image.inode:
            raise ImageRefused(f"{where} is another file now (not the image the lab made); left alone")
        return
    # Past "planned" the inode is always on record, so only a crash right after O_EXCL gets here.
    if image.state != "planned" or info.st_nlink != 1 or info.st_uid != os.geteuid():
        raise ImageRefused(
            f"{where}: the lab never recorded its inode, so it cannot tell it is the file it made; "
            "left alone (delete it by hand if it is)"
        )
