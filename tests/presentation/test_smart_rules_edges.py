"""The SMART verdict at each rule's boundary (raidtop.presentation.smart_rules).

The corpus tests (test_smart_json.py) judge 131 real drives, but few sit on
a threshold: here every rule is tried just below and at its threshold, on a
reading with nothing else wrong, and a disk not read (standby, unsupported)
must say "unknown", never "ok". Expected verdicts and words are written out
by hand from the rules table.
"""

from __future__ import annotations

import pytest

from raidtop.model.smart import SmartHealth
from raidtop.presentation.smart_rules import (
    RATE_CONSUMER_HDD,
    RATE_ENTERPRISE_HDD,
    RATE_SSD,
    REALLOCATED_FAILING,
    RULES,
    error_rate,
    judge,
)


def reading(**fields) -> SmartHealth:
    fields.setdefault("protocol", "ATA")
    fields.setdefault("rotation_rate", 7200)
    fields.setdefault("passed", True)
    fields.setdefault("exit_status", 0)
    return SmartHealth("sda", 0.0, "read", **fields)


def verdict(**fields) -> tuple[str, list[tuple[str, str, str]]]:
    judged = judge(reading(**fields))
    return judged.verdict, [(r.severity, r.text, r.rule) for r in judged.reasons]


def test_a_clean_reading_is_ok():
    assert verdict() == ("ok", [])
    assert verdict(reallocated_sectors=0, pending_sectors=0, percentage_used=0, critical_warning=0) == ("ok", [])


def test_reallocated_99_is_watch_and_100_failing():
    assert REALLOCATED_FAILING == 100
    assert verdict(reallocated_sectors=1) == ("watch", [("watch", "1 reallocated sector", "ata-reallocated")])
    assert verdict(reallocated_sectors=99) == ("watch", [("watch", "99 reallocated sectors", "ata-reallocated")])
    assert verdict(reallocated_sectors=100) == (
        "failing",
        [("failing", "100 reallocated sectors", "ata-reallocated-many")],
    )


@pytest.mark.parametrize("state", ["standby", "unsupported", "error", "not_root", "no_smartctl"])
def test_a_disk_not_read_is_unknown_never_ok(state):
    judged = judge(SmartHealth("sda", 0.0, state, protocol="NVMe"))
    assert (judged.verdict, judged.reasons) == ("unknown", ())
    assert judged.unrecoverable_error_bits == RATE_SSD  # the drive class is still known


def test_a_disk_not_read_is_unknown_whatever_stale_fields_say():
    judged = judge(SmartHealth("sda", 0.0, "standby", passed=False, pending_sectors=8))
    assert (judged.verdict, judged.reasons) == ("unknown", ())


@pytest.mark.parametrize(
    "status, expected",
    [
        (1, ("ok", [])),
        (2, ("ok", [])),
        (4, ("ok", [])),
        (8, ("failing", [("failing", "smartctl: the disk reports it is failing", "exit-disk-failing")])),
        (
            16,
            ("failing", [("failing", "a pre-failure attribute is at or below its threshold now", "exit-prefail-now")]),
        ),
        (32, ("watch", [("watch", "an attribute was at or below its threshold in the past", "exit-threshold-past")])),
        (64, ("watch", [("watch", "the drive's error log has entries", "exit-error-log")])),
        (128, ("watch", [("watch", "the self-test log has errors", "exit-self-test-log")])),
    ],
)
def test_each_exit_status_bit_alone(status, expected):
    assert verdict(exit_status=status) == expected


def test_a_failed_overall_assessment_is_said_once():
    failed = ("failing", "SMART overall-health self-assessment: FAILED", "smart-status-failed")
    assert verdict(passed=False) == ("failing", [failed])
    assert verdict(passed=False, exit_status=8) == ("failing", [failed])
    assert verdict(passed=None, exit_status=8)[1][0][2] == "exit-disk-failing"


def test_a_failed_self_test_is_said_once_with_its_lba():
    assert verdict(last_self_test_passed=False, exit_status=128) == (
        "failing",
        [("failing", "last self-test failed", "self-test-failed")],
    )
    assert verdict(last_self_test_passed=False, self_test_failed_lba=0) == (
        "failing",
        [("failing", "last self-test failed at LBA 0", "self-test-failed")],
    )
    assert verdict(last_self_test_passed=True, exit_status=128)[0] == "watch"


@pytest.mark.parametrize(
    "field, text, severity, rule",
    [
        ("pending_sectors", "pending sector", "failing", "ata-pending"),
        ("offline_uncorrectable", "offline uncorrectable sector", "failing", "ata-offline-uncorrectable"),
        ("reported_uncorrect", "reported uncorrectable error", "watch", "ata-reported-uncorrect"),
        ("command_timeouts", "command timeout", "watch", "ata-command-timeout"),
        ("media_errors", "NVMe media error", "watch", "nvme-media-errors"),
        ("grown_defects", "grown defect", "watch", "scsi-grown-defects"),
        ("scsi_uncorrected_errors", "uncorrected error", "watch", "scsi-uncorrected"),
    ],
)
def test_each_count_from_1(field, text, severity, rule):
    assert verdict(**{field: 0}) == ("ok", [])
    assert verdict(**{field: 1}) == (severity, [(severity, f"1 {text}", rule)])
    assert verdict(**{field: 2}) == (severity, [(severity, f"2 {text}s", rule)])


def test_crc_errors_point_at_the_cable_and_never_fail():
    assert verdict(udma_crc_errors=5000) == (
        "watch",
        [("watch", "5000 interface CRC errors (check the cable)", "ata-crc")],
    )


