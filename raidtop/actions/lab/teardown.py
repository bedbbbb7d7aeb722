"""Teardown: stop exactly the lab's arrays, detach exactly its loops, delete exactly its files.

The registry is only a list of candidates. Each is checked against the
kernel and the file system now, right before acting:

* an array is stopped only when every device the kernel lists for it is a
  loop device holding one of the lab's images (so an md name reused by
  someone else after a reboot is left running), and only then is a mount
  the lab made undone;
* a loop device is detached only when its backing file is an image *in the
  lab's images folder* and is the very inode the lab recorded, checked
  again just before ``losetup -d``;
* a file is deleted only by name inside the images folder, opened without
  following links (:mod:`.images`).

Everything else is refused, and teardown goes on with the rest and reports
what it left and why (:class:`TeardownReport`).
"""

from __future__ import annotations

import shlex
import time
from typing import Protocol
from collections.abc import Iterable

from raidtop.model.frozen import frozen_dataclass
from raidtop.actions.lab.commands import CommandRunner
from raidtop.actions.lab.dmtables import dm_loop_under, lab_dm_devices
from raidtop.actions.lab.guard import kernel_members, lab_image_of
from raidtop.actions.lab.images import ImageRefused, folder_name, image_exists, remove_image
from raidtop.actions.lab.loopdev import LoopBacking, attached_loops, loop_backing
from raidtop.actions.lab.records import ArrayRecord, ImageRecord, LabState
from raidtop.actions.lab.registry import LabRegistry
from raidtop.collect.source import Root, SourceError
from raidtop.untrusted import plain


class Lab(Protocol):
    """What teardown needs of :class:`~raidtop.actions.lab.core.Lab` (which calls it, so it does not import it)."""

    registry: LabRegistry
    root: Root
    runner: CommandRunner

    def state(self) -> LabState:
        """The registry now."""
        ...

    def forget_array(self, record: ArrayRecord) -> None:
        """Move a stopped array from the registry into the history."""
        ...


LOOP_RELEASE_WAIT_S = 5.0
"""How long teardown waits for a detached loop device to let go (autoclear)."""


@frozen_dataclass
class TeardownReport:
    """What teardown did, what was already gone, and what it left (and why)."""

    done: tuple[str, ...] = ()
    gone: tuple[str, ...] = ()
    kept: tuple[str, ...] = ()

    @property
    def clean(self) -> bool:
        """True when nothing the lab made is left behind."""
        return not self.kept

    def lines(self) -> list[str]:
        """A human summary, one line each."""
        out = [f"done: {d}" for d in self.done] + [f"already gone: {g}" for g in self.gone]
        out += [f"LEFT: {k}" for k in self.kept]
        return out or ["the lab had nothing to tear down"]


class _Notes:
    def __init__(self) -> None:
        self.done: list[str] = []
        self.gone: list[str] = []
        self.kept: list[str] = []
        self.released: list[str] = []

    def report(self) -> TeardownReport:
        return TeardownReport(tuple(self.done), tuple(self.gone), tuple(self.kept))


def teardown(lab: Lab, arrays: Iterable[str] | None = None) -> TeardownReport:
    """Tear down the lab's arrays (only ``arrays`` when given) and the images made for them."""
    state = lab.state()
    wanted = None if arrays is None else set(arrays)
    notes = _Notes()
    if wanted is not None:
        for name in sorted(wanted - {a.name for a in state.arrays}):
            notes.gone.append(f"{plain(name)} is not a lab array")
    kept_arrays: set[str] = set()
    for record in state.arrays:
        if wanted is not None and record.name not in wanted:
            continue
        if not _stop_array(lab, record, state, notes):
            kept_arrays.add(record.name)
            continue
        lab.forget_array(record)
    _remove_fault_devices(lab, state, notes)
    loops = attached_loops(lab.root)
    for image in state.images:
        if wanted is not None and image.array not in wanted:
            continue
        if image.array in kept_arrays:
            notes.kept.append(f"{image.path} kept: its array {image.array} is still running")
            continue
        if release_image(lab, state, image, loops, notes):
            with lab.registry.edit() as draft:
                draft.drop_image(image.path)
    _wait_for_loops(lab, notes)
    return notes.report()


def _remove_fault_devices(lab: Lab, state: LabState, notes: _Notes) -> None:
    """``dmsetup remove`` each lab fault device over one of the lab's loops that no running array holds."""
    for device, name, loop in lab_dm_devices(lab.root):
        if not ours(loop, state, lab.root):
            continue
        try:
            held = lab.root.listdir(f"/sys/block/{device}/holders")
        except SourceError:
            held = []
        if held:
            notes.kept.append(f"{name} kept: {', '.join(held)} still holds it")
            continue
        event = lab.runner.run(["dmsetup", "remove", name], check=False)
        if event.ok:
            notes.done.append(f"removed {name} (over {loop})")
        else:
            notes.kept.append(f"{name} could not be removed: {event.error}")


def discard_image(lab: Lab, path: str) -> TeardownReport:
    """Detach and delete one image the lab just made (a fresh disk mdadm would not take)."""
    state = lab.state()
    image = state.image(path)
    notes = _Notes()
    if image is not None and release_image(lab, state, image, attached_loops(lab.root), notes):
        with lab.registry.edit() as draft:
            draft.drop_image(path)
    return notes.report()


