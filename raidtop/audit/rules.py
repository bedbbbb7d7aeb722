"""The audit's rules: one entry each, with its severity, the fix and where it comes from.

A new rule is one :class:`AuditRule` here plus its detector in
:mod:`raidtop.audit.detect`; the README's Audit section lists the same table.
``fix`` is a template: ``{array}``, ``{member}`` and ``{disk}`` are filled in
with kernel names that :mod:`raidtop.audit.facts` checked.
"""

from __future__ import annotations
from raidtop.model.frozen import frozen_dataclass


MD_RST = "Linux Documentation/admin-guide/md.rst"
TIMEOUT_MISMATCH = (
    "Linux RAID wiki, \"Timeout Mismatch\" (raid.wiki.kernel.org); smartctl(8) -l scterc; "
    "mdadm PR #32, systemd#16956, rockstor#1177"
)
MDADM_8 = "mdadm(8), --bitmap: mdadm added an internal bitmap itself to arrays on devices of 100G or more"


@frozen_dataclass
class AuditRule:
    """One audit rule."""

    id: str
    severity: str
    title: str
    fix: str | None
    source: str
    why: str


RULES: dict[str, AuditRule] = {
    r.id: r
    for r in (
        AuditRule(
            "survivor-failing",
            "critical",
            "a member the rebuild depends on is not healthy",
            "mdadm /dev/{array} --add /dev/NEW && mdadm /dev/{array} --replace /dev/{member} --with /dev/NEW",
            "raidtop's SMART rules and rebuild risk (README: SMART)",
            "With no redundancy left (or while rebuilding), every sector of each survivor must read back; "
            "a watch or failing disk is the likeliest to stop the rebuild.",
        ),
        AuditRule(
            "member-smart",
            "warning",
            "a member's SMART verdict is watch or failing",
            "mdadm /dev/{array} --add /dev/NEW && mdadm /dev/{array} --replace /dev/{member} --with /dev/NEW",
            "raidtop's SMART rules (README: SMART)",
            "The array still has redundancy, but this disk is the one a rebuild would lose it on.",
        ),
        AuditRule(
            "erc-mismatch",
            "warning",
            "the disk may retry longer than the kernel waits",
            "smartctl -l scterc,70,70 /dev/{disk}",
            TIMEOUT_MISMATCH,
            "A disk without SCT ERC (or with a limit at or above the kernel's command timeout) retries an "
            "unreadable sector for up to two minutes; the SCSI layer resets it after its timeout (30 s) and md "
            "fails the whole member instead of rewriting one sector. 7 s (70 ds) is the usual RAID setting; "
            "smartctl's setting is lost at power-off, so set it at every boot (udev rule), or raise the "
            "timeout instead: echo 180 > /sys/block/DISK/device/timeout.",
        ),
        AuditRule(
            "bad-blocks",
            "warning",
            "md's bad-block log on a member has entries",
            "mdadm /dev/{array} --add /dev/NEW && mdadm /dev/{array} --replace /dev/{member} --with /dev/NEW",
            MD_RST + ", dev-*/bad_blocks and unacknowledged_bad_blocks",
            "md records sectors it could not read or write and could not rewrite; it serves them from "
            "redundancy while it lasts, and a rebuild that needs them from this member fails there. Once a write "
            "to the member failed (state write_error) md writes no more into a logged range, so neither a check "
            "nor a repair clears the entry (measured on Linux 6.1, tests/realmd/test_lab_faults.py): replacing "
            "the member does.",
        ),
        AuditRule(
            "read-errors",
            "info",
            "md corrected read errors on a member",
            "smartctl -t long /dev/{disk}",
            MD_RST + ", dev-*/errors",
            "md read these sectors from another copy and rewrote them: the data is whole, and a disk remaps a "
            "sector on such a write. It is the first sign of a disk growing unreadable sectors, so test it (the "
            "long self-test reads every sector; then raidtop smart) and consider replacing it if the count grows. "
            "md keeps the count in the v1 superblock across restarts: info, not an alarm; once judged, "
            "echo 0 > /sys/block/ARRAY/md/dev-MEMBER/errors starts it again.",
        ),
        AuditRule(
            "no-bitmap",
            "warning",
            "no write-intent bitmap",
            "mdadm --grow --bitmap=internal /dev/{array}",
            MDADM_8 + "; mdadm#138 (newer mdadm no longer adds one)",
            "Without a bitmap every crash or unclean shutdown resyncs the whole member (at 150 MiB/s, about 2 h "
            "per TiB) with redundancy reduced; the bitmap limits it to the regions being written. Members under "
            "100 GiB resync in minutes, so they are left alone, as mdadm did.",
        ),
        AuditRule(
            "mismatch",
            "warning",
            "the last check found inconsistent stripes",
            "echo repair > /sys/block/{array}/md/sync_action",
            MD_RST + ", mismatch_cnt",
            "On raid4/5/6 a mismatch after a check means parity does not match the data: a rebuild would "
            "reconstruct wrong data there. (raid1/10 mismatches are often harmless, from swap or O_DIRECT "
            "writes changing in flight, so they are not judged.)",
        ),
        AuditRule(
            "write-cache",
            "info",
            "volatile write cache on a parity array without a journal or PPL",
            "mdadm --grow --consistency-policy=ppl /dev/{array}",
            MD_RST + " (write hole, journal, ppl); Documentation/block/writeback_cache_control.rst",
            "md sends flushes, so fsync'd data survives a power loss on a drive that honours them; the raid5/6 "
            "write hole is not closed by them. Whether the drive has power-loss protection is not exposed by "
            "SMART or sysfs: a drive that reports no volatile cache (write through) usually has it.",
        ),
        AuditRule(
            "misaligned",
            "warning",
            "a member's data does not start on a physical block",
            None,
            "Linux Documentation/block/queue-sysfs.rst (physical_block_size); md.rst (dev-*/offset)",
            "Partition start plus md's data offset, in bytes, should be a multiple of the disk's physical "
            "block; otherwise every chunk straddles two physical blocks and each write is read-modify-write "
            "inside the drive. Fixing it means re-partitioning the member and rebuilding it.",
        ),
        AuditRule(
            "scrub-unscheduled",
            "warning",
            "no periodic check (scrub) is scheduled",
            "systemctl enable --now mdcheck_start.timer",
            "mdadm's misc/mdcheck and systemd/mdcheck_start.timer; Debian's /etc/cron.d/mdadm (checkarray, "
            "first Sunday of the month); Fedora's raid-check (weekly)",
            "A check reads every sector while redundancy is whole, so md rewrites what it cannot read; without "
            "it, unreadable sectors are found by the rebuild, when nothing is left to rewrite them from.",
        ),
        AuditRule(
            "scrub-overdue",
            "warning",
            "no check since the array was assembled, and the system is up longer than 35 days",
            "echo check > /sys/block/{array}/md/sync_action",
            "distribution defaults: Debian checks monthly, Fedora weekly; md.rst (last_sync_action)",
            "md does not record when the last check ran; last_sync_action names the last action since "
            "assembly. 35 days is one monthly schedule plus slack. When it says check or repair, a check "
            "ran since assembly (date unknown); raidtop does not guess further.",
        ),
        AuditRule(
            "sparse-by-design",
            "info",
            "empty slots by configuration, no copy missing",
            None,
            "raidtop's sparse-by-design rule (README: md truth)",
            "A mirror created with more slots than members (QNAP's [24/4]): its empty slots are configuration, "
            "not failures, so there is no alarm.",
        ),
    )
}
