"""The SMART verdict: ok / watch / failing, with each reason in words and its source.

Pure functions, no I/O: :func:`judge` takes what ``collect/smart_json.py``
read and returns it with ``verdict``, ``reasons`` and the drive's rated
unrecoverable-read-error rate filled in. Every rule is a row of
:data:`RULES`, which says where it comes from and why its threshold is what
it is; the README's SMART section repeats the table.

``failing`` means "expect this disk to lose data soon, or it cannot read some
of it now" (the drive's own FAILED, pending or unreadable sectors, a failed
self-test, NVMe's own critical warnings). ``watch`` means "a known predictor
of failure or a fault worth looking at, but drives live for years with it"
(a few remapped sectors, a CRC count that is usually the cable).
"""

from __future__ import annotations

import re
from dataclasses import replace

from raidtop.model.frozen import frozen_dataclass
from raidtop.collect.smart.parse import NVME_CRITICAL_WARNING_BITS
from raidtop.model.smart import VERDICT_RANK, SmartHealth, SmartReason
from raidtop.model.units import counted

BACKBLAZE_2016 = (
    "Backblaze, \"What SMART Stats Tell Us About Hard Drives\" (2016): attributes 5, 187, 188, 197 "
    "and 198 above 0 are the ones that correlate with drive failure"
)
SMARTCTL_8 = "smartctl(8), EXIT STATUS and -H (the drive's own overall assessment)"
NVME_SPEC = (
    "NVM Express base specification, SMART / Health Information log page "
    "(Critical Warning, Available Spare, Percentage Used, Media Errors)"
)
SCSI_SPC = "SCSI SPC/SBC: grown defect list (sectors the drive remapped) and the error counter log pages"


@frozen_dataclass
class Rule:
    """One verdict rule: what it looks at, how bad, its source and why this threshold."""

    id: str
    severity: str
    source: str
    threshold: str


RULES: dict[str, Rule] = {
    r.id: r
    for r in (
        Rule(
            "smart-status-failed",
            "failing",
            SMARTCTL_8,
            "smart_status.passed is false: the drive itself says it is failing.",
        ),
        Rule("exit-disk-failing", "failing", SMARTCTL_8, "exit status bit 3 (DISK FAILING)."),
        Rule(
            "exit-prefail-now",
            "failing",
            SMARTCTL_8,
            "exit status bit 4: a pre-failure attribute is at or below its threshold now.",
        ),
        Rule(
            "exit-threshold-past",
            "watch",
            SMARTCTL_8,
            "exit status bit 5: an attribute was at or below its threshold in the past.",
        ),
        Rule(
            "exit-error-log",
            "watch",
            SMARTCTL_8,
            "exit status bit 6: the drive's error log has entries (old ones are common on healthy drives).",
        ),
        Rule("exit-self-test-log", "watch", SMARTCTL_8, "exit status bit 7: the self-test log has errors."),
        Rule(
            "ata-pending",
            "failing",
            BACKBLAZE_2016,
            "197 > 0: sectors the drive cannot read right now; a rebuild that reads them fails there.",
        ),
        Rule(
            "ata-offline-uncorrectable",
            "failing",
            BACKBLAZE_2016,
            "198 > 0: sectors an offline scan could not read; same risk as pending sectors.",
        ),
        Rule(
            "ata-reallocated",
            "watch",
            BACKBLAZE_2016,
            "5 > 0: remapped sectors predict failure, but drives run for years with a few; "
            "failing from 100 on, where the spare area is being used up fast.",
        ),
        Rule("ata-reallocated-many", "failing", BACKBLAZE_2016, "5 >= 100 (our threshold: see ata-reallocated)."),
        Rule("ata-reported-uncorrect", "watch", BACKBLAZE_2016, "187 > 0: reads the drive's ECC could not correct."),
        Rule(
            "ata-command-timeout",
            "watch",
            BACKBLAZE_2016,
            "188 > 0 on a rotating disk (Backblaze studied hard drives; SSDs report other events in 188).",
        ),
        Rule(
            "ata-crc",
            "watch",
            "smartmontools FAQ / vendor notes: 199 counts interface CRC errors",
            "199 > 0: errors on the link, usually the cable or backplane, not the media; never failing.",
        ),
        Rule("self-test-failed", "failing", SMARTCTL_8, "the newest self-test in the log did not pass."),
        Rule("nvme-spare", "failing", NVME_SPEC, "available_spare below available_spare_threshold."),
        Rule(
            "nvme-critical",
            "failing",
            NVME_SPEC,
            "critical_warning bits 0 (spare), 2 (reliability), 3 (read-only), 4 (volatile backup), 5 (PMR read-only).",
        ),
        Rule("nvme-temperature", "watch", NVME_SPEC, "critical_warning bit 1: temperature outside its thresholds."),
        Rule(
            "nvme-worn-out",
            "watch",
            NVME_SPEC,
            "percentage_used >= 100: past the vendor's rated endurance (the drive may go on working).",
        ),
        Rule("nvme-media-errors", "watch", NVME_SPEC, "media_errors > 0: unrecovered data integrity errors."),
        Rule("scsi-grown-defects", "watch", SCSI_SPC, "grown defect list > 0: sectors remapped since manufacture."),
        Rule("scsi-uncorrected", "watch", SCSI_SPC, "total uncorrected read/write/verify errors > 0."),
    )
}

