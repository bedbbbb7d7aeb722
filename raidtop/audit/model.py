"""Frozen dataclasses for the audit: the facts it reads and the findings it makes."""

from __future__ import annotations

from dataclasses import field
from raidtop.model.frozen import frozen_dataclass

SEVERITIES = ("info", "warning", "critical")
"""From mildest to worst. ``critical``: the next rebuild is likely to fail or lose data;
``warning``: a fault or setting that makes a failure more likely or costlier; ``info``: worth
knowing, no alarm (a sparse-by-design array, what raidtop cannot know)."""

SEVERITY_RANK = {s: i for i, s in enumerate(SEVERITIES)}


@frozen_dataclass
class MemberFacts:
    """What sysfs says about one md member beyond ``dev-*/state``."""

    name: str
    disk: str | None = None
    """The whole disk under it (``sdb`` for ``sdb1``), when sysfs shows one."""
    bad_blocks: tuple[str, ...] = ()
    """Lines of ``dev-*/bad_blocks`` (``sector length``), at most :data:`~raidtop.audit.facts.MAX_LINES`."""
    unacknowledged_bad_blocks: tuple[str, ...] = ()
    """Lines of ``dev-*/unacknowledged_bad_blocks``: recorded, not yet written to the metadata."""
    offset_sectors: int | None = None
    """``dev-*/offset``: where the array's data starts on the member, 512-byte sectors."""
    partition_start: int | None = None
    """``/sys/class/block/<member>/start`` for a partition, 512-byte sectors; ``None`` for a whole disk."""
    physical_block: int | None = None
    """``queue/physical_block_size`` of the whole disk, bytes."""
    command_timeout_s: int | None = None
    """``/sys/block/<disk>/device/timeout``: seconds the SCSI layer waits before resetting the disk."""
    write_cache: str | None = None
    """``queue/write_cache``: ``write back`` (volatile cache on) or ``write through``."""
    rotational: bool | None = None


@frozen_dataclass
class AuditFacts:
    """Everything the audit read for one root, beyond the snapshot."""

    members: dict[str, MemberFacts] = field(default_factory=dict)
    """Keyed ``"<array>/<member>"``."""
    uptime_s: float | None = None
    scrub_schedules: tuple[str, ...] = ()
    """Files that schedule a periodic md check (Debian's cron.d/mdadm, mdcheck_start.timer, raid-check)."""
    notes: tuple[str, ...] = ()


@frozen_dataclass
class Finding:
    """One audit finding: a rule that matched an array (or one of its members)."""

    array: str
    rule: str
    """The rule's id in :data:`raidtop.audit.rules.RULES`; also the exporter's ``kind`` label."""
    severity: str
    member: str | None
    text: str
    """The sentence, with the numbers that matched."""
    evidence: tuple[str, ...]
    """``path or source: value`` lines that show it."""
    fix: str | None
    """The one command that fixes it, ``None`` where nothing should be done."""
    source: str
    """Where the rule comes from."""

    @property
    def rank(self) -> int:
        """How bad, for sorting worst first."""
        return SEVERITY_RANK.get(self.severity, 0)


def worst_first(findings: tuple[Finding, ...] | list[Finding]) -> tuple[Finding, ...]:
    """Findings grouped by array, each array's worst first (then by rule and member)."""
    from raidtop.collect.md.level import natural_key

    return tuple(sorted(findings, key=lambda f: (natural_key(f.array), -f.rank, f.rule, natural_key(f.member or ""))))
