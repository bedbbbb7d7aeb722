"""One detector per audit rule; :func:`audit` runs them all over one snapshot's arrays.

Pure functions (no I/O): the snapshot's arrays and SMART readings, the
rebuild risks raidtop already judged, and :class:`~raidtop.audit.model.AuditFacts`.
A detector returns findings only for what it can see; what it cannot know
(a drive's power-loss protection, the date of the last check) is said in the
rule's text, never guessed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from raidtop.audit.model import AuditFacts, Finding, MemberFacts, worst_first
from raidtop.audit.rules import RULES
from raidtop.model.md import MdArray
from raidtop.model.smart import RebuildRisk, SmartHealth
from raidtop.model.units import counted

REDUNDANT = frozenset({"raid1", "raid4", "raid5", "raid6", "raid10"})
PARITY = frozenset({"raid4", "raid5", "raid6"})
BITMAP_MIN_KIB = 100 * 1024 * 1024
"""100 GiB per member: mdadm's own threshold for adding a bitmap (see the no-bitmap rule)."""
SCRUB_PERIOD_S = 35 * 86400
ERC_RAID_DS = 70


class Context:
    """What every detector may look at for one array."""

    def __init__(
        self, array: MdArray, facts: AuditFacts, smart: Mapping[str, SmartHealth], risks: Sequence[RebuildRisk]
    ) -> None:
        self.array = array
        self.facts = facts
        self.smart = smart
        self.risk = next((r for r in risks if r.array == array.name), None)

    def member_facts(self) -> list[MemberFacts]:
        """Facts for the members that are (or are becoming) part of the data, not faulty ones."""
        out = []
        for member in self.array.members:
            f = self.facts.members.get(f"{self.array.name}/{member.name}")
            if f is not None and not member.is_faulty:
                out.append(f)
        return out

    def finding(
        self, rule: str, text: str, evidence: Sequence[str], member: str | None = None, disk: str | None = None
    ) -> Finding:
        """A finding for ``rule`` with its fix filled in."""
        r = RULES[rule]
        fix = (
            None
            if r.fix is None
            else r.fix.format(array=self.array.name, member=member or "MEMBER", disk=disk or "DISK")
        )
        return Finding(self.array.name, rule, r.severity, member, text, tuple(evidence), fix, r.source)


def survivors(ctx: Context) -> list[Finding]:
    """survivor-failing from the rebuild risk; member-smart for the others that are not ok."""
    out: list[Finding] = []
    at_risk = set()
    if ctx.risk is not None:
        for s in ctx.risk.survivors:
            at_risk.add(s.disk)
            odds = (
                ""
                if s.ure_probability is None
                else f"; chance of an unreadable sector over what is left: {s.ure_probability:.0%}"
            )
            out.append(
                ctx.finding(
                    "survivor-failing",
                    f"{s.member} ({s.disk}) is {s.verdict} and the array is {ctx.risk.why}{odds}",
                    [f"SMART {s.disk}: {'; '.join(s.reasons)}"],
                    member=s.member,
                )
            )
    for f in ctx.member_facts():
        h = ctx.smart.get(f.disk or "")
        if h is None or not h.worse_than_ok or (f.disk in at_risk):
            continue
        reasons = "; ".join(r.text for r in h.reasons) or "no reason given"
        out.append(
            ctx.finding(
                "member-smart",
                f"{f.name} ({f.disk}) is {h.verdict}: {reasons}",
                [f"SMART {f.disk}: verdict {h.verdict}"],
                member=f.name,
            )
        )
    return out