REALLOCATED_FAILING = 100

# Rated unrecoverable read errors, bits read per error, by drive class (vendor data sheets).
RATE_CONSUMER_HDD = 1e14
RATE_ENTERPRISE_HDD = 1e15
RATE_SSD = 1e16
ENTERPRISE_FAMILY = re.compile(
    r"\b(enterprise|ultrastar|constellation|exos|re[34]?|gold|ironwolf pro|nytro|savvio|cheetah|mg\d\d\w*)\b",
    re.IGNORECASE,
)
"""Words in smartctl's model family that mark an enterprise (10^15) hard drive: "Western Digital RE4",
"Seagate Exos 7E8", "Toshiba MG04ACA... Enterprise HDD". "Western Digital Red" is not one."""


def judge(health: SmartHealth) -> SmartHealth:
    """``health`` with its verdict, reasons and error-rate class filled in."""
    bits, basis = error_rate(health)
    if health.state != "read":
        return replace(
            health, verdict="unknown", reasons=(), unrecoverable_error_bits=bits, unrecoverable_error_basis=basis
        )
    reasons = tuple(_reasons(health))
    verdict = "ok"
    for reason in reasons:
        if VERDICT_RANK[reason.severity] > VERDICT_RANK[verdict]:
            verdict = reason.severity
    return replace(
        health, verdict=verdict, reasons=reasons, unrecoverable_error_bits=bits, unrecoverable_error_basis=basis
    )


def error_rate(health: SmartHealth) -> tuple[float, str]:
    """The drive's rated bits per unrecoverable read error, and how that was decided.

    NVMe -> 10^16 (data sheets say 10^16..10^17; the lower is the safe side);
    rotation rate 0 (SATA/SAS SSD) -> 10^16; SCSI/SAS rotating -> 10^15;
    ATA rotating with an enterprise model family -> 10^15; ATA rotating with
    another family -> 10^14 (consumer). Anything else: 10^14, "assumed".
    """
    family = (health.model_family or "").lower()
    if health.protocol == "NVMe":
        return RATE_SSD, "NVMe drive: 1 in 10^16 bits (data sheets say 10^16 to 10^17)"
    if health.rotation_rate == 0:
        return RATE_SSD, "solid-state drive (rotation rate 0): 1 in 10^16 bits"
    if health.protocol == "SCSI":
        return RATE_ENTERPRISE_HDD, "SAS/SCSI hard drive: enterprise class, 1 in 10^15 bits"
    if family and ENTERPRISE_FAMILY.search(family):
        return RATE_ENTERPRISE_HDD, f"enterprise hard drive ({health.model_family}): 1 in 10^15 bits"
    if family and health.rotation_rate:
        return RATE_CONSUMER_HDD, f"consumer hard drive ({health.model_family}): 1 in 10^14 bits"
    return RATE_CONSUMER_HDD, "assumed 1 in 10^14 bits (drive class unknown; the consumer hard drive rate)"


