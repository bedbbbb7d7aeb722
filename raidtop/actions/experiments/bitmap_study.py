"""What a write-intent bitmap buys: the resync after a short outage, with and without one.

The same array is built twice, without and with ``--bitmap=internal``
(``--bitmap-chunk=1024``: a bit per MiB, see :data:`BITMAP_CHUNK_KIB`). For
each amount N: a member is failed and removed, N MiB are written to the
array while it is out, and the member is put back with ``mdadm --re-add``;
the resync is timed. With a bitmap md copies only the regions written
meanwhile; without one it cannot know what changed. mdadm then refuses the
re-add (its words are kept), and the disk comes back as a fresh one
(``--add``): a full recovery, which is what a re-add without a bitmap costs.
"""

from __future__ import annotations

from raidtop.model.frozen import frozen_dataclass
from raidtop.actions.experiments import defaults
import time

from raidtop.actions.lab.core import Lab, LabError
from raidtop.actions.experiments.experiment import (
    Control,
    ExperimentStopped,
    in_sync_member,
    last_rebuild,
    rebuild_seconds,
    tuning_in_force,
    wait_idle,
    wait_whole,
    write_mib,
)
from raidtop.actions.lab.members import LabMemberActions
from raidtop.actions.experiments.results import BitmapRow, ExperimentResult, store_result
from raidtop.actions.lab.spec import LabSpec, SpecError, human_size, level_name, usable_bytes, validate
from raidtop.actions.member_actions import ActionRefused

DEFAULT_WRITES_MIB = defaults.BITMAP_WRITES_MIB
DEFAULT_LEVEL = defaults.BITMAP_LEVEL
DEFAULT_DISKS = defaults.BITMAP_DISKS
DEFAULT_DISK_BYTES = defaults.BITMAP_DISK_BYTES
BITMAP_CHUNK_KIB = 1024
"""One bitmap bit per MiB: with mdadm's default (64 MiB) a lab disk is a single bit, and any write dirties it all."""


@frozen_dataclass
class BitmapParams:
    """What to compare."""

    writes_mib: tuple[int, ...] = DEFAULT_WRITES_MIB
    level: str = DEFAULT_LEVEL
    disks: int = DEFAULT_DISKS
    disk_size_bytes: int = DEFAULT_DISK_BYTES

    def as_text(self) -> dict[str, str]:
        """The parameters as the history stores them."""
        return {
            "level": self.level,
            "disks": str(self.disks),
            "writes": ",".join(f"{w}M" for w in self.writes_mib),
            "size": human_size(self.disk_size_bytes),
        }

    @property
    def steps(self) -> int:
        """Per bitmap setting: create, wait, one per amount, teardown."""
        return 2 * (3 + len(self.writes_mib))


def parse_writes(text: str) -> tuple[int, ...]:
    """``1M,8M,32M`` → (1, 8, 32) MiB; a bare number is MiB."""
    from raidtop.actions.lab.spec import parse_size

    values = []
    for part in (p.strip() for p in str(text).split(",") if p.strip()):
        size = parse_size(part)
        if size < 1 << 20 or size % (1 << 20):
            raise SpecError(f"--writes takes whole MiB (1M, 8M…); not {part!r}")
        values.append(size >> 20)
    if not 1 <= len(values) <= 8:
        raise SpecError("--writes takes 1 to 8 comma-separated sizes")
    return tuple(dict.fromkeys(values))


def check_params(params: BitmapParams) -> BitmapParams:
    """``params`` normalised; SpecError when the level has no redundancy or a write does not fit."""
    level = level_name(params.level)
    if level == "raid0":
        raise SpecError("raid0 has no redundancy and so no bitmap: use raid1, raid4, raid5, raid6 or raid10")
    validate(LabSpec(level, params.disks, params.disk_size_bytes, bitmap=True))
    room = usable_bytes(level, params.disks, params.disk_size_bytes) - (4 << 20)
    too_big = [w for w in params.writes_mib if w << 20 > room]
    if too_big:
        raise SpecError(
            f"{too_big[0]} MiB does not fit on this {level} (about {human_size(room)} usable): "
            "write less or use bigger disks (--size)"
        )
    return BitmapParams(params.writes_mib, level, params.disks, params.disk_size_bytes)


def run_bitmap_study(lab: Lab, params: BitmapParams, control: Control | None = None) -> ExperimentResult:
    """Without a bitmap, then with one: an outage per amount written, the resync timed; teardown whatever happens."""
    params = check_params(params)
    control = control or Control()
    control.total = params.steps
    actions = LabMemberActions(lab, cache_s=0)
    started = time.time()
    rows: list[BitmapRow] = []
    tuning: dict[str, str] = {}
    stopped = False
    try:
        for bitmap in (False, True):
            what = "with an internal bitmap" if bitmap else "without a bitmap"
            control.step(f"creating {params.level} {what}")
            name = lab.create(
                LabSpec(
                    params.level,
                    params.disks,
                    params.disk_size_bytes,
                    bitmap=bitmap,
                    bitmap_chunk_kib=BITMAP_CHUNK_KIB if bitmap else None,
                )
            ).name
            try:
                control.step(f"waiting for {name}'s initial build")
                wait_idle(lab, name, control)
                tuning.update(
                    {
                        f"{'with' if bitmap else 'without'} bitmap: {k}": v
                        for k, v in tuning_in_force(lab, name).items()
                        if k.startswith(name)
                    }
                )
                for mib in params.writes_mib:
                    control.step(f"{what}: remove a member, write {mib} MiB, put it back")
                    rows.append(_outage(lab, actions, name, mib, bitmap, control))
            finally:
                control.step(f"tearing down {name}", check=False)
                lab.teardown([name])
    except ExperimentStopped:
        stopped = True
    result = ExperimentResult("bitmap", params.as_text(), tuple(rows), tuning, started, time.time(), stopped=stopped)
    return store_result(lab.store, result)


def _outage(lab: Lab, actions: LabMemberActions, name: str, mib: int, bitmap: bool, control: Control) -> BitmapRow:
    member = in_sync_member(lab, name)
    before = last_rebuild(lab, name)
    try:
        actions.run("fail", name, member)
        actions.run("remove", name, member)
        write_mib(lab, name, mib, control)
        how = "re-add"
        try:
            actions.run("re_add", name, member)
        except ActionRefused as refused:
            if bitmap:
                raise
            # md cannot tell what changed without a bitmap: the disk comes back as a new one.
            how = f"add (re-add refused: {refused})"[:200]
            actions.run("add", name, None)
    except ActionRefused as exc:
        raise LabError(str(exc)) from None
    wait_whole(lab, name, control)
    return BitmapRow(bitmap, mib, rebuild_seconds(lab, name, before), how)
