"""smartctl's JSON (``smartctl --json --xall``) as a :class:`SmartHealth`.

The document is untrusted: a drive writes its own model name, a user pastes
a file from another machine, smartctl versions name fields differently. So
every field is looked up with its type checked, a missing or mistyped field
is ``None`` ("unknown", never 0: a missing pending-sector count must not read
as healthy), every string goes through :func:`raidtop.untrusted.plain` and is
cut to a sane length, and nothing here raises for any dict it is given.

Packed raw values: some vendors pack several numbers into one 48-bit ATA raw
value (Seagate's 188 is three 16-bit counters, "2 2 2" = 8590065666;
temperatures carry min/max in the upper bytes, "24 (Min/Max 18/36)").
smartctl decodes these into ``raw.string``, whose first number is the count
itself. So a count is taken from ``raw.string``'s leading integer when that
integer equals ``raw.value`` or its low 16 or 32 bits; otherwise (no string,
or a format we do not know) ``raw.value`` as it is.

No Textual, no Rich, no I/O: the verdict is ``raidtop.presentation.smart_rules``'s job.
"""

from __future__ import annotations

import re
from dataclasses import fields
from typing import Any

from raidtop.model.smart import READ_STATES, VERDICTS, SmartAttribute, SmartHealth, SmartReason
from raidtop.untrusted import COUNT_LIMIT, finite, plain

EXIT_BITS = (
    "the command line did not parse",
    "the device could not be opened, did not identify itself, or is in a low-power mode",
    "a SMART or other ATA command failed, or a SMART data structure checksum error",
    "SMART status check returned DISK FAILING",
    "prefail attributes are at or below their thresholds",
    "some attributes have been at or below their thresholds in the past",
    "the device error log contains records of errors",
    "the self-test log contains records of errors",
)
"""smartctl(8) EXIT STATUS, bit 0 to bit 7, in words."""

NVME_CRITICAL_WARNING_BITS = (
    "available spare capacity below its threshold",
    "temperature above or below its threshold",
    "reliability degraded by media or internal errors",
    "media placed in read-only mode",
    "volatile memory backup device failed",
    "persistent memory region has become read-only",
)
"""NVMe base specification, SMART / Health Information log, Critical Warning bits 0..5."""

ATA_COUNTERS = {
    5: "reallocated_sectors",
    187: "reported_uncorrect",
    188: "command_timeouts",
    197: "pending_sectors",
    198: "offline_uncorrectable",
    199: "udma_crc_errors",
}
"""ATA attribute id -> the SmartHealth field its raw count fills."""

_NVME_FIELDS = (
    "critical_warning",
    "temperature",
    "available_spare",
    "available_spare_threshold",
    "percentage_used",
    "data_units_read",
    "data_units_written",
    "host_reads",
    "host_writes",
    "controller_busy_time",
    "power_cycles",
    "power_on_hours",
    "unsafe_shutdowns",
    "media_errors",
    "num_err_log_entries",
    "warning_temp_time",
    "critical_comp_time",
)
# NVMe self-test results (NVMe base spec, Device Self-test log): 5..7 are failures;
# 1..4, 8, 9 are aborts, which say nothing about the media.
_NVME_TEST_FAILED = {5, 6, 7}
# SCSI self-test results (SPC, self-test results log page): 3..7 are failures.
_SCSI_TEST_FAILED = {3, 4, 5, 6, 7}
_MAX_TEXT = 200
_LEADING_INT = re.compile(r"\s*(\d+)")
_MAX_ATTRIBUTES = 256


