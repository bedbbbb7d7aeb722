"""How SMART health is described on screen: the Health cell, a disk's fields, the risk banner.

Pure functions over the model (no Textual, no I/O), shared by the Disks
panel, the member grid, the array detail, the SMART screen and tests. Every
string that came from the drive (model, serial, attribute names) is passed
through :func:`raidtop.untrusted.plain` here, so callers may show the result
as text anywhere.
"""

from __future__ import annotations

import time
from collections.abc import Mapping

from raidtop.model.units import size
from raidtop.presentation.format import DASH
from raidtop.model.md import MdArray
from raidtop.model.smart import VERDICT_RANK, RebuildRisk, SmartHealth
from raidtop.model.snapshot import Snapshot
from raidtop.untrusted import plain

HEALTH_CELLS = {
    "ok": ("✓ ok", "good"),
    "watch": ("▲ watch", "warn"),
    "failing": ("✗ FAIL", "crit"),
}
"""Verdict -> (cell text with a marker that reads without colour, tone)."""
STANDBY_CELL = ("◌ standby", "dim")
UNKNOWN_CELL = (DASH, "dim")
HEALTH_WIDTH = 9

Row3 = tuple[str, str, "str | None"]
"""(label, value, tone) for label/value tables."""


def health_cell(health: SmartHealth | None) -> tuple[str, str]:
    """The Health column's text and tone for one disk (``—`` when unknown or unsupported)."""
    if health is None:
        return UNKNOWN_CELL
    cell = HEALTH_CELLS.get(health.verdict)
    if cell is not None:
        return cell
    return STANDBY_CELL if health.state == "standby" else UNKNOWN_CELL


def health_of(
    device: str, smart: Mapping[str, SmartHealth], disk_of: Mapping[str, tuple[str, ...]]
) -> SmartHealth | None:
    """The health that speaks for ``device``: its own, else the worst of the whole disks under it."""
    own = smart.get(device)
    if own is not None:
        return own
    found = [smart[d] for d in disk_of.get(device, ()) if d in smart]
    if not found:
        return None
    return max(found, key=lambda h: (VERDICT_RANK.get(h.verdict, -1), h.state == "standby"))


def member_verdicts(array: MdArray, snap: Snapshot) -> dict[str, str]:
    """The members of ``array`` whose disk SMART calls ``failing`` or ``watch``, with that verdict."""
    verdicts = {}
    if snap.smart:
        for member in array.members:
            health = health_of(member.name, snap.smart, snap.smart_disk_of)
            if health is not None and health.verdict in ("failing", "watch"):
                verdicts[member.name] = health.verdict
    return verdicts


def size_bytes(value: int | None) -> str:
    """A byte count in the panels' short units."""
    return size(value)


def percent(probability: float | None) -> str:
    """A probability as a percentage people read: ``55 %``, ``0.8 %``, ``< 0.1 %``."""
    if probability is None:
        return DASH
    pct = probability * 100
    if pct >= 10:
        return f"{pct:.0f} %"
    if pct >= 0.1:
        return f"{pct:.1f} %"
    return "< 0.1 %" if pct > 0 else "0 %"


def rate_text(error_bits: float, assumed: bool) -> str:
    """``1 in 10^14 bits (assumed)``."""
    exponent = f"{error_bits:.0e}".replace("e+", "e")
    mantissa, _, power = exponent.partition("e")
    shown = f"10^{int(power)}" if mantissa == "1" else f"{mantissa}×10^{int(power)}"
    return f"1 in {shown} bits" + (" (assumed)" if assumed else " (rated)")


def key_numbers(health: SmartHealth) -> str:
    """The few numbers that predict failure, those the drive reported, in one line."""
    parts = []
    for value, words in (
        (health.reallocated_sectors, "reallocated"),
        (health.pending_sectors, "pending"),
        (health.offline_uncorrectable, "offline uncorrectable"),
        (health.reported_uncorrect, "reported uncorrectable"),
        (health.media_errors, "media errors"),
        (health.grown_defects, "grown defects"),
        (health.scsi_uncorrected_errors, "uncorrected errors"),
    ):
        if value is not None:
            parts.append(f"{value} {words}")
    if health.percentage_used is not None:
        parts.append(f"{health.percentage_used} % used")
    if health.temperature_c is not None:
        parts.append(f"{health.temperature_c:.0f}°C")
    if health.power_on_hours is not None:
        parts.append(f"{health.power_on_hours} h on")
    return ", ".join(parts) or "no counters reported"


def state_words(health: SmartHealth) -> str:
    """Why there is no verdict, or that smartctl answered."""
    if health.state == "read":
        return "read"
    if health.state == "standby":
        return "standby, not read (raidtop does not wake a sleeping disk)"
    if health.state == "unsupported":
        # smartctl's own words say why (exit bit 0 alone would read "the command line did not parse").
        said = f"; smartctl says: {plain(health.message)}" if health.message else ""
        return f"unsupported: this device has no SMART to read (virtio, a RAID controller without passthrough){said}"
    return plain(health.message or health.state)


def _read_at(health: SmartHealth) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(health.read_at)) if health.read_at else DASH


def _val(value: object, unit: str = "") -> str:
    return DASH if value is None else f"{plain(value)}{unit}"