def _reasons(h: SmartHealth):
    if h.passed is False:
        yield SmartReason("failing", "SMART overall-health self-assessment: FAILED", "smart-status-failed")
    status = h.exit_status or 0
    if status & 8 and h.passed is not False:
        yield SmartReason("failing", "smartctl: the disk reports it is failing", "exit-disk-failing")
    if status & 16:
        yield SmartReason("failing", "a pre-failure attribute is at or below its threshold now", "exit-prefail-now")
    if status & 32:
        yield SmartReason("watch", "an attribute was at or below its threshold in the past", "exit-threshold-past")
    if status & 64:
        yield SmartReason("watch", "the drive's error log has entries", "exit-error-log")
    if status & 128 and h.last_self_test_passed is not False:
        yield SmartReason("watch", "the self-test log has errors", "exit-self-test-log")
    yield from _ata(h)
    if h.last_self_test_passed is False:
        where = f" at LBA {h.self_test_failed_lba}" if h.self_test_failed_lba is not None else ""
        yield SmartReason("failing", f"last self-test failed{where}", "self-test-failed")
    yield from _nvme(h)
    if h.grown_defects:
        yield SmartReason("watch", counted(h.grown_defects, "grown defect"), "scsi-grown-defects")
    if h.scsi_uncorrected_errors:
        yield SmartReason("watch", counted(h.scsi_uncorrected_errors, "uncorrected error"), "scsi-uncorrected")


def _ata(h: SmartHealth):
    if h.pending_sectors:
        yield SmartReason("failing", counted(h.pending_sectors, "pending sector"), "ata-pending")
    if h.offline_uncorrectable:
        yield SmartReason(
            "failing", counted(h.offline_uncorrectable, "offline uncorrectable sector"), "ata-offline-uncorrectable"
        )
    if h.reallocated_sectors:
        many = h.reallocated_sectors >= REALLOCATED_FAILING
        yield SmartReason(
            "failing" if many else "watch",
            counted(h.reallocated_sectors, "reallocated sector"),
            "ata-reallocated-many" if many else "ata-reallocated",
        )
    if h.reported_uncorrect:
        yield SmartReason(
            "watch", counted(h.reported_uncorrect, "reported uncorrectable error"), "ata-reported-uncorrect"
        )
    if h.command_timeouts and h.rotation_rate != 0:
        yield SmartReason("watch", counted(h.command_timeouts, "command timeout"), "ata-command-timeout")
    if h.udma_crc_errors:
        yield SmartReason("watch", counted(h.udma_crc_errors, "interface CRC error") + " (check the cable)", "ata-crc")


def _nvme(h: SmartHealth):
    spare, threshold = h.available_spare, h.available_spare_threshold
    spare_low = spare is not None and threshold is not None and spare < threshold
    if spare_low:
        yield SmartReason("failing", f"NVMe spare {spare} % below its {threshold} % threshold", "nvme-spare")
    warning = h.critical_warning or 0
    serious = [
        meaning
        for bit, meaning in enumerate(NVME_CRITICAL_WARNING_BITS)
        if warning >> bit & 1 and bit != 1 and not (bit == 0 and spare_low)
    ]
    if serious:
        yield SmartReason("failing", "NVMe critical warning: " + "; ".join(serious), "nvme-critical")
    if warning & 2:
        yield SmartReason("watch", "NVMe critical warning: temperature outside its thresholds", "nvme-temperature")
    if h.percentage_used is not None and h.percentage_used >= 100:
        yield SmartReason("watch", f"{h.percentage_used} % of rated endurance used", "nvme-worn-out")
    if h.media_errors:
        yield SmartReason("watch", counted(h.media_errors, "NVMe media error"), "nvme-media-errors")