def parse_smartctl(doc: Any, disk: str, read_at: float) -> SmartHealth:
    """Fill a SmartHealth (state ``read``, verdict not yet judged) from one smartctl document."""
    if not isinstance(doc, dict):
        doc = {}
    smartctl = _dict(doc, "smartctl")
    exit_status = _int(smartctl, "exit_status")
    critical = _int(_dict(doc, "nvme_smart_health_information_log"), "critical_warning")
    attributes, counters = _ata_attributes(doc)
    nvme = _dict(doc, "nvme_smart_health_information_log")
    test_text, test_passed, test_lba = _last_self_test(doc)
    temperature = _number(_dict(doc, "temperature"), "current")
    if temperature is None:
        temperature = counters.get("temperature_194", counters.get("temperature_190"))
    return SmartHealth(
        disk=disk,
        read_at=read_at,
        state="read",
        protocol=_text(_dict(doc, "device"), "protocol"),
        model=_text(doc, "model_name") or _text(doc, "scsi_model_name"),
        model_family=_text(doc, "model_family"),
        serial=_text(doc, "serial_number"),
        firmware=_text(doc, "firmware_version") or _text(doc, "scsi_revision"),
        capacity_bytes=_first(_int(_dict(doc, "user_capacity"), "bytes"), _int(doc, "nvme_total_capacity")),
        rotation_rate=_int(doc, "rotation_rate"),
        passed=_bool(_dict(doc, "smart_status"), "passed"),
        exit_status=exit_status,
        exit_meanings=bit_meanings(exit_status, EXIT_BITS),
        temperature_c=temperature,
        power_on_hours=_first(_int(_dict(doc, "power_on_time"), "hours"), _int(nvme, "power_on_hours")),
        reallocated_sectors=counters.get("reallocated_sectors"),
        reported_uncorrect=counters.get("reported_uncorrect"),
        command_timeouts=counters.get("command_timeouts"),
        pending_sectors=counters.get("pending_sectors"),
        offline_uncorrectable=counters.get("offline_uncorrectable"),
        udma_crc_errors=counters.get("udma_crc_errors"),
        last_self_test=test_text,
        last_self_test_passed=test_passed,
        self_test_failed_lba=test_lba,
        critical_warning=critical,
        critical_warning_meanings=bit_meanings(critical, NVME_CRITICAL_WARNING_BITS),
        percentage_used=_int(nvme, "percentage_used"),
        media_errors=_int(nvme, "media_errors"),
        available_spare=_int(nvme, "available_spare"),
        available_spare_threshold=_int(nvme, "available_spare_threshold"),
        unsafe_shutdowns=_int(nvme, "unsafe_shutdowns"),
        grown_defects=_int(doc, "scsi_grown_defect_list"),
        scsi_uncorrected_errors=_scsi_uncorrected(doc),
        attributes=attributes + _log_rows(nvme, _NVME_FIELDS) + _scsi_rows(doc),
        sct_erc_supported=_bool(_dict(doc, "ata_sct_capabilities"), "error_recovery_control_supported"),
        sct_erc_read_ds=_erc(doc, "read"),
        sct_erc_write_ds=_erc(doc, "write"),
        write_cache_enabled=_bool(_dict(doc, "write_cache"), "enabled"),
    )


def _erc(doc: dict, which: str) -> int | None:
    """``ata_sct_erc.<which>``: deciseconds, 0 when ``enabled`` is false (smartctl then omits the number)."""
    entry = _dict(_dict(doc, "ata_sct_erc"), which)
    enabled = _bool(entry, "enabled")
    if enabled is False:
        return 0
    value = _int(entry, "deciseconds")
    return value if enabled and value is not None and 0 <= value <= 65535 else None


def messages(doc: Any) -> tuple[str, ...]:
    """smartctl's own ``messages`` (errors and warnings), as plain one-line texts."""
    found = _dict(doc, "smartctl").get("messages") if isinstance(doc, dict) else None
    if not isinstance(found, list):
        return ()
    return tuple(text for m in found[:20] if isinstance(m, dict) and (text := _text(m, "string")))


def is_smartctl_document(doc: Any) -> bool:
    """True for what smartctl's ``--json`` writes: an object with a ``smartctl`` object in it."""
    return isinstance(doc, dict) and isinstance(doc.get("smartctl"), dict)


def bit_meanings(mask: int | None, meanings: tuple[str, ...]) -> tuple[str, ...]:
    """Each set bit of ``mask`` in words (bits beyond ``meanings`` as "bit N")."""
    if mask is None or mask <= 0:
        return ()
    return tuple(
        meanings[bit] if bit < len(meanings) else f"bit {bit}"
        for bit in range(min(mask.bit_length(), 64))
        if mask >> bit & 1
    )


