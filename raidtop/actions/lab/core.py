"""The lab: create arrays on loop devices, watch them, and tear down exactly what it made.

:class:`Lab` ties the registry, the command runner and the kernel's view
together. Creation records each resource before making it (see
:mod:`raidtop.actions.lab.registry`); teardown trusts the registry only as a
list of candidates and checks each against the kernel before acting, so a
loop number or md name reused by someone else after a crash or reboot is
left alone.
"""

from __future__ import annotations

import os
import shlex
import time
from dataclasses import replace
from pathlib import Path
from collections.abc import Callable, Iterable

from raidtop.actions.action_log import ActionLog
from raidtop.actions.lab.guard import kernel_members
from raidtop.actions.lab.store import LabStore
from raidtop.actions.lab.images import create_image
from raidtop.actions.lab.loopdev import loop_backing
from raidtop.actions.lab.preflight import LabEnvironment, check_environment
from raidtop.actions.lab.records import LabArrayView
from raidtop.actions.lab.registry import (
    ArrayRecord,
    ImageRecord,
    LabRegistry,
    LabState,
    TimelineEvent,
    Watch,
)
from raidtop.actions.lab.commands import CommandRunner, LabCommandFailed, find_tool
from raidtop.actions.lab.teardown import TeardownReport, discard_image, teardown
from raidtop.actions.lab.spec import LabSpec, SpecError, human_size, mdadm_create_argv, mkfs_argv, validate
from raidtop.actions.lab.timeline import ArrayStatus, observe, read_status, status_from_md
from raidtop.collect.source import Root, as_root
from raidtop.model.md import MdArray

FIRST_MD_NUMBER = 100
"""Lab arrays are md100 and up, away from the md0… and md127… distributions use."""

StepHook = Callable[[str], None]
"""Called with a step name (``image-recorded``, ``loop-attaching``, ``loop-attached``,
``array-creating``, ``array-created``) as creation passes it; tests kill the process there."""


class LabError(Exception):
    """The lab could not do something; ``str()`` says what and why."""


class LabUnavailable(LabError):
    """This machine cannot run the lab; :attr:`environment` lists what is missing."""

    def __init__(self, environment: LabEnvironment) -> None:
        super().__init__("the lab cannot run here:\n" + environment.describe())
        self.environment = environment