def test_command_timeouts_count_on_rotating_disks_only():
    assert verdict(command_timeouts=3, rotation_rate=0) == ("ok", [])
    assert verdict(command_timeouts=3, rotation_rate=None)[0] == "watch"


def test_nvme_spare_at_its_threshold_is_ok_below_it_failing():
    assert verdict(available_spare=10, available_spare_threshold=10) == ("ok", [])
    assert verdict(available_spare=9, available_spare_threshold=10) == (
        "failing",
        [("failing", "NVMe spare 9 % below its 10 % threshold", "nvme-spare")],
    )
    assert verdict(available_spare=0, available_spare_threshold=None) == ("ok", [])


def test_nvme_critical_warning_bits():
    spare_bit = ("failing", "NVMe critical warning: available spare capacity below its threshold", "nvme-critical")
    assert verdict(critical_warning=1) == ("failing", [spare_bit])
    # Bit 0 with the spare already below its threshold: said once, as nvme-spare.
    assert [r[2] for r in verdict(critical_warning=1, available_spare=5, available_spare_threshold=10)[1]] == [
        "nvme-spare"
    ]
    assert verdict(critical_warning=2) == (
        "watch",
        [("watch", "NVMe critical warning: temperature outside its thresholds", "nvme-temperature")],
    )
    assert verdict(critical_warning=4 | 8) == (
        "failing",
        [
            (
                "failing",
                "NVMe critical warning: reliability degraded by media or internal errors; "
                "media placed in read-only mode",
                "nvme-critical",
            )
        ],
    )
    assert (
        verdict(critical_warning=32)[1][0][1] == "NVMe critical warning: persistent memory region has become read-only"
    )
    assert verdict(critical_warning=2 | 16)[1] == [
        ("failing", "NVMe critical warning: volatile memory backup device failed", "nvme-critical"),
        ("watch", "NVMe critical warning: temperature outside its thresholds", "nvme-temperature"),
    ]


def test_nvme_endurance_at_99_and_100_percent():
    assert verdict(percentage_used=99) == ("ok", [])
    assert verdict(percentage_used=100) == ("watch", [("watch", "100 % of rated endurance used", "nvme-worn-out")])


def test_the_worst_reason_sets_the_verdict_in_any_order():
    assert verdict(udma_crc_errors=1, pending_sectors=1)[0] == "failing"
    assert verdict(pending_sectors=1, udma_crc_errors=1, exit_status=64)[0] == "failing"
    assert verdict(udma_crc_errors=1, exit_status=64)[0] == "watch"


def test_every_reason_names_a_rule_of_its_own_severity():
    fields = dict(
        passed=False,
        exit_status=255,
        pending_sectors=1,
        offline_uncorrectable=1,
        reallocated_sectors=1,
        reported_uncorrect=1,
        command_timeouts=1,
        udma_crc_errors=1,
        last_self_test_passed=False,
        critical_warning=63,
        percentage_used=100,
        media_errors=1,
        grown_defects=1,
        scsi_uncorrected_errors=1,
        available_spare=1,
        available_spare_threshold=10,
    )
    for reason in judge(reading(**fields)).reasons:
        assert RULES[reason.rule].severity == reason.severity, reason


@pytest.mark.parametrize(
    "fields, bits, basis",
    [
        (dict(protocol="NVMe"), RATE_SSD, "NVMe drive: 1 in 10^16 bits (data sheets say 10^16 to 10^17)"),
        (dict(protocol="ATA", rotation_rate=0), RATE_SSD, "solid-state drive (rotation rate 0): 1 in 10^16 bits"),
        (
            dict(protocol="SCSI", rotation_rate=10_000),
            RATE_ENTERPRISE_HDD,
            "SAS/SCSI hard drive: enterprise class, 1 in 10^15 bits",
        ),
        (
            dict(protocol="ATA", rotation_rate=7200, model_family="Seagate Exos 7E8"),
            RATE_ENTERPRISE_HDD,
            "enterprise hard drive (Seagate Exos 7E8): 1 in 10^15 bits",
        ),
        (
            dict(protocol="ATA", rotation_rate=None, model_family="Western Digital RE4"),
            RATE_ENTERPRISE_HDD,
            "enterprise hard drive (Western Digital RE4): 1 in 10^15 bits",
        ),
        (
            dict(protocol="ATA", rotation_rate=5400, model_family="Western Digital Red"),
            RATE_CONSUMER_HDD,
            "consumer hard drive (Western Digital Red): 1 in 10^14 bits",
        ),
        (
            dict(protocol="ATA", rotation_rate=None, model_family="Western Digital Red"),
            RATE_CONSUMER_HDD,
            "assumed 1 in 10^14 bits (drive class unknown; the consumer hard drive rate)",
        ),
        (
            dict(protocol="ATA", rotation_rate=7200),
            RATE_CONSUMER_HDD,
            "assumed 1 in 10^14 bits (drive class unknown; the consumer hard drive rate)",
        ),
    ],
)
def test_error_rate_classes(fields, bits, basis):
    health = SmartHealth("sda", 0.0, "read", **fields)
    assert error_rate(health) == (bits, basis)
    judged = judge(health)
    assert (judged.unrecoverable_error_bits, judged.unrecoverable_error_basis) == (bits, basis)


def test_rates_are_the_data_sheet_figures():
    assert (RATE_CONSUMER_HDD, RATE_ENTERPRISE_HDD, RATE_SSD) == (10**14, 10**15, 10**16)