def raw_count(raw: Any) -> int | None:
    """The count an ATA attribute's raw field stands for (see the module docstring)."""
    if not isinstance(raw, dict):
        return None
    value = _int(raw, "value")
    string = raw.get("string")
    match = _LEADING_INT.match(string) if isinstance(string, str) else None
    if value is None:
        return int(match.group(1)) if match and len(match.group(1)) < 20 else None
    if match and len(match.group(1)) < 20:
        shown = int(match.group(1))
        if shown in (value, value & 0xFFFF, value & 0xFFFFFFFF):
            return shown
    return value


# ------------------------------------------------------------------ pieces


def _ata_attributes(doc: dict) -> tuple[tuple[SmartAttribute, ...], dict[str, Any]]:
    table = _dict(doc, "ata_smart_attributes").get("table")
    if not isinstance(table, list):
        return (), {}
    rows: list[SmartAttribute] = []
    counters: dict[str, Any] = {}
    for entry in table[:_MAX_ATTRIBUTES]:
        if not isinstance(entry, dict) or (ident := _int(entry, "id")) is None:
            continue
        raw = entry.get("raw")
        count = raw_count(raw)
        field = ATA_COUNTERS.get(ident)
        if field is not None and count is not None and field not in counters:
            counters[field] = count
        elif ident in (194, 190) and count is not None and count < 200:
            counters[f"temperature_{ident}"] = float(count)
        flags = entry.get("flags")
        rows.append(
            SmartAttribute(
                id=ident,
                name=_text(entry, "name") or "",
                value=_int(entry, "value"),
                worst=_int(entry, "worst"),
                thresh=_int(entry, "thresh"),
                raw_value=_int(raw, "value") if isinstance(raw, dict) else None,
                raw_string=(_text(raw, "string") or "") if isinstance(raw, dict) else "",
                prefailure=_bool(flags, "prefailure") if isinstance(flags, dict) else None,
                when_failed=_text(entry, "when_failed") or "",
            )
        )
    return tuple(rows), counters


def _last_self_test(doc: dict) -> tuple[str | None, bool | None, int | None]:
    """The newest self-test's outcome: (words, passed, failing LBA)."""
    ata = _dict(doc, "ata_smart_self_test_log")
    for log in (_dict(ata, "extended"), _dict(ata, "standard")):
        table = log.get("table")
        if isinstance(table, list) and table and isinstance(table[0], dict):
            entry = table[0]
            status = _dict(entry, "status")
            return _text(status, "string"), _bool(status, "passed"), _int(entry, "lba")
    nvme_table = _dict(doc, "nvme_self_test_log").get("table")
    if isinstance(nvme_table, list) and nvme_table and isinstance(nvme_table[0], dict):
        entry = nvme_table[0]
        result = _dict(entry, "self_test_result")
        code = _int(result, "value")
        passed = None if code is None else (False if code in _NVME_TEST_FAILED else (True if code == 0 else None))
        return _text(result, "string"), passed, _int(entry, "lba")
    scsi = _dict(doc, "scsi_self_test_0")
    if scsi:
        result = _dict(scsi, "result")
        code = _int(result, "value")
        passed = None if code is None else (False if code in _SCSI_TEST_FAILED else (True if code == 0 else None))
        lba = scsi.get("lba_first_failure")
        lba_value = _int(lba, "value") if isinstance(lba, dict) else _int(scsi, "lba_first_failure")
        return _text(result, "string"), passed, lba_value
    return None, None, None


def _scsi_uncorrected(doc: dict) -> int | None:
    log = _dict(doc, "scsi_error_counter_log")
    found = [_int(_dict(log, kind), "total_uncorrected_errors") for kind in ("read", "write", "verify")]
    known = [n for n in found if n is not None]
    return sum(known) if known else None


def _log_rows(log: dict, fields: tuple[str, ...]) -> tuple[SmartAttribute, ...]:
    rows = []
    for name in fields:
        # json reads 1e999 as inf: only a finite number in range is a value.
        value = finite(log.get(name), 0, COUNT_LIMIT)
        if value is not None:
            rows.append(SmartAttribute(0, name, None, None, None, int(value), str(log[name])))
    return tuple(rows)