def summary_rows(health: SmartHealth) -> list[Row3]:
    """The SMART screen's label/value rows: identity, verdict, reasons, health logs, when read.

    A disk smartctl could not read gets its verdict, one sentence why and
    when: not a table of dashes for fields nobody read.
    """
    text, tone = health_cell(health)
    if health.state != "read":
        return [
            ("Verdict", text, tone),
            ("Why", state_words(health), "warn"),
            ("Read at", _read_at(health), "dim"),
        ]
    rows: list[Row3] = [
        ("Verdict", text, tone),
        *(("  because", plain(r.text), "crit" if r.severity == "failing" else "warn") for r in health.reasons),
        ("Model", _val(health.model), None),
        ("Serial", _val(health.serial), None),
        ("Firmware", _val(health.firmware), None),
        ("Protocol", _val(health.protocol), None),
        ("Capacity", size_bytes(health.capacity_bytes), None),
        (
            "Rotation",
            DASH
            if health.rotation_rate is None
            else ("solid state" if health.rotation_rate == 0 else f"{health.rotation_rate} rpm"),
            None,
        ),
        (
            "Self-assessment",
            DASH if health.passed is None else ("PASSED" if health.passed else "FAILED"),
            None if health.passed is None else "good" if health.passed else "crit",
        ),
        ("Temperature", _val(None if health.temperature_c is None else f"{health.temperature_c:.0f}", "°C"), None),
        ("Power-on hours", _val(health.power_on_hours), None),
        ("Last self-test", _val(health.last_self_test), None if health.last_self_test_passed is not False else "crit"),
    ]
    if health.self_test_failed_lba is not None:
        rows.append(("  failed at LBA", str(health.self_test_failed_lba), "crit"))
    nvme = (
        ("Critical warning", None if health.critical_warning is None else f"0x{health.critical_warning:02x}"),
        ("Percentage used", None if health.percentage_used is None else f"{health.percentage_used} %"),
        ("Media errors", health.media_errors),
        (
            "Available spare",
            None
            if health.available_spare is None
            else f"{health.available_spare} % (threshold {_val(health.available_spare_threshold, ' %')})",
        ),
        ("Unsafe shutdowns", health.unsafe_shutdowns),
    )
    scsi = (("Grown defects", health.grown_defects), ("Uncorrected errors", health.scsi_uncorrected_errors))
    for label, value in (*nvme, *scsi):
        if value is not None:
            rows.append((label, plain(value), None))
    rows += [("  means", plain(m), "warn") for m in health.critical_warning_meanings]
    exit_text = DASH if health.exit_status is None else f"{health.exit_status} (0x{health.exit_status:02x})"
    rows.append(("smartctl exit status", exit_text, None if not health.exit_status else "warn"))
    rows += [("  bit means", plain(m), "dim") for m in health.exit_meanings]
    rows += [
        ("State", state_words(health), "dim" if health.state == "read" else "warn"),
        ("Read at", _read_at(health), "dim"),
    ]
    if health.unrecoverable_error_bits is not None or health.unrecoverable_error_basis:
        rate = DASH if health.unrecoverable_error_bits is None else rate_text(health.unrecoverable_error_bits, False)
        rows.append(("Rated error rate", f"{rate} {plain(health.unrecoverable_error_basis)}".strip(), "dim"))
    return rows


def attribute_cells(health: SmartHealth) -> list[tuple[str, ...]]:
    """Every attribute as (ID, name, value, worst, thresh, raw, failed) cells."""
    out: list[tuple[str, ...]] = []
    for attr in health.attributes:
        raw = plain(attr.raw_string) if attr.raw_string else _val(attr.raw_value)
        out.append(
            (
                str(attr.id) if attr.id else "",
                plain(attr.name),
                _val(attr.value),
                _val(attr.worst),
                _val(attr.thresh),
                raw,
                plain(attr.when_failed) if attr.when_failed else "",
            )
        )
    return out


def member_health_rows(
    members: list[tuple[str, tuple[str, ...]]], smart: Mapping[str, SmartHealth]
) -> list[tuple[str, str, str, str, str | None]]:
    """The array detail's SMART section: (member, disk, verdict, reasons and key numbers, tone) per member disk."""
    rows: list[tuple[str, str, str, str, str | None]] = []
    for member, disks in members:
        for disk in disks or (member,):
            health = smart.get(disk)
            text, tone = health_cell(health)
            if health is None:
                rows.append((member, disk, text, "no SMART reading for this disk", "dim"))
                continue
            if health.state != "read" and not health.reasons:
                rows.append((member, disk, text, state_words(health), "dim"))
                continue
            why = "; ".join(plain(r.text) for r in health.reasons)
            rows.append((member, disk, text, (why + " · " if why else "") + key_numbers(health), tone))
    return rows


def banner_lines(risks: tuple[RebuildRisk, ...]) -> list[str]:
    """One line per survivor at risk, for the red banner on the Arrays panel."""
    lines = []
    for risk in risks:
        for s in risk.survivors:
            why = ", ".join(plain(r) for r in s.reasons) or s.verdict
            if risk.why.startswith("degraded"):
                head = f"{risk.array} degraded: its last copy of your data sits on {s.disk} ({why})"
            else:
                head = f"{risk.array} rebuilding: it reads every sector of {s.disk} ({why})"
            if s.bytes_to_read is None:
                numbers = "how much is left to read is unknown"
            else:
                numbers = (
                    f"{size(s.bytes_to_read, spoken=True)} left to read · {percent(s.ure_probability)} chance "
                    f"of a read error at {rate_text(s.error_rate_bits, s.rate_assumed)}"
                )
            lines.append(f"⚠ {head} — back up now; prefer mdadm --replace · {numbers} · x explains")
    return lines
