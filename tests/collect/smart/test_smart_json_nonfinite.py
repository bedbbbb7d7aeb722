"""smartctl JSON with NaN or Infinity in a log field (json.loads accepts both): not a count, no crash.

Found by the hypothesis test in test_smart_json.py during a mutation run
(ValueError: cannot convert float NaN to integer, from the NVMe/SCSI log rows).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from raidtop.collect.smart.parse import parse_smartctl

CORPUS = sorted((Path(__file__).resolve().parents[2] / "data" / "smartctl" / "corpus").glob("*.json"))


@pytest.mark.parametrize("bad", ["NaN", "Infinity", "-Infinity"])
def test_a_non_finite_log_value_is_left_out(bad):
    sample = next(p for p in CORPUS if "nvme_smart_health_information_log" in p.read_text())
    doc = json.loads(sample.read_text())
    doc["nvme_smart_health_information_log"]["media_errors"] = float(bad)
    health = parse_smartctl(json.loads(json.dumps(doc)), "nvme0n1", 0.0)
    assert "media_errors" not in {a.name for a in health.attributes}
    assert health.media_errors is None