def _scsi_rows(doc: dict) -> tuple[SmartAttribute, ...]:
    rows = []
    defects = _int(doc, "scsi_grown_defect_list")
    if defects is not None:
        rows.append(SmartAttribute(0, "grown_defect_list", None, None, None, defects, str(defects)))
    log = _dict(doc, "scsi_error_counter_log")
    for kind in ("read", "write", "verify"):
        part = _dict(log, kind)
        for key in ("total_errors_corrected", "total_uncorrected_errors"):
            value = _int(part, key)
            if value is not None:
                rows.append(SmartAttribute(0, f"{kind}_{key}", None, None, None, value, str(value)))
    return tuple(rows)


def _first(*values: int | None) -> int | None:
    return next((v for v in values if v is not None), None)


def _dict(container: Any, key: str) -> dict:
    value = container.get(key) if isinstance(container, dict) else None
    return value if isinstance(value, dict) else {}


def _int(container: Any, key: str) -> int | None:
    value = container.get(key) if isinstance(container, dict) else None
    # bool is an int in Python; "true" is not a count. Negative counts are nonsense, and so is
    # 10**400 (it would overflow every float made of it further on).
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= COUNT_LIMIT:
        return None
    return value


def _number(container: Any, key: str) -> float | None:
    value = container.get(key) if isinstance(container, dict) else None
    return finite(value, -1e6, 1e6) if isinstance(value, (int, float)) else None


def _bool(container: Any, key: str) -> bool | None:
    value = container.get(key) if isinstance(container, dict) else None
    return value if isinstance(value, bool) else None


def _text(container: Any, key: str) -> str | None:
    value = container.get(key) if isinstance(container, dict) else None
    if not isinstance(value, str) or not value.strip():
        return None
    return plain(value.strip()[:_MAX_TEXT])


# ------------------------------------------------------------------ recordings


def health_from_dict(data: Any, disk: str) -> SmartHealth | None:
    """A SmartHealth back from its ``dataclasses.asdict`` form (a recording), or ``None``.

    A recording is untrusted: each field is kept only with the type the
    dataclass declares (else its default), strings are made plain, and an
    unknown state or verdict makes the whole entry ``None``.
    """
    if not isinstance(data, dict) or not isinstance(disk, str):
        return None
    values = _typed_fields(SmartHealth, data)
    if values.get("state") not in READ_STATES or values.get("verdict", "unknown") not in VERDICTS:
        return None
    values["disk"] = plain(disk)[:64]
    values.setdefault("read_at", 0.0)
    reasons = data.get("reasons")
    values["reasons"] = tuple(
        SmartReason(**fields)
        for r in (reasons if isinstance(reasons, list) else [])[:64]
        if len(fields := _typed_fields(SmartReason, r)) == 3
    )
    attributes = data.get("attributes")
    values["attributes"] = tuple(
        SmartAttribute(**fields)
        for a in (attributes if isinstance(attributes, list) else [])[:_MAX_ATTRIBUTES]
        if {"id", "name", "raw_string"} <= (fields := _typed_fields(SmartAttribute, a)).keys()
        and {"value", "worst", "thresh", "raw_value"} <= fields.keys()
    )
    try:
        return SmartHealth(**values)
    except TypeError:
        return None


def _typed_fields(cls: type, data: Any) -> dict[str, Any]:
    """The entries of ``data`` whose type matches ``cls``'s declared field type (others left out)."""
    if not isinstance(data, dict):
        return {}
    out: dict[str, Any] = {}
    for f in fields(cls):
        if f.name not in data or f.name in ("reasons", "attributes"):
            continue
        value, kind = data[f.name], str(f.type)
        if value is None and "None" in kind:
            out[f.name] = None
        elif kind.startswith("str") and isinstance(value, str):
            out[f.name] = plain(value)[:_MAX_TEXT]
        elif kind.startswith("int") and isinstance(value, int) and not isinstance(value, bool):
            out[f.name] = value
        elif kind.startswith("float") and isinstance(value, (int, float)) and not isinstance(value, bool):
            out[f.name] = float(value)
        elif kind.startswith("bool") and isinstance(value, bool):
            out[f.name] = value
        elif kind.startswith("tuple[str") and isinstance(value, list):
            out[f.name] = tuple(plain(v)[:_MAX_TEXT] for v in value[:64] if isinstance(v, str))
    return out