def erc(ctx: Context) -> list[Finding]:
    """A rotating ATA member whose error recovery can outlast the kernel's command timeout."""
    out = []
    for f in ctx.member_facts():
        h = ctx.smart.get(f.disk or "")
        if h is None or h.state != "read" or h.protocol != "ATA" or h.rotation_rate == 0:
            continue
        timeout = f.command_timeout_s
        evidence = [f"/sys/block/{f.disk}/device/timeout: {timeout if timeout is not None else 'unreadable'}"]
        read_ds = h.sct_erc_read_ds
        if read_ds is None and h.sct_erc_supported is not False:
            continue  # smartctl did not say: nothing to judge
        if h.sct_erc_supported is False or read_ds == 0:
            if timeout is not None and timeout >= 120:
                continue  # the other cure: the kernel already waits longer than any disk retries
            state = "not supported" if h.sct_erc_supported is False else "disabled"
            evidence.insert(0, f"smartctl -l scterc {f.disk}: {state}")
            shown_timeout = timeout if timeout is not None else "?"
            text = f"{f.name} ({f.disk}): SCT ERC {state}, kernel command timeout {shown_timeout} s"
            out.append(ctx.finding("erc-mismatch", text, evidence, member=f.name, disk=f.disk))
        elif timeout is not None and read_ds is not None and read_ds / 10 >= timeout:
            evidence.insert(0, f"smartctl -l scterc {f.disk}: read {read_ds / 10:g} s")
            text = f"{f.name} ({f.disk}): SCT ERC {read_ds / 10:g} s is not below the kernel's {timeout} s timeout"
            out.append(ctx.finding("erc-mismatch", text, evidence, member=f.name, disk=f.disk))
    return out


def bad_blocks(ctx: Context) -> list[Finding]:
    """Entries in md's per-member bad-block log."""
    out = []
    for f in ctx.member_facts():
        if not f.bad_blocks and not f.unacknowledged_bad_blocks:
            continue
        sectors = sum(
            int(line.split()[1]) for line in f.bad_blocks + f.unacknowledged_bad_blocks if len(line.split()) == 2
        )
        entries = len(f.bad_blocks) + len(f.unacknowledged_bad_blocks)
        base = f"/sys/block/{ctx.array.name}/md/dev-{f.name}"
        evidence = [
            f"{base}/bad_blocks: {', '.join(f.bad_blocks[:4]) or 'empty'}" + (" …" if len(f.bad_blocks) > 4 else "")
        ]
        if f.unacknowledged_bad_blocks:
            evidence.append(f"{base}/unacknowledged_bad_blocks: {', '.join(f.unacknowledged_bad_blocks[:4])}")
        out.append(
            ctx.finding(
                "bad-blocks",
                f"{f.name}: {counted(entries, 'bad-block range')}, {counted(sectors, 'sector')}",
                evidence,
                member=f.name,
            )
        )
    return out


def read_errors(ctx: Context) -> list[Finding]:
    """Members md counted corrected read errors on (``dev-*/errors``, from the snapshot)."""
    out = []
    for member in ctx.array.members:
        if member.is_faulty or not member.errors:
            continue
        f = ctx.facts.members.get(f"{ctx.array.name}/{member.name}")
        out.append(
            ctx.finding(
                "read-errors",
                f"{member.name}: md corrected {counted(member.errors, 'read error')} (rewritten from redundancy)",
                [f"/sys/block/{ctx.array.name}/md/dev-{member.name}/errors: {member.errors}"],
                member=member.name,
                disk=(f.disk if f is not None else None) or member.name,
            )
        )
    return out


def bitmap(ctx: Context) -> list[Finding]:
    """A redundant array on members of 100 GiB or more without a write-intent bitmap."""
    a = ctx.array
    if a.level not in REDUNDANT or a.bitmap != "none" or a.consistency_policy in ("journal", "ppl"):
        return []
    size = a.component_size_kib
    if size is None or size < BITMAP_MIN_KIB:
        return []
    return [
        ctx.finding(
            "no-bitmap",
            f"{a.name}: no write-intent bitmap on {size / 1024 / 1024:.0f} GiB members; a crash means a full resync",
            [f"/sys/block/{a.name}/md/bitmap/location: none", f"component_size: {size} KiB"],
        )
    ]


def mismatches(ctx: Context) -> list[Finding]:
    """mismatch_cnt above 0 on raid4/5/6 once the last check or repair finished."""
    a = ctx.array
    if a.level not in PARITY or not a.mismatch_cnt or a.syncing or a.last_sync_action not in ("check", "repair"):
        return []
    evidence = [f"/sys/block/{a.name}/md/mismatch_cnt: {a.mismatch_cnt}", f"last_sync_action: {a.last_sync_action}"]
    if a.last_sync_action == "repair":
        text = f"{a.name}: the last repair rewrote {a.mismatch_cnt} sectors; run a check to confirm parity now matches"
        return [ctx.finding("mismatch", text, evidence)]
    return [ctx.finding("mismatch", f"{a.name}: the last check found {a.mismatch_cnt} inconsistent sectors", evidence)]


