"""Disk health from smartctl's JSON: what was read, the verdict and the rebuild risk.

Frozen dataclasses only (no I/O): ``collect/smart*.py`` fills them from
``smartctl --json=c --xall -n standby`` output, ``raidtop/presentation/smart_rules.py``
judges them, and the dashboard, the snapshot JSON, the exporter and
``raidtop smart`` show them. A field the drive did not report is ``None``
("unknown"), never 0: a missing pending-sector count must not read as healthy.
"""

from __future__ import annotations
from raidtop.model.frozen import frozen_dataclass


VERDICTS = ("ok", "watch", "failing", "unknown")
"""Ordered from best to worst for ``ok``..``failing``; ``unknown`` means not judged."""

VERDICT_RANK = {"unknown": -1, "ok": 0, "watch": 1, "failing": 2}
"""How bad each verdict is; a SmartWarning fires when the rank rises."""

READ_STATES = ("read", "standby", "unsupported", "error", "not_root", "no_smartctl")
"""``read``: smartctl answered; ``standby``: the disk sleeps and was not woken
("standby, not read"); ``unsupported``: no SMART on this device (loop, virtio,
a RAID controller without passthrough); ``error``: smartctl failed or timed out
(``message`` says why); ``not_root``/``no_smartctl``: raidtop cannot ask."""


@frozen_dataclass
class SmartAttribute:
    """One ATA SMART attribute row, as ``smartctl -A`` shows it."""

    id: int
    name: str
    value: int | None
    worst: int | None
    thresh: int | None
    raw_value: int | None
    raw_string: str
    prefailure: bool | None = None
    when_failed: str = ""
    """``now``, ``past`` or empty, smartctl's own words."""


@frozen_dataclass
class SmartReason:
    """One reason behind a verdict, in words, with the rule that produced it."""

    severity: str
    """``watch`` or ``failing``."""
    text: str
    """A sentence for the user: "8 pending sectors"."""
    rule: str
    """The rule's id in ``smart_rules.RULES`` (which documents its source)."""


@frozen_dataclass
class SmartHealth:
    """One physical disk's health at the time smartctl was last asked."""

    disk: str
    """Kernel name of the whole disk (``sda``, ``nvme0n1``)."""
    read_at: float
    """Wall-clock time of the smartctl call (Unix seconds)."""
    state: str
    """One of ``READ_STATES``."""
    verdict: str = "unknown"
    reasons: tuple[SmartReason, ...] = ()
    message: str | None = None
    """Why nothing was read (state other than ``read``), as a sentence."""
    protocol: str | None = None
    """``ATA``, ``NVMe`` or ``SCSI`` (smartctl's ``device.protocol``)."""
    model: str | None = None
    model_family: str | None = None
    """smartctl's drive-database family ("Seagate Exos 7E8"), used to tell enterprise from consumer."""
    serial: str | None = None
    firmware: str | None = None
    capacity_bytes: int | None = None
    rotation_rate: int | None = None
    """RPM; 0 for a solid-state device; ``None`` when not reported."""
    passed: bool | None = None
    """``smart_status.passed``: the drive's own overall self-assessment."""
    exit_status: int | None = None
    """``smartctl.exit_status`` bit mask (smartctl(8) EXIT STATUS)."""
    exit_meanings: tuple[str, ...] = ()
    """Each set bit of ``exit_status`` in words."""
    temperature_c: float | None = None
    power_on_hours: int | None = None
    # ATA attributes (raw values) that predict failure.
    reallocated_sectors: int | None = None
    """Attribute 5, Reallocated_Sector_Ct."""
    reported_uncorrect: int | None = None
    """Attribute 187, Reported_Uncorrect."""
    command_timeouts: int | None = None
    """Attribute 188, Command_Timeout."""
    pending_sectors: int | None = None
    """Attribute 197, Current_Pending_Sector."""
    offline_uncorrectable: int | None = None
    """Attribute 198, Offline_Uncorrectable."""
    udma_crc_errors: int | None = None
    """Attribute 199, UDMA_CRC_Error_Count (usually the cable, not the disk)."""
    last_self_test: str | None = None
    """The newest self-test's outcome in words, e.g. "completed without error"."""
    last_self_test_passed: bool | None = None
    self_test_failed_lba: int | None = None
    # NVMe health log.
    critical_warning: int | None = None
    critical_warning_meanings: tuple[str, ...] = ()
    percentage_used: int | None = None
    media_errors: int | None = None
    available_spare: int | None = None
    available_spare_threshold: int | None = None
    unsafe_shutdowns: int | None = None
    # SCSI.
    grown_defects: int | None = None
    scsi_uncorrected_errors: int | None = None
    """Sum of the error counter log's total uncorrected errors (read+write+verify)."""
    sct_erc_supported: bool | None = None
    """``ata_sct_capabilities.error_recovery_control_supported``; ``None`` when not reported (NVMe, SCSI)."""
    sct_erc_read_ds: int | None = None
    """SCT Error Recovery Control read limit, deciseconds (``smartctl -l scterc``); 0 means disabled."""
    sct_erc_write_ds: int | None = None
    """The same for writes."""
    write_cache_enabled: bool | None = None
    """ATA ``write_cache.enabled``: the drive's volatile write cache is on."""
    attributes: tuple[SmartAttribute, ...] = ()
    """Every ATA attribute, or the NVMe/SCSI log fields as rows (id 0)."""
    unrecoverable_error_bits: float | None = None
    """The drive's rated bits read per unrecoverable error when its class is known."""
    unrecoverable_error_basis: str = ""
    """Where that rate came from, or that it is assumed (1 in 10^14 bits)."""

    @property
    def worse_than_ok(self) -> bool:
        """True for ``watch`` and ``failing``."""
        return VERDICT_RANK.get(self.verdict, -1) > 0


@frozen_dataclass
class SurvivorRisk:
    """One surviving member of an array at risk, and what a rebuild still reads from it."""

    member: str
    """The md member's kernel name (``sdb1``)."""
    disk: str
    """Its whole disk (``sdb``), the key into ``Snapshot.smart``."""
    verdict: str
    reasons: tuple[str, ...]
    bytes_to_read: int | None
    """What the rebuild (or a rebuild after this failure) still reads from it."""
    ure_probability: float | None
    """Chance of at least one unrecoverable read error over ``bytes_to_read``."""
    error_rate_bits: float
    rate_assumed: bool
    """True when the rate is the 1-in-10^14 default rather than the drive's class."""


@frozen_dataclass
class RebuildRisk:
    """An array whose data depends on a disk that is not healthy."""

    array: str
    why: str
    """"degraded, no redundancy left" or "rebuilding"."""
    survivors: tuple[SurvivorRisk, ...]
    advice: str
    """What to do, as a sentence (back up now; prefer ``mdadm --replace``)."""
