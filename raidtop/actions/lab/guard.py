"""The lab touches only what it made: arrays built entirely of its own loop devices.

Before any change the lab checks, against the kernel's view now (not the
registry's memory), that the array is one it created, that it is running,
and that every device the kernel lists for it — ``slaves`` and every
``md/dev-*`` entry, spares and faulty members included — is a loop device
attached to one of the lab's image files (same path, same inode). One sd,
nvme or foreign loop device anywhere in the array refuses every action,
with the reason. An image counts only when its path lies directly in the
lab's images folder, whatever the registry says.
"""

from __future__ import annotations


from raidtop.model.frozen import frozen_dataclass
from raidtop.actions.lab.dmtables import dm_loop_under
from raidtop.actions.lab.loopdev import is_loop_name, loop_backing
from raidtop.actions.lab.registry import ArrayRecord, ImageRecord, LabState
from raidtop.actions.member_actions import ActionRefused
from raidtop.collect.source import Root, SourceError, as_root
from raidtop.untrusted import plain


@frozen_dataclass
class CheckedArray:
    """An array the lab may change, and its members as the kernel lists them."""

    record: ArrayRecord
    members: tuple[str, ...]
    images: dict[str, ImageRecord | None]
    """Member name → the lab image it is attached to (``None`` for a lab fault's dm device over one)."""


def kernel_members(name: str, root: Root | str = "/") -> tuple[str, ...] | None:
    """Every device the kernel lists for array ``name``, or ``None`` when it is not running."""
    root = as_root(root)
    if not root.exists(f"/sys/block/{name}/md"):
        return None
    found: list[str] = []
    try:
        found += root.listdir(f"/sys/block/{name}/slaves")
    except SourceError:
        pass
    try:
        found += [entry[4:] for entry in root.listdir(f"/sys/block/{name}/md") if entry.startswith("dev-")]
    except SourceError:
        pass
    return tuple(sorted(dict.fromkeys(found)))


def lab_image_of(loop: str, state: LabState, root: Root | str = "/") -> ImageRecord | None:
    """The lab image ``loop`` is attached to now, or ``None`` when it is not one of the lab's."""
    image = state.image_on_loop(loop)
    # The lab makes images only in its own folder: an entry naming any other file is not the lab's.
    if image is None or state.image_name(image.path) is None:
        return None
    current = loop_backing(loop, root)
    if current is None or current.path != image.path:
        return None
    # A recreated file at the same path is someone else's; an unknown inode is not trusted.
    if image.inode is None or current.inode != image.inode:
        return None
    return image


def refusal_for_device(device: str, array: str, state: LabState, root: Root | str = "/") -> str | None:
    """Why ``device`` (a member of ``array``) rules the lab out, or ``None`` when it is the lab's.

    A lab fault's dm device (``raidtop-lab-*`` over exactly one loop device) is the lab's
    when the loop under it is.
    """
    under = dm_loop_under(device, root)
    if under is not None:
        reason = refusal_for_device(under[1], array, state, root)
        return None if reason is None else f"{array} has member {device} ({plain(under[0])}) over {under[1]}: {reason}"
    if not is_loop_name(device):
        return (
            f"{array} has member {plain(device)}, which is not a loop device (a real disk); "
            "the lab never acts on an array with a real disk in it"
        )
    if lab_image_of(device, state, root) is not None:
        return None
    image = state.image_on_loop(device)
    current = loop_backing(device, root)
    if image is not None and state.image_name(image.path) is None:
        return (
            f"{array} has member {device}, which the registry says holds {plain(image.path)}, outside the lab's "
            "images folder; the lab acts only on its own loop devices"
        )
    if image is not None and current is not None:
        if current.path == image.path:
            return (
                f"{array} has member {device}, attached to {plain(current.path)}, but that file is not the image "
                "the lab made (it was recreated); the lab acts only on its own loop devices"
            )
        return (
            f"{array} has member {device}, now attached to {plain(current.path)}, not to the lab's image "
            f"{plain(image.path)}; the lab acts only on its own loop devices"
        )
    return f"{array} has member {device}, a loop device raidtop's lab did not create; the lab acts only on its own"


def check_array(name: str, state: LabState, root: Root | str = "/") -> CheckedArray:
    """The array if the lab may change it; otherwise raise ActionRefused with the reason."""
    root = as_root(root)
    record = state.array(name)
    if record is None:
        raise ActionRefused(f"{name} was not created by raidtop's lab; the lab acts only on arrays it created")
    if record.state != "active":
        raise ActionRefused(
            f"{name} is still being created (or its creation was interrupted: run raidtop lab teardown)"
        )
    members = kernel_members(name, root)
    if members is None:
        raise ActionRefused(f"{name} is not running (stopped, or torn down after a reboot)")
    images: dict[str, ImageRecord | None] = {}
    for device in members:
        reason = refusal_for_device(device, name, state, root)
        if reason is not None:
            raise ActionRefused(reason)
        images[device] = lab_image_of(device, state, root)
    return CheckedArray(record, members, images)


def check_member(array: CheckedArray, member: str | None, verb: str) -> str:
    """``member`` if it is one of ``array``'s lab members; ActionRefused otherwise."""
    if not member:
        raise ActionRefused(f"{verb} needs a member: highlight one of {array.record.name}'s disks")
    member = member.removeprefix("/dev/")
    if member not in array.members:
        raise ActionRefused(f"{member} is not a member of {array.record.name}")
    return member