def ours(device: str, state: LabState, root: Root) -> bool:
    """True when ``device`` is a loop holding one of the lab's images (folder, path and inode),
    or a lab fault's dm device over such a loop."""
    under = dm_loop_under(device, root)
    if under is not None:
        return ours(under[1], state, root)
    if lab_image_of(device, state, root) is not None:
        return True
    backing = loop_backing(device, root)
    if backing is None:
        return False
    image = state.image(backing.path)
    # An image caught between losetup and the registry write has no loop name yet.
    return (
        image is not None
        and state.image_name(image.path) is not None
        and image.inode is not None
        and backing.inode == image.inode
    )


def _stop_array(lab: Lab, record: ArrayRecord, state: LabState, notes: _Notes) -> bool:
    name = record.name
    members = kernel_members(name, lab.root)
    # Members first: an md name reused by someone else is neither unmounted nor stopped.
    foreign = [m for m in members or () if not ours(m, state, lab.root)]
    if foreign:
        notes.kept.append(
            f"{name} left running: it holds {plain(', '.join(foreign))}, which the lab did not create "
            "(the name may have been reused after a reboot)"
        )
        return False
    if record.mount_point and record.mounted:
        if _mounted_from(lab, record.mount_point, name):
            event = lab.runner.run(["umount", record.mount_point], check=False, array=name)
            if not event.ok:
                notes.kept.append(f"{name} left running: {record.mount_point} could not be unmounted ({event.error})")
                return False
            notes.done.append(f"unmounted {record.mount_point}")
        else:
            notes.gone.append(f"{record.mount_point} was not mounted from {name}")
    if members is None:
        notes.gone.append(f"{name} was not running")
        return True
    event = lab.runner.run(["mdadm", "--stop", f"/dev/{name}"], check=False, array=name)
    if not event.ok:
        notes.kept.append(f"{name} could not be stopped: {event.error}")
        return False
    notes.done.append(f"stopped {name}")
    return True


def release_image(lab: Lab, state: LabState, image: ImageRecord, loops: list[LoopBacking], notes: _Notes) -> bool:
    """Detach and delete ``image`` if it is the lab's; True when its registry entry may be forgotten."""
    try:
        folder_name(state, image)
    except ImageRefused as exc:
        # Never the lab's, and nothing in the lab's folder will ever make it so: forget the entry.
        notes.kept.append(f"{exc} (its registry entry was dropped)")
        return True
    holders = [
        loop for loop in loops if image.inode is not None and loop.path == image.path and loop.inode == image.inode
    ]
    if image.loop and not any(loop.name == image.loop for loop in holders):
        current = next((loop for loop in loops if loop.name == image.loop), None)
        if current is None:
            notes.gone.append(f"{image.loop} was already detached")
        else:
            notes.gone.append(f"{image.loop} now holds {plain(current.path)}, not the lab's {image.path}: left alone")
    ok = True
    for holder in holders:
        # Checked again right before: the number may have been detached and reused meanwhile.
        now = loop_backing(holder.name, lab.root)
        if now is None or now.path != image.path or now.inode != image.inode:
            notes.gone.append(f"{holder.name} no longer holds {image.path}: left alone")
            continue
        event = lab.runner.run(["losetup", "-d", f"/dev/{holder.name}"], check=False, array=image.array)
        if event.ok:
            notes.done.append(f"detached {holder.name}")
            notes.released.append(holder.name)
        else:
            notes.kept.append(f"{holder.name} could not be detached: {event.error}")
            ok = False
    return ok and _delete(lab, state, image, notes)


def _delete(lab: Lab, state: LabState, image: ImageRecord, notes: _Notes) -> bool:
    try:
        present = image_exists(state, image)
    except ImageRefused as exc:  # refused before anything is shown or run
        notes.kept.append(str(exc))
        return False
    if not present:
        if image.state != "planned":
            notes.gone.append(f"{image.path} was already deleted")
        return True
    # remove_image checks again as it deletes, relative to the folder it opened.
    event = lab.runner.python(
        f"rm -f {shlex.quote(image.path)}", lambda: remove_image(state, image), check=False, array=image.array
    )
    if not event.ok:
        notes.kept.append(f"{image.path} could not be deleted: {event.error}")
        return False
    notes.done.append(f"deleted {image.path}")
    return True


def _wait_for_loops(lab: Lab, notes: _Notes) -> None:
    # A loop still open somewhere is only marked to detach on last close.
    deadline = time.monotonic() + LOOP_RELEASE_WAIT_S
    pending = set(notes.released)
    while pending and time.monotonic() < deadline:
        pending = {name for name in pending if loop_backing(name, lab.root) is not None}
        if pending:
            time.sleep(0.05)
    for name in sorted(pending):
        notes.kept.append(f"{name} is still attached: something holds it open; it detaches when that closes it")


def _mounted_from(lab: Lab, mount_point: str, name: str) -> bool:
    text = lab.root.read_optional("/proc/self/mountinfo") or ""
    for line in text.splitlines():
        fields = line.split()
        if len(fields) > 4 and fields[4] == mount_point and " - " in line:
            source = line.split(" - ", 1)[1].split()
            if len(source) > 1 and source[1].rsplit("/", 1)[-1] == name:
                return True
    return False
