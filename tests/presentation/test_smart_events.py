"""SmartWarning: raised when a disk's verdict worsens, derived once in the sampler, ringing the bell like Fail."""

from __future__ import annotations

import shutil
from pathlib import Path

from raidtop.collect.sampler import Sampler
from raidtop.presentation.judgement import judged_sampler
from raidtop.collect.source import Root
from raidtop.presentation.smart_events import smart_warnings
from raidtop.presentation.md_announcements import announcements
from raidtop.model.md import MdArray, MdMember
from raidtop.model.smart import SmartHealth, SmartReason

MDSTAT = Path(__file__).resolve().parents[1] / "data" / "md" / "mdstat"


def reading(disk: str, verdict: str, serial: str | None = "S1", state: str = "read") -> SmartHealth:
    reasons = (SmartReason(verdict, "8 pending sectors", "test"),) if verdict in ("watch", "failing") else ()
    return SmartHealth(disk, 0.0, state, verdict, reasons, serial=serial)


def warned(before: str | None, after: str, **kwargs) -> list[str]:
    known = {} if before is None else {"sda": ("S1", before)}
    events, _ = smart_warnings(known, {"sda": reading("sda", after, **kwargs)}, {}, (), 1.0)
    return [e.detail for e in events]


def test_worse_verdicts_warn():
    assert warned("ok", "watch") == ["ok → watch: 8 pending sectors"]
    assert warned("watch", "failing") == ["watch → failing: 8 pending sectors"]
    assert warned("ok", "failing") == ["ok → failing: 8 pending sectors"]


def test_better_same_or_unknown_verdicts_do_not_warn():
    assert warned("failing", "ok") == []
    assert warned("watch", "watch") == []
    assert warned(None, "ok") == []  # unknown -> ok: a first healthy reading is no news
    assert warned("watch", "unknown", state="standby") == []


def test_a_first_reading_that_is_already_bad_warns():
    assert warned(None, "watch") == ["watch: 8 pending sectors"]


def test_an_unknown_reading_does_not_make_the_next_one_look_new():
    known = {"sda": ("S1", "watch")}
    _, known = smart_warnings(known, {"sda": reading("sda", "unknown", state="standby")}, {}, (), 1.0)
    events, _ = smart_warnings(known, {"sda": reading("sda", "watch")}, {}, (), 2.0)
    assert events == []


def test_another_drive_under_the_same_name_starts_afresh():
    events, _ = smart_warnings({"sda": ("OLD", "watch")}, {"sda": reading("sda", "watch", serial="NEW")}, {}, (), 1.0)
    assert [e.detail for e in events] == ["watch: 8 pending sectors"]


def test_the_event_names_the_array_the_disk_serves():
    md0 = MdArray("md0", "raid1", "clean", "ok", members=(MdMember("sdb1", 0, ("in_sync",)),))
    md1 = MdArray("md1", "raid1", "clean", "ok", members=(MdMember("sdb2", 0, ("in_sync",)),))
    disk_of = {"sdb1": ("sdb",), "sdb2": ("sdb",)}
    (event,), _ = smart_warnings({"sdb": ("S1", "ok")}, {"sdb": reading("sdb", "watch")}, disk_of, (md1, md0), 5.0)
    assert (event.array, event.event, event.member, event.time) == ("md0", "SmartWarning", "sdb", 5.0)
    assert event.detail.endswith("(also in md1)")


def mdstat_root(tmp_path: Path) -> Path:
    """pymdstat's mdstat.03: md0 raid5 [4/3] on sda1, sdb1, sdd1."""
    (tmp_path / "proc").mkdir()
    shutil.copy(MDSTAT / "nicolargo-pymdstat__mdstat.03", tmp_path / "proc" / "mdstat")
    return tmp_path


def test_the_sampler_derives_smart_warning_and_the_rebuild_risk_and_the_bell_rings(tmp_path):
    verdicts = {"sdb": "ok"}

    class AnsweringRoot(Root):
        """A root that knows its disks' SMART, as a recording or the demo does."""

        def smart_answers(self, results):
            return {d: reading(d, v) for d, v in verdicts.items()}

        def smart_disk_of(self):
            return {"sda1": ("sda",), "sdb1": ("sdb",), "sdd1": ("sdd",)}

    sampler = judged_sampler(AnsweringRoot(mdstat_root(tmp_path)), clock=lambda: 1_700_000_000.0)
    first = sampler.sample()
    assert [e.event for e in first.events if e.event == "SmartWarning"] == [] and first.rebuild_risks == ()
    verdicts["sdb"] = "watch"
    second = sampler.sample()
    warnings = [e for e in second.events if e.event == "SmartWarning"]
    assert [(e.array, e.member) for e in warnings] == [("md0", "sdb")]
    assert [(r.array, [s.disk for s in r.survivors]) for r in second.rebuild_risks] == [("md0", ["sdb"])]
    said, ring = announcements(second, first.degraded_alerts)
    assert ring
    (note,) = [a for a in said if "SmartWarning" in a.title]
    assert note.title == "sdb: SmartWarning (md0)" and note.severity == "warning"
    assert note.text == "disk sdb health worsened — ok → watch: 8 pending sectors"
    third = sampler.sample()
    assert not [e for e in third.events if e.event == "SmartWarning"]  # said once, not every sample
    # The readers alone read; they do not judge: no SmartWarning, no rebuild risk.
    verdicts["sdb"] = "ok"
    (tmp_path / "plain").mkdir()
    reader = Sampler(AnsweringRoot(mdstat_root(tmp_path / "plain")), clock=lambda: 1_700_000_000.0)
    reader.sample()
    verdicts["sdb"] = "watch"
    unjudged = reader.sample()
    assert not [e for e in unjudged.events if e.event == "SmartWarning"] and unjudged.rebuild_risks == ()
