"""One unit convention (IEC: KiB, MiB/s, ``_kib_s``) in every label, header, Explain line and JSON field name.

Walks what raidtop declares rather than a list kept beside it: every table
Column anywhere in the package, the disk field table, fio's metrics and the
study's figures and CSV, the snapshot and md JSON of a sampled rebuild (the
demo over a real kernel's recording), and Explain for its disks, memory and
arrays. :func:`raidtop.model.units.non_iec` names what breaks the convention.
"""

from __future__ import annotations

import gc
import importlib
import pkgutil
from collections.abc import Iterator
from typing import Any

import pytest

import raidtop
from raidtop.actions.experiments.study_results import CSV_FIELDS, FIGURES
from raidtop.actions.fio.compare import EXPORT_COLUMNS, METRICS
from raidtop.collect.sampler import Sampler
from raidtop.demo.controller import DemoController
from raidtop.model.snapshot import Snapshot
from raidtop.model.units import non_iec
from raidtop.output.md_json import md_to_json
from raidtop.output.snapshot_json import snapshot_json
from raidtop.presentation.disk_fields import DISK_FIELDS
from raidtop.presentation.explain import explain_array, explain_disk, explain_vm
from raidtop.widgets.table_cells import Column

KERNEL_NAMES = {"read_ahead_kb", "max_sectors_kb", "max_hw_sectors_kb"}
"""sysfs's own attribute names (its kb are KiB): raidtop shows and writes them as the kernel spells them."""


def _mixed(texts: dict[str, str]) -> dict[str, list[str]]:
    found = {}
    for where, text in texts.items():
        for name in KERNEL_NAMES:
            text = text.replace(name, "")
        if mixed := non_iec(text):
            found[where] = mixed
    return found


def _declared(kind: type) -> list[Any]:
    """Every instance of ``kind`` the package declares (each module imported, so each table and key exists)."""
    for module in pkgutil.walk_packages(raidtop.__path__, "raidtop."):
        importlib.import_module(module.name)
    # An app started earlier in the run froze the collector (raidtop.app.startup_gc): frozen objects,
    # the modules' tables among them, are invisible to gc.get_objects() until unfrozen.
    gc.unfreeze()
    return [o for o in gc.get_objects() if isinstance(o, kind)]


def test_every_table_header_in_the_package():
    columns: list[Column] = _declared(Column)
    assert len(columns) > 100  # the walk found the tables (disks, arrays, members, bench, lab, fleet, …)
    assert _mixed({f"{c.key}: {c.label!r}": c.label for c in columns}) == {}


def test_every_key_description_and_tooltip():
    from textual.binding import Binding

    bindings = [b for b in _declared(Binding) if b.id]
    assert len(bindings) > 80  # every screen's keys: help and the palette show these words
    texts = {f"{b.id} description": b.description for b in bindings} | {f"{b.id} tooltip": b.tooltip for b in bindings}
    assert _mixed(texts) == {}


def test_the_disk_field_table():
    texts = {f"{key}.{part}": getattr(field, part) for key, field in DISK_FIELDS.items() for part in ("label", "unit")}
    texts |= {key: key for key in DISK_FIELDS}
    assert texts["rkib_s.label"] == "rKiB/s" and texts["rareq_sz_kib.unit"] == "KiB"
    assert _mixed(texts) == {}


def test_benchmark_and_study_figures_and_their_exports():
    texts = {f"metric {m.key}": m.key for m in METRICS} | {f"metric {m.key} label": m.label for m in METRICS}
    texts |= {f"figure {f.key}": f.key for f in FIGURES} | {f"figure {f.key} title": f.title for f in FIGURES}
    texts |= {f"export {c}": c for c in EXPORT_COLUMNS} | {f"csv {c}": c for c in CSV_FIELDS}
    assert "read MiB/s" in EXPORT_COLUMNS and "read_mib_s_mean" in CSV_FIELDS
    assert _mixed(texts) == {}


@pytest.fixture(scope="module")
def rebuilding() -> Snapshot:
    """The demo mid-way through the recorded md6 rebuild: disks, memory, arrays with a sync, processes."""
    demo = DemoController(play_recording=True)  # md6's recorded rebuild plays only when asked
    sampler = Sampler(demo.root)
    snap = sampler.sample()
    for _ in range(30):
        demo.tick()
        snap = sampler.sample()
    assert any(a.sync is not None for a in snap.arrays)
    return snap


def _keys(document: Any, path: str = "") -> Iterator[tuple[str, str]]:
    if isinstance(document, dict):
        for key, value in document.items():
            # Keys under these maps are device, unit or resource names, not field names.
            yield f"{path}.{key}", str(key)
            if path.rsplit(".", 1)[-1] not in {"smart", "smart_disk_of", "stack", "pressure"}:
                yield from _keys(value, f"{path}.{key}")
    elif isinstance(document, list):
        for item in document:
            yield from _keys(item, f"{path}[]")


def test_every_field_name_of_the_snapshot_and_md_json(rebuilding):
    names = dict(_keys(snapshot_json(rebuilding)))
    names |= dict(_keys(md_to_json(rebuilding.arrays, rebuilding.raid_speed_limit, rebuilding.events), "md"))
    assert ".disks[].rkib_s" in names and ".vm.swpd_kib" in names and ".arrays[].sync.speed_kib_s" in names
    assert _mixed(names) == {}


def test_explain_says_every_unit_the_same_way(rebuilding):
    explanations = [explain_vm(rebuilding), *(explain_disk(rebuilding, d.name) for d in rebuilding.disks[:4])]
    explanations += [explain_array(rebuilding, a.name) for a in rebuilding.arrays]
    texts: dict[str, str] = {}
    for explanation in filter(None, explanations):
        for n, line in enumerate(explanation.lines):
            for part in ("name", "formula", "numbers", "result"):
                texts[f"{explanation.title} line {n} {part}"] = str(getattr(line, part))
        texts |= {f"{explanation.title} caveat {n}": c for n, c in enumerate(explanation.caveats)}
    assert len(texts) > 100 and any("KiB" in t for t in texts.values())
    assert _mixed(texts) == {}


def test_the_walk_would_catch_a_mixed_unit():
    # The same checks fed what raidtop used to write.
    assert _mixed({"header": "rkB/s", "speed": "1000K/s", "json": "swpd_kb", "fio": "read MB/s"}) == {
        "header": ["kB/s"],
        "speed": ["0K"],
        "json": ["_kb"],
        "fio": ["MB/s"],
    }


def test_explain_results_carry_their_unit_and_no_raw_byte_counts(rebuilding):
    vm = {line.name: line.result for line in explain_vm(rebuilding).lines}
    assert vm["bi"].endswith(" KiB/s") and vm["cache"].endswith(" KiB)") and "iB (" in vm["cache"]
    for array in rebuilding.arrays:
        explanation = explain_array(rebuilding, array.name)
        results = {line.name: line.result for line in explanation.lines} if explanation else {}
        if "sync_speed" in results:
            assert results["sync_speed"].endswith(" KiB/s")
        # A long bare number (1073741824) is a count nobody reads at a glance: it comes with a unit in words.
        assert not [r for r in results.values() if r.replace(",", "").isdigit() and len(r) > 6], results
