"""smartctl JSON -> SmartHealth -> verdict, against real smartctl outputs (tests/data/smartctl).

Expected values are read by hand from each file (the numbers in the
assertions are the file's own), never from the parser.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from raidtop.collect.smart.parse import (
    bit_meanings,
    EXIT_BITS,
    health_from_dict,
    is_smartctl_document,
    messages,
    parse_smartctl,
    raw_count,
)
from raidtop.collect.smart.smartctl import health_from_output
from raidtop.presentation.smart_rules import RULES, judge
from raidtop.untrusted import has_controls

DATA = Path(__file__).resolve().parents[2] / "data" / "smartctl"
CORPUS = sorted((DATA / "corpus").glob("*.json"))
DERIVED = sorted((DATA / "derived").glob("*.json"))


def health(name: str, disk: str = "sdx"):
    path = DATA / "corpus" / name if (DATA / "corpus" / name).exists() else DATA / "derived" / name
    return judge(parse_smartctl(json.loads(path.read_text()), disk, 1000.0))


def test_the_whole_corpus_is_here() -> None:
    assert len(CORPUS) == 131


@pytest.mark.parametrize("path", CORPUS + DERIVED, ids=lambda p: p.name)
def test_every_file_parses_and_is_judged(path: Path) -> None:
    doc = json.loads(path.read_text())
    h = judge(parse_smartctl(doc, "sdx", 1.0))
    assert h.state == "read"
    assert h.verdict in ("ok", "watch", "failing")
    assert all(r.rule in RULES and r.severity == RULES[r.rule].severity for r in h.reasons)
    assert h.unrecoverable_error_bits in (1e14, 1e15, 1e16) and h.unrecoverable_error_basis
    if doc["device"]["protocol"] == "ATA":
        assert h.attributes and all(a.id > 0 for a in h.attributes)
    assert h.temperature_c is not None  # every corpus drive reports one


def test_sata_ok() -> None:
    h = health("WDC_WD20EFRX-68EUZN0_17.json")
    assert (h.verdict, h.reasons, h.passed, h.protocol) == ("ok", (), True, "ATA")
    assert h.pending_sectors == 0 and h.reallocated_sectors == 0 and h.udma_crc_errors == 0
    assert h.model == "WDC WD20EFRX-68EUZN0"


def test_sata_with_reallocated_sectors_and_packed_raw_values() -> None:
    h = health("ST3500418AS_12.json")
    assert h.reallocated_sectors == 304
    assert h.verdict == "failing" and [r.text for r in h.reasons] == ["304 reallocated sectors"]
    assert h.power_on_hours == 44668 and h.temperature_c == 33
    few = health("ST3500418AS_11.json")
    assert few.verdict == "watch" and {r.rule for r in few.reasons} == {"ata-reallocated", "ata-command-timeout"}
    # Seagate packs three 16-bit counters into 188: raw.value 8590065666 is "2 2 2".
    seagate = health("sat-Seagate_Enterprise_Capacity_3.5_HDD-ST2000NM0008-2F3100-sdl.json")
    assert seagate.command_timeouts == 2
    assert [a.raw_value for a in seagate.attributes if a.id == 188] == [8590065666]
    # Temperature from 194's raw string "24 (Min/Max 18/36)" (raw.value 154620002328).
    hitachi = health("sat-null-Hitachi_HUA722010CLA630-sda.json")
    assert hitachi.temperature_c == 24


def test_sata_failing_smart_status_pending_and_self_test() -> None:
    h = health("sata-failing-ST3500418AS.json")
    assert h.passed is False and h.verdict == "failing"
    texts = [r.text for r in h.reasons]
    assert "8 pending sectors" in texts and "8 offline uncorrectable sectors" in texts
    assert "last self-test failed at LBA 123456" in texts
    assert "SMART overall-health self-assessment: FAILED" in texts
    assert h.exit_meanings == (EXIT_BITS[3], EXIT_BITS[4], EXIT_BITS[7])
    assert h.last_self_test == "Completed: read failure" and h.self_test_failed_lba == 123456


def test_sas_with_grown_defects_and_uncorrected_errors() -> None:
    h = health("SEAGATE_ST373453LC_26.json")
    assert h.protocol == "SCSI" and h.grown_defects == 260 and h.scsi_uncorrected_errors == 1 + 535
    assert h.verdict == "watch"
    assert h.pending_sectors is None and h.percentage_used is None  # not reported: unknown, never 0
    assert h.unrecoverable_error_bits == 1e15
    assert any(a.name == "grown_defect_list" and a.raw_value == 260 for a in h.attributes)


def test_nvme_ok() -> None:
    h = health("nvme-null-INTEL_SSDPE2KX010T8-nvme1.json")
    assert (h.verdict, h.protocol, h.percentage_used, h.critical_warning) == ("ok", "NVMe", 73, 0)
    assert h.available_spare == 99 and h.available_spare_threshold == 10 and h.media_errors == 0
    assert h.unsafe_shutdowns == 7 and h.power_on_hours == 8843
    assert h.reallocated_sectors is None and h.pending_sectors is None
    assert h.unrecoverable_error_bits == 1e16
    assert {a.name for a in h.attributes} >= {"percentage_used", "unsafe_shutdowns"} and all(
        a.id == 0 for a in h.attributes
    )


def test_nvme_spare_below_threshold_and_critical_warning() -> None:
    h = health("nvme-critical-INTEL_SSDPE2KX010T8.json")
    assert h.verdict == "failing"
    texts = [r.text for r in h.reasons]
    assert "NVMe spare 5 % below its 10 % threshold" in texts
    assert "NVMe critical warning: reliability degraded by media or internal errors" in texts
    assert "103 % of rated endurance used" in texts and "3 NVMe media errors" in texts
    assert "last self-test failed at LBA 987654" in texts
    assert h.critical_warning_meanings[0].startswith("available spare")


def test_megaraid_disk() -> None:
    h = health("megaraid-HGST_HUS726040ALA614.json")
    assert h.pending_sectors == 2 and h.verdict == "failing"
    assert h.unrecoverable_error_bits == 1e15  # family "HGST Ultrastar 7K6000": enterprise


def test_errors_in_messages_are_kept_plain() -> None:
    doc = json.loads((DATA / "derived" / "messages-KINGSTON_SA400M8120G.json").read_text())
    said = messages(doc)
    assert len(said) == 2 and not any(has_controls(m) for m in said)
    h = judge(parse_smartctl(doc, "sda", 0.0))
    assert h.exit_status == 4 and h.exit_meanings == (EXIT_BITS[2],)
    assert not has_controls(h.model) and "SA400M8120G" in h.model
    assert h.verdict == "ok"  # a failed command is not a health verdict


def test_the_reader_reads_and_the_judge_it_is_handed_judges() -> None:
    out = (DATA / "derived" / "sata-failing-ST3500418AS.json").read_bytes()
    read = health_from_output("sda", 1.0, out)  # the reader alone: no verdict, no reasons
    assert (read.state, read.verdict, read.reasons) == ("read", "unknown", ())
    judged = health_from_output("sda", 1.0, out, judge)
    assert judged == judge(read) and judged.verdict == "failing" and judged.reasons


def test_the_real_smartctl_output_of_a_virtio_disk_is_unsupported() -> None:
    h = health_from_output("vda", 1.0, (DATA / "real-vda-virtio.json").read_bytes())
    assert h.state == "unsupported" and "Unable to detect device type" in h.message and h.verdict == "unknown"


def test_standby_is_not_read() -> None:
    out = json.dumps(
        {
            "smartctl": {"exit_status": 2, "messages": [{"string": "Device is in STANDBY mode, exit(2)"}]},
            "device": {"name": "/dev/sda", "protocol": "ATA"},
        }
    )
    h = health_from_output("sda", 1.0, out.encode())
    assert (h.state, h.message, h.verdict) == ("standby", "standby, not read", "unknown")


def test_raw_count() -> None:
    assert raw_count({"value": 8590065666, "string": "2 2 2"}) == 2
    assert raw_count({"value": 154620002328, "string": "24 (Min/Max 18/36)"}) == 24
    assert raw_count({"value": 7, "string": "0x0007"}) == 7  # leading "0" is not 7: the value stands
    assert raw_count({"value": 12}) == 12
    assert raw_count({"string": "5"}) == 5
    assert raw_count({}) is None and raw_count("junk") is None


def test_bits_in_words() -> None:
    assert bit_meanings(64, EXIT_BITS) == ("the device error log contains records of errors",)
    assert bit_meanings(None, EXIT_BITS) == () and bit_meanings(0, EXIT_BITS) == ()
    assert bit_meanings(1 << 9, EXIT_BITS) == ("bit 9",)


def test_a_reading_survives_the_dict_round_trip_of_a_recording() -> None:
    from dataclasses import asdict

    for name in (
        "sata-failing-ST3500418AS.json",
        "nvme-critical-INTEL_SSDPE2KX010T8.json",
        "SEAGATE_ST373453LC_26.json",
    ):
        h = health(name, disk="sdb")
        assert health_from_dict(json.loads(json.dumps(asdict(h))), "sdb") == h
    assert health_from_dict({"state": "hacked"}, "sdb") is None
    assert health_from_dict("junk", "sdb") is None
    mixed = health_from_dict(
        {
            "state": "read",
            "verdict": "ok",
            "model": "\x1b[2Jx",
            "pending_sectors": "8",
            "reasons": [{"severity": "watch", "text": 5, "rule": "x"}, "junk"],
        },
        "sdb",
    )
    assert mixed is not None and mixed.pending_sectors is None and not has_controls(mixed.model) and mixed.reasons == ()


# ------------------------------------------------------------------ hypothesis

_BASES = [
    json.loads(p.read_text())
    for p in (
        DATA / "corpus" / "ST3500418AS_12.json",
        DATA / "corpus" / "SEAGATE_ST373453LC_26.json",
        DATA / "corpus" / "nvme-null-INTEL_SSDPE2KX010T8-nvme1.json",
        DATA / "derived" / "sata-failing-ST3500418AS.json",
    )
]
_JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(),
    st.text(alphabet=st.characters(codec="utf-8"), max_size=30),
    st.just("\x1b]0;x\x07\x9b2J"),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
)


def _paths(doc, prefix=()):
    if isinstance(doc, dict):
        for key, value in doc.items():
            yield prefix + (key,)
            yield from _paths(value, prefix + (key,))
    elif isinstance(doc, list):
        for index, value in enumerate(doc[:6]):
            yield prefix + (index,)
            yield from _paths(value, prefix + (index,))


@st.composite
def mutated(draw):
    doc = copy.deepcopy(draw(st.sampled_from(_BASES)))
    paths = list(_paths(doc))
    for _ in range(draw(st.integers(1, 8))):
        path = draw(st.sampled_from(paths))
        parent = doc
        try:
            for step in path[:-1]:
                parent = parent[step]
            if draw(st.booleans()) and isinstance(parent, dict):
                parent.pop(path[-1], None)
            else:
                parent[path[-1]] = draw(_JUNK)
        except (KeyError, IndexError, TypeError):
            continue
    return doc


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_mutated_json_never_raises_and_missing_is_never_zero(doc) -> None:
    h = judge(parse_smartctl(doc, "sdx", 1.0))
    assert h.verdict in ("ok", "watch", "failing")
    for text in (
        h.model,
        h.serial,
        h.firmware,
        h.protocol,
        h.last_self_test,
        *(r.text for r in h.reasons),
        *(a.name for a in h.attributes),
        *(a.raw_string for a in h.attributes),
    ):
        assert text is None or not has_controls(text)
    attrs = doc.get("ata_smart_attributes")
    rows = attrs.get("table") if isinstance(attrs, dict) else None
    ids = (
        {a.get("id") for a in rows if isinstance(a, dict) and type(a.get("id")) is int}
        if isinstance(rows, list)
        else set()
    )
    if 197 not in ids:
        assert h.pending_sectors is None
    nvme = doc.get("nvme_smart_health_information_log")
    if (
        not isinstance(nvme, dict)
        or not isinstance(nvme.get("media_errors"), int)
        or isinstance(nvme.get("media_errors"), bool)
    ):
        assert h.media_errors is None
    if not isinstance(doc.get("scsi_grown_defect_list"), int) or isinstance(doc.get("scsi_grown_defect_list"), bool):
        assert h.grown_defects is None


@settings(max_examples=200, deadline=None)
@given(
    st.recursive(
        _JUNK,
        lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=12), inner, max_size=5)),
        max_leaves=20,
    )
)
def test_any_json_value_parses_without_an_exception(value) -> None:
    h = judge(parse_smartctl(value, "sdx", 1.0))
    assert h.state == "read"
    is_smartctl_document(value)
    health_from_dict(value, "sdx")
    assert h.pending_sectors is None or isinstance(value, dict)