def write_cache(ctx: Context) -> list[Finding]:
    """Members with a volatile write cache on a parity array with no journal or PPL."""
    a = ctx.array
    if a.level not in PARITY or a.consistency_policy in ("journal", "ppl"):
        return []
    cached = [f for f in ctx.member_facts() if f.write_cache == "write back"]
    if not cached:
        return []
    names = ", ".join(f.disk or f.name for f in cached)
    return [
        ctx.finding(
            "write-cache",
            f"{a.name}: volatile write cache on {names}; consistency policy "
            f"{a.consistency_policy or 'unknown'}; power-loss protection unknown",
            [f"/sys/block/{f.disk}/queue/write_cache: write back" for f in cached[:4]]
            + [f"consistency_policy: {a.consistency_policy or 'unreadable'}"],
        )
    ]


def alignment(ctx: Context) -> list[Finding]:
    """A member whose data start is not a multiple of its disk's physical block."""
    out = []
    for f in ctx.member_facts():
        if f.offset_sectors is None or not f.physical_block or f.physical_block <= 512:
            continue
        start = (f.partition_start or 0) + f.offset_sectors
        if (start * 512) % f.physical_block == 0:
            continue
        out.append(
            ctx.finding(
                "misaligned",
                f"{f.name}: data starts at byte {start * 512}, not a multiple of "
                f"{f.physical_block}-byte physical blocks",
                [
                    f"/sys/class/block/{f.name}/start: "
                    f"{f.partition_start if f.partition_start is not None else '(whole disk)'}",
                    f"dev-{f.name}/offset: {f.offset_sectors}",
                    f"/sys/block/{f.disk}/queue/physical_block_size: {f.physical_block}",
                ],
                member=f.name,
            )
        )
    return out


def scrub(ctx: Context) -> list[Finding]:
    """No check scheduled anywhere; or none since assembly on a system up longer than the period."""
    a = ctx.array
    if a.level not in REDUNDANT:
        return []
    out = []
    if not ctx.facts.scrub_schedules:
        out.append(
            ctx.finding(
                "scrub-unscheduled",
                f"{a.name}: no periodic check found",
                ["none of /etc/cron.d/mdadm, /etc/cron.d/raid-check, an enabled mdcheck_start.timer"],
            )
        )
    up = ctx.facts.uptime_s
    if up is not None and up > SCRUB_PERIOD_S and a.last_sync_action not in ("check", "repair") and not a.syncing:
        out.append(
            ctx.finding(
                "scrub-overdue",
                f"{a.name}: no check since assembly; up {up / 86400:.0f} days",
                [
                    f"/sys/block/{a.name}/md/last_sync_action: {a.last_sync_action or 'unreadable'}",
                    f"/proc/uptime: {up:.0f} s",
                ],
            )
        )
    return out


def sparse(ctx: Context) -> list[Finding]:
    """Say that a sparse-by-design array's empty slots are configuration."""
    a = ctx.array
    if not a.sparse_by_design:
        return []
    return [
        ctx.finding(
            "sparse-by-design",
            f"{a.name}: {a.degraded} of {a.raid_disks} slots empty by configuration; no copy missing",
            [f"[{a.raid_disks}/{a.working_disks}] {a.status or ''}".strip()],
        )
    ]


DETECTORS: tuple[Callable[[Context], list[Finding]], ...] = (
    survivors,
    erc,
    bad_blocks,
    read_errors,
    bitmap,
    mismatches,
    write_cache,
    alignment,
    scrub,
    sparse,
)


def audit(
    arrays: Sequence[MdArray], facts: AuditFacts, smart: Mapping[str, SmartHealth], risks: Sequence[RebuildRisk] = ()
) -> tuple[Finding, ...]:
    """Every finding for every array (containers skipped), worst first within each array."""
    found: list[Finding] = []
    for array in arrays:
        if array.is_container or array.state == "inactive":
            continue
        ctx = Context(array, facts, smart, risks)
        for detector in DETECTORS:
            found.extend(detector(ctx))
    return worst_first(found)


def audit_snapshot(root, snap) -> tuple[tuple[Finding, ...], tuple[str, ...]]:
    """Read the facts under ``root`` for ``snap``'s arrays and judge them: (findings, notes)."""
    from raidtop.audit.facts import read_facts

    facts = read_facts(root, snap.arrays)
    return audit(snap.arrays, facts, snap.smart, snap.rebuild_risks), facts.notes
