"""The disk field table: one entry per DiskIO rate, units that agree with the field names, tones."""

from __future__ import annotations

from raidtop.model.snapshot import DISK_RATE_FIELDS
from raidtop.presentation.disk_fields import DISK_FIELDS
from raidtop.widgets.array_rows import MEMBER_COLUMNS
from raidtop.widgets.disks_panel import DISK_COLUMNS, SORTABLE


def test_every_rate_of_the_model_has_one_entry_in_model_order():
    assert tuple(DISK_FIELDS) == DISK_RATE_FIELDS
    assert "ever_used" not in DISK_RATE_FIELDS and "name" not in DISK_RATE_FIELDS
    assert len(DISK_RATE_FIELDS) == 22


def test_units_agree_with_the_field_names():
    for key, field in DISK_FIELDS.items():
        if key.endswith("_ms"):
            assert field.unit == "ms", key
        elif key.endswith("kib_s"):
            assert field.unit == "KiB/s", key
        elif key.endswith("_pct"):
            assert field.unit == "%", key
        elif key.endswith("_kib"):
            assert field.unit == "KiB", key
        elif key.endswith("_s"):
            assert field.unit == "/s", key


def test_tones_follow_the_thresholds():
    util, r_await, r_s = DISK_FIELDS["util_pct"], DISK_FIELDS["r_await_ms"], DISK_FIELDS["r_s"]
    assert [util.tone(v) for v in (None, 0, 59.9, 60, 89.9, 90)] == ["dim", "dim", None, "warn", "warn", "crit"]
    assert [r_await.tone(v) for v in (49, 50, 500)] == [None, "warn", "crit"]
    assert r_s.tone(1e9) is None
    assert util.level(None) is None and util.level(95) == "crit"


def test_views_take_labels_from_the_table():
    for column in DISK_COLUMNS[3:] + [c for c in MEMBER_COLUMNS if c.key in DISK_FIELDS]:
        assert column.label == DISK_FIELDS[column.key].label
    assert [c.label for c in DISK_COLUMNS[3:6]] == ["r/s", "w/s", "rKiB/s"]
    assert SORTABLE[0] == "name" and set(SORTABLE[1:]) <= set(DISK_FIELDS)