class Lab:
    """Create, watch and tear down lab arrays in one lab directory."""

    def __init__(
        self,
        lab_dir: Path | None = None,
        *,
        root: Root | str | os.PathLike[str] = "/",
        log: ActionLog | None = None,
        runner: CommandRunner | None = None,
        euid: int | None = None,
        which: Callable[[str], str | None] = find_tool,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.registry = LabRegistry(lab_dir)
        self.root = as_root(root)
        self.runner = runner or CommandRunner(log)
        self.store = LabStore(self.registry.lab_dir / "lab.sqlite")
        self._euid = euid
        self._which = which
        self._clock = clock
        self._watches: dict[str, Watch | None] = {}

    @property
    def lab_dir(self) -> Path:
        """Where the registry, the images and the history live."""
        return self.registry.lab_dir

    # -------------------------------------------------------------- reading

    def environment(self, levels: Iterable[str] = (), need_fio: bool = False) -> LabEnvironment:
        """What this machine lacks for the lab (for ``levels``)."""
        return check_environment(self.root, levels=levels, need_fio=need_fio, euid=self._euid, which=self._which)

    def state(self) -> LabState:
        """The registry now."""
        return self.registry.read()

    def views(self, md_arrays: Iterable[MdArray] | None = None) -> list[LabArrayView]:
        """Every lab array with what the kernel shows of it (a few sysfs reads per array)."""
        state = self.state()
        by_name = {a.name: a for a in md_arrays} if md_arrays is not None else {}
        views = []
        for record in state.arrays:
            images = state.images_of(record.name)
            # For display the path is enough; the guards check the inode before acting.
            gone = tuple(
                i.loop
                for i in images
                if i.state == "attached" and i.loop and getattr(loop_backing(i.loop, self.root), "path", None) != i.path
            )
            members = kernel_members(record.name, self.root)
            removed = tuple(
                i.loop
                for i in images
                if members is not None
                and i.state == "attached"
                and i.loop
                and i.loop not in members
                and i.loop not in gone
            )
            views.append(LabArrayView(record, members is not None, images, by_name.get(record.name), gone, removed))
        return views

    # -------------------------------------------------------------- creating

    def create(self, spec: LabSpec, *, on_step: StepHook | None = None) -> ArrayRecord:
        """Build ``spec`` on fresh loop devices; raises SpecError, LabUnavailable or LabError.

        A failure part-way tears down what this call made before raising; a
        crash leaves it in the registry for ``raidtop lab teardown``.
        """
        spec = validate(spec)
        environment = self.environment([spec.level])
        if not environment.ready:
            raise LabUnavailable(environment)
        if spec.fs is not None and self._which(f"mkfs.{spec.fs}") is None:
            package = {"ext4": "e2fsprogs", "xfs": "xfsprogs"}[spec.fs]
            raise SpecError(f"mkfs.{spec.fs} is not installed: sudo apt install {package}")
        if spec.mount_point is not None and os.path.ismount(self.root.resolve(spec.mount_point)):
            raise SpecError(f"{spec.mount_point} already has something mounted on it: choose another mount point")
        step = on_step or (lambda _label: None)
        now = self._clock()
        redundant = spec.level != "raid0"
        with self.registry.edit() as draft:
            name = self._free_md_name(draft.state)
            draft.put_array(
                ArrayRecord(
                    name,
                    spec.level,
                    spec.disks,
                    spec.disk_size_bytes,
                    now,
                    "creating",
                    spec.chunk_kib if spec.uses_chunk else None,
                    spec.uses_bitmap,
                    spec.fs,
                    spec.mount_point,
                )
            )
        step("array-recorded")
        try:
            # new_disk attaches each image, so every record names its loop device.
            loops = [self.new_disk(name, spec.disk_size_bytes, step).loop or "" for _ in range(spec.disks)]
            started = self._clock()
            with self.registry.edit() as draft:
                # The initial build is timed from the create command.
                draft.update_array(
                    name,
                    watch=Watch(
                        started,
                        rebuild_kind="initial" if redundant else None,
                        pending_since=started if redundant else None,
                    ),
                )
            step("array-creating")
            # --run skips mdadm's questions; "y" answers any it still asks.
            self.runner.run(mdadm_create_argv(spec, name, loops), input="y\n" * 4, array=name)
            step("array-created")
            detail = f"{spec.level} on {spec.disks} × {human_size(spec.disk_size_bytes)}"
            if spec.uses_chunk and spec.chunk_kib:
                detail += f", chunk {spec.chunk_kib} KiB"
            detail += ", bitmap" if spec.uses_bitmap else ""
            with self.registry.edit() as draft:
                draft.update_array(name, state="active")
                draft.add_event(name, TimelineEvent(started, "created", detail=detail))
            self.observe(name)
            if spec.fs is not None:
                self.runner.run(mkfs_argv(spec, name), timeout=600, array=name)
                self.record_event(name, "mkfs", detail=" ".join(mkfs_argv(spec, name)[:-1]))
            if spec.mount_point is not None:
                mount_point = spec.mount_point
                self.runner.python(
                    f"mkdir -p {shlex.quote(mount_point)}", lambda: os.makedirs(mount_point, exist_ok=True), array=name
                )
                # On record before mounting, like every other resource; teardown checks it really is.
                with self.registry.edit() as draft:
                    draft.update_array(name, mounted=True)
                self.runner.run(["mount", f"/dev/{name}", mount_point], array=name)
                self.record_event(name, "mounted", detail=mount_point)
        except BaseException:
            # Ctrl+C or a failed command: undo this array now rather than leave it for later.
            try:
                self.teardown([name])
            except Exception:  # noqa: BLE001 - the create's own error is raised; raidtop lab teardown retries
                pass
            raise
        return self._recorded(name)

    def preview_create(self, spec: LabSpec) -> list[str]:
        """The commands :meth:`create` will run, for a confirm dialog (no I/O).

        The md name and loop devices are chosen while creating, so they
        appear as ``md1NN`` and ``loopA``, ``loopB``…; the log shows the real ones.
        """
        spec = validate(spec)
        letters = [chr(ord("A") + i) for i in range(spec.disks)]
        lines = []
        for index, letter in enumerate(letters):
            image = shlex.quote(str(self.registry.images_dir / f"md1NN-{index}.img"))
            lines.append(
                f"truncate -s {spec.disk_size_bytes} {image} && losetup --find --show {image}   # → loop{letter}"
            )
        lines.append(shlex.join(mdadm_create_argv(spec, "md1NN", [f"loop{letter}" for letter in letters])))
        if spec.fs is not None:
            lines.append(shlex.join(mkfs_argv(spec, "md1NN")))
        if spec.mount_point is not None:
            lines.append(
                f"mkdir -p {shlex.quote(spec.mount_point)} && mount /dev/md1NN {shlex.quote(spec.mount_point)}"
            )
        return lines

    def new_disk(self, array: str, size_bytes: int, on_step: StepHook | None = None) -> ImageRecord:
        """A fresh sparse image attached to a loop device, recorded at each step."""
        step = on_step or (lambda _label: None)
        with self.registry.edit() as draft:
            path = self._free_image_path(array, draft.state)
            draft.put_image(ImageRecord(str(path), size_bytes, self._clock(), array, "planned"))
        step("image-recorded")
        made: list[int] = []
        # Created by name inside the images folder, never through a link (O_EXCL|O_NOFOLLOW).
        self.runner.python(
            f"truncate -s {size_bytes} {shlex.quote(str(path))}",
            lambda: made.append(create_image(self.registry.images_dir, path.name, size_bytes)),
            array=array,
        )
        inode = made[0]
        with self.registry.edit() as draft:
            draft.update_image(str(path), state="attaching", inode=inode)
        step("loop-attaching")
        event = self.runner.run(["losetup", "--find", "--show", str(path)], array=array)
        loop = os.path.basename(event.output.strip())
        step("loop-attached")
        backing = loop_backing(loop, self.root)
        if backing is None or backing.path != str(path) or backing.inode != inode:
            raise LabError(f"losetup printed {event.output.strip()!r}, but that device does not hold {path}")
        with self.registry.edit() as draft:
            return draft.update_image(str(path), state="attached", loop=loop)

    def _free_md_name(self, state: LabState) -> str:
        taken = {a.name for a in state.arrays}
        number = FIRST_MD_NUMBER
        while f"md{number}" in taken or self.root.exists(f"/sys/block/md{number}"):
            number += 1
        return f"md{number}"

    def _free_image_path(self, array: str, state: LabState) -> Path:
        known = {i.path for i in state.images}
        index = 0
        while True:
            path = self.registry.images_dir / f"{array}-{index}.img"
            if str(path) not in known and not os.path.lexists(path):
                return path
            index += 1

    # -------------------------------------------------------------- watching

    def record_event(
        self, name: str, kind: str, member: str | None = None, detail: str | None = None, when: float | None = None
    ) -> None:
        """Write one event the lab caused into the array's timeline."""
        with self.registry.edit() as draft:
            draft.add_event(name, TimelineEvent(self._clock() if when is None else when, kind, member, detail))

    def expect_sync(self, name: str, kind: str, since: float, member: str | None = None) -> None:
        """The command run at ``since`` starts a sync of ``kind`` (recovery, replace): time it from there."""
        with self.registry.edit() as draft:
            record = draft.state.array(name)
            if record is None:
                return
            watch = self._with_cached_watch(record).watch or Watch(since)
            draft.update_array(
                name, watch=replace(watch, rebuild_kind=kind, pending_since=since, rebuild_member=member)
            )
        self._watches.pop(name, None)

    def observe(self, name: str, status: ArrayStatus | None = None, now: float | None = None) -> ArrayRecord | None:
        """Look at ``name`` (or take ``status``) and record what changed since the last look.

        The registry is rewritten only when something happened: a look that
        finds nothing new is kept in memory, so a tight poll costs no writes.
        """
        status = read_status(name, self.root) if status is None else status
        now = self._clock() if now is None else now
        stored = self.state().array(name)
        if stored is None or stored.state != "active":
            return stored
        before = self._with_cached_watch(stored)
        after = observe(before, status, now)
        if _same_apart_from_time(before, after):
            self._watches[name] = after.watch
            return after
        with self.registry.edit() as draft:
            fresh = draft.state.array(name)
            if fresh is None:
                return None
            after = observe(self._with_cached_watch(fresh), status, now)
            draft.put_array(after)
        self._watches.pop(name, None)
        for rebuild in after.rebuilds[len(fresh.rebuilds) :]:
            self.store.add_rebuild(after, rebuild)
        return after

    def observe_snapshot(self, md_arrays: Iterable[MdArray]) -> None:
        """Record timeline changes of every lab array seen in a sampler snapshot."""
        by_name = {a.name: a for a in md_arrays}
        for record in self.state().arrays:
            if record.state == "active":
                self.observe(record.name, status_from_md(by_name.get(record.name)))

    def wait_idle(self, name: str, timeout: float = 600.0, poll: float = 0.05) -> ArrayRecord:
        """Poll until no sync runs or waits on ``name``, recording the timeline as it goes.

        Raises:
            LabError: the array vanished or is still busy after ``timeout`` seconds.
        """
        deadline = time.monotonic() + timeout
        while True:
            status = read_status(name, self.root)
            record = self.observe(name, status)
            if not status.present:
                raise LabError(f"{name} is not running")
            if status.idle and (record is None or record.watch is None or record.watch.pending_since is None):
                return record if record is not None else self._recorded(name)
            if time.monotonic() > deadline:
                raise LabError(f"{name} is still busy ({status.sync or 'a sync is pending'}) after {timeout:.0f} s")
            time.sleep(poll)

    def _recorded(self, name: str) -> ArrayRecord:
        record = self.state().array(name)
        if record is None:
            raise LabError(f"{name} is no longer in the lab's registry")
        return record

    def _with_cached_watch(self, record: ArrayRecord) -> ArrayRecord:
        cached = self._watches.get(record.name)
        if cached is not None and (record.watch is None or cached.time > record.watch.time):
            return replace(record, watch=cached)
        return record

    # -------------------------------------------------------------- teardown

    def teardown(self, arrays: Iterable[str] | None = None) -> TeardownReport:
        """Stop exactly the lab's arrays (with ``arrays``: only those), detach their loops, delete their files.

        What is not the lab's is left alone and reported (:mod:`.teardown`).
        """
        return teardown(self, arrays)

    def discard_image(self, path: str) -> TeardownReport:
        """Detach and delete one image the lab made, under the same checks as teardown."""
        return discard_image(self, path)

    def forget_array(self, record: ArrayRecord) -> None:
        """Move a stopped array from the registry into the history."""
        try:
            self.store.add_array(self._with_cached_watch(record), self._clock())
        except Exception:  # noqa: BLE001 - history is a record, not a reason to leave an array behind
            pass
        with self.registry.edit() as draft:
            draft.drop_array(record.name)
        self._watches.pop(record.name, None)


def _same_apart_from_time(before: ArrayRecord, after: ArrayRecord) -> bool:
    if before.timeline != after.timeline or before.rebuilds != after.rebuilds:
        return False
    if before.watch is None or after.watch is None:
        return before.watch is after.watch
    return replace(before.watch, time=0.0) == replace(after.watch, time=0.0)


__all__ = ["Lab", "LabArrayView", "LabError", "LabUnavailable", "LabCommandFailed", "TeardownReport"]
