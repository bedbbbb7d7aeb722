"""A fixture root of loop devices and md arrays, a lab directory, and a runner that runs nothing.

The lab checks a loop device by its backing file's path *and inode*. Under a
fixture root the inode is that of the file at the backing path inside the
root, so the lab directory is linked into the root at its own absolute path:
an image the test makes in the lab directory is the same file, with the
same inode, that the root's sysfs names.
"""

from __future__ import annotations

import os
from pathlib import Path

from raidtop.actions.action_log import ActionLog
from raidtop.actions.lab.core import Lab
from raidtop.actions.lab.registry import ArrayRecord, ImageRecord
from raidtop.actions.lab.commands import CommandEvent, CommandRunner, LabCommandFailed

from tests.actions.fio_sysfs import FakeSys


class FakeRunner(CommandRunner):
    """Records every command instead of running it; emulates losetup in the fixture root."""

    def __init__(self, tree: LabTree, log: ActionLog) -> None:
        super().__init__(log)
        self.tree = tree
        self.commands: list[list[str]] = []
        self.fail_on: set[str] = set()
        """Tools whose commands fail (``mdadm``), to test error paths."""

    def run(self, argv, *, input=None, timeout=120.0, check=True, **details) -> CommandEvent:
        argv = list(argv)
        self.commands.append(argv)
        display = " ".join(argv)
        if argv[0] in self.fail_on:
            event = CommandEvent(display, 0.0, 0.0, False, "", f"{argv[0]}: failed on purpose")
            if check:
                raise LabCommandFailed(display, event.error)
            return event
        output = ""
        if argv[:3] == ["losetup", "--find", "--show"]:
            output = "/dev/" + self.tree.attach(argv[3]) + "\n"
        elif argv[:2] == ["losetup", "-d"]:
            self.tree.detach(os.path.basename(argv[2]))
        self.log.append("lab", display, "ok")
        return CommandEvent(display, 0.0, 0.0, True, output, "")

    def ran(self, tool: str) -> list[list[str]]:
        """The commands of ``tool`` that ran."""
        return [c for c in self.commands if c[0] == tool]


class LabTree:
    """A root with sysfs, a lab directory seen inside it, and a Lab driving both."""

    def __init__(self, tmp_path: Path) -> None:
        self.root = tmp_path / "root"
        self.sys = FakeSys(self.root)
        self.lab_dir = tmp_path / "lab"
        (self.lab_dir / "images").mkdir(parents=True)
        inside = self.root / str(self.lab_dir).lstrip("/")
        inside.parent.mkdir(parents=True, exist_ok=True)
        inside.symlink_to(self.lab_dir)
        (self.root / "proc" / "mdstat").write_text(
            "Personalities : [raid1] [raid6] [raid5] [raid4] [raid0] [raid10]\nunused devices: <none>\n"
        )
        # A kernel with device-mapper loaded lists its control device here (the lab's faults need it).
        (self.root / "proc" / "misc").write_text("236 device-mapper\n237 loop-control\n")
        (self.root / "dev").mkdir(exist_ok=True)
        (self.root / "dev" / "loop-control").write_text("")
        self.log = ActionLog(tmp_path / "actions.log")
        self.runner = FakeRunner(self, self.log)
        self.lab = Lab(self.lab_dir, root=self.root, runner=self.runner, euid=0, which=lambda name: f"/usr/sbin/{name}")
        self._next_loop = 20

    # -------------------------------------------------------------- devices

    def attach(self, path: str) -> str:
        """What ``losetup --find --show path`` does: the next loop device now backs ``path``."""
        name = f"loop{self._next_loop}"
        self._next_loop += 1
        self.loop(name, path)
        return name

    def loop(self, name: str, backing: str) -> None:
        """A loop device attached to ``backing``."""
        if not (self.root / "sys" / "block" / name).exists():
            self.sys.disk(name)
        loop_dir = (self.root / "sys" / "block" / name).resolve() / "loop"
        loop_dir.mkdir(exist_ok=True)
        (loop_dir / "backing_file").write_text(backing + "\n")

    def detach(self, name: str) -> None:
        """The loop device no longer backs anything."""
        backing = self.root / "sys" / "block" / name / "loop" / "backing_file"
        if backing.exists():
            backing.unlink()
            backing.parent.rmdir()

    def image(self, array: str, index: int, loop: str | None) -> ImageRecord:
        """A lab image file, attached to ``loop`` (if given) and recorded in the registry."""
        path = self.lab_dir / "images" / f"{array}-{index}.img"
        path.write_bytes(b"")
        os.truncate(path, 16 << 20)
        if loop:
            self.loop(loop, str(path))
        record = ImageRecord(
            str(path),
            16 << 20,
            1_700_000_000.0 + index,
            array,
            "attached" if loop else "attaching",
            path.stat().st_ino,
            loop,
        )
        with self.lab.registry.edit() as draft:
            draft.put_image(record)
        return record

    def md(
        self,
        name: str,
        level: str,
        members: dict[str, tuple[str, str]],
        *,
        registered: bool = True,
        degraded: int = 0,
        sync_action: str = "idle",
    ) -> None:
        """An md array with ``members`` (name → (state words, slot)) as the kernel shows it."""
        self.sys.disk(name, major=9)
        md = self.root / "sys" / "block" / name / "md"
        md.mkdir()
        raid_disks = sum(1 for _state, slot in members.values() if slot != "none")
        for attribute, value in (
            ("level", level),
            ("array_state", "clean"),
            ("raid_disks", raid_disks),
            ("degraded", degraded),
            ("sync_action", sync_action),
            ("sync_completed", "none"),
            ("mismatch_cnt", 0),
            ("sync_speed_max", "200000 (system)"),
            ("chunk_size", 65536),
            ("metadata_version", "1.2"),
            ("component_size", 15360),
        ):
            (md / attribute).write_text(f"{value}\n")
        for member, (state, slot) in members.items():
            dev = md / f"dev-{member}"
            dev.mkdir()
            (dev / "state").write_text(state + "\n")
            (dev / "slot").write_text(slot + "\n")
            (dev / "errors").write_text("0\n")
            if not (self.root / "sys" / "class" / "block" / member).exists():
                self.sys.disk(member, major=8 if member.startswith("sd") else 259 if member.startswith("nvme") else 7)
            self.sys.hold(member, name)
            if slot != "none":
                os.symlink(f"dev-{member}", md / f"rd{slot}")
        if registered:
            with self.lab.registry.edit() as draft:
                draft.put_array(ArrayRecord(name, level, raid_disks, 16 << 20, 1_700_000_000.0, "active"))

    def lab_raid(self, name: str = "md100", level: str = "raid5", disks: int = 3, *, first_loop: int = 3) -> list[str]:
        """A healthy lab array of ``disks`` lab loop devices; returns the loop names."""
        loops = [f"loop{first_loop + i}" for i in range(disks)]
        for index, loop in enumerate(loops):
            self.image(name, index, loop)
        self.md(name, level, {loop: ("in_sync", str(i)) for i, loop in enumerate(loops)})
        return loops
