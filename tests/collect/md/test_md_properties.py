"""Hypothesis: corrupted real samples never make the md readers raise.

Corruptions are what copies suffer: truncation, lost or doubled lines,
swapped characters, inserted garbage, lost indentation. The readers must
return well-formed, partial results, and say so in a note where the damage
is detectable.
"""

from __future__ import annotations

import atexit
import json
import re
import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from raidtop.collect.md.read import read_md
from raidtop.output.md_json import array_to_json
from raidtop.collect.md.mdstat import parse_mdstat
from raidtop.model.md import HEALTHS, SYNC_ACTIONS, MdArray

DATA = Path(__file__).resolve().parents[2] / "data" / "md"
SAMPLES = {p.name: p.read_text() for p in sorted((DATA / "mdstat").iterdir())}
NAMES = sorted(SAMPLES)
PROFILE = settings(max_examples=60, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])

# Characters that cannot form any mdstat field: no digits, brackets, ':' or '='.
UNUSED_LINE = re.compile(r"^\s*unused\s+devices\s*:")
GARBAGE = st.text(
    alphabet=st.sampled_from("abcdefghijklmnopqrstuvwxyzXYZ!#$%&*+,-./;<>?@^_`{|}~"), min_size=1, max_size=30
)


def check_well_formed(arrays: list[MdArray], notes: list[str]) -> None:
    """What every result must satisfy, however damaged the input."""
    assert all(isinstance(n, str) and n for n in notes)
    for array in arrays:
        assert isinstance(array.name, str) and array.name
        assert array.health in HEALTHS
        for value in (array.raid_disks, array.degraded, array.size_kib, array.chunk_kib):
            assert value is None or (isinstance(value, int) and value >= 0)
        if array.sync is not None:
            assert array.sync.action in SYNC_ACTIONS
            assert array.sync.percent is None or 0 <= array.sync.percent <= 100
        for member in array.members:
            assert member.name and isinstance(member.roles, tuple)
        json.dumps(array_to_json(array))


def parse_json(text: str):
    arrays, notes = parse_mdstat(text)
    return [array_to_json(a) for a in arrays], notes


@st.composite
def corrupted(draw):
    """A real sample with one to three random corruptions applied."""
    name = draw(st.sampled_from(NAMES))
    text = SAMPLES[name]
    for _ in range(draw(st.integers(1, 3))):
        lines = text.split("\n")
        kind = draw(st.sampled_from(["truncate", "delete", "duplicate", "swap", "garbage", "dedent"]))
        if kind == "truncate":
            text = text[: draw(st.integers(0, len(text)))]
        elif kind == "delete" and lines:
            del lines[draw(st.integers(0, len(lines) - 1))]
            text = "\n".join(lines)
        elif kind == "duplicate" and lines:
            i = draw(st.integers(0, len(lines) - 1))
            lines.insert(i, lines[i])
            text = "\n".join(lines)
        elif kind == "swap" and len(text) > 1:
            i = draw(st.integers(0, len(text) - 2))
            text = text[:i] + text[i + 1] + text[i] + text[i + 2 :]
        elif kind == "garbage":
            lines.insert(draw(st.integers(0, len(lines))), draw(GARBAGE))
            text = "\n".join(lines)
        else:
            text = "\n".join(line.lstrip() for line in lines)
    return name, text


@PROFILE
@given(corrupted())
def test_corrupted_mdstat_never_raises(case):
    _name, text = case
    check_well_formed(*parse_mdstat(text))


@PROFILE
@given(st.sampled_from(NAMES), st.data())
def test_truncated_mdstat_is_partial_with_a_note(name, data):
    text = SAMPLES[name]
    cut = data.draw(st.integers(0, len(text.rstrip()) - 1)) if text.strip() else 0
    arrays, notes = parse_json(text[:cut])
    check_well_formed(*parse_mdstat(text[:cut]))
    if text[:cut].strip() and not UNUSED_LINE.match(text[:cut].rsplit("\n", 1)[-1]):
        # Whatever was cut, the "unused devices" line went with it (unless
        # the cut fell inside that line, which still reads as one).
        assert notes
    original = {a["name"] for a in parse_json(text)[0]}
    assert {a["name"] for a in arrays} <= original


@PROFILE
@given(st.sampled_from(NAMES), st.data())
def test_inserted_garbage_line_is_noted(name, data):
    lines = SAMPLES[name].split("\n")
    lines.insert(data.draw(st.integers(0, len(lines))), data.draw(GARBAGE))
    arrays, notes = parse_json("\n".join(lines))
    original, original_notes = parse_json(SAMPLES[name])
    assert len(notes) > len(original_notes)
    assert [a["name"] for a in arrays] == [a["name"] for a in original]


@settings(max_examples=len(NAMES), deadline=None, database=None)
@given(st.sampled_from(NAMES))
def test_lost_indentation_changes_nothing(name):
    dedented = "\n".join(line.lstrip() for line in SAMPLES[name].split("\n"))
    assert parse_json(dedented)[0] == parse_json(SAMPLES[name])[0]


# ---------------------------------------------------------------- sysfs trees

TREE = DATA / "roots" / "prometheus-procfs"
TREE_FILES = sorted(str(p.relative_to(TREE)) for p in TREE.rglob("*") if p.is_file() and not p.is_symlink())
NUMERIC = {"raid_disks", "degraded", "chunk_size", "errors", "slot"}
# Read for every array; sync_completed is read only while a sync runs.
ALWAYS_READ = {
    "level",
    "array_state",
    "raid_disks",
    "degraded",
    "chunk_size",
    "metadata_version",
    "uuid",
    "sync_action",
}


@st.composite
def sysfs_damage(draw):
    victims = draw(st.lists(st.sampled_from(TREE_FILES), min_size=1, max_size=4, unique=True))
    damage = [
        (v, draw(st.sampled_from(["garbage", "truncate", "delete", "directory", "empty"])), draw(GARBAGE))
        for v in victims
    ]
    return damage


# One copy of the tree for the whole module: copying per example is slow on
# some filesystems, so each example damages files in place and restores them.
_SCRATCH = Path(tempfile.mkdtemp(prefix="raidtop-md-"))
atexit.register(shutil.rmtree, _SCRATCH, ignore_errors=True)
SCRATCH_ROOT = _SCRATCH / "root"
shutil.copytree(TREE, SCRATCH_ROOT, symlinks=True)


@PROFILE
@given(sysfs_damage())
def test_corrupted_sysfs_tree_never_raises(damage):
    saved = {rel: (SCRATCH_ROOT / rel).read_bytes() for rel, _kind, _garbage in damage}
    try:
        for rel, kind, garbage in damage:
            path = SCRATCH_ROOT / rel
            if kind == "garbage":
                path.write_text(garbage + "\n")
            elif kind == "truncate":
                path.write_bytes(saved[rel][: len(saved[rel]) // 2])
            elif kind == "empty":
                path.write_text("")
            else:
                path.unlink()
                if kind == "directory":
                    path.mkdir()
        reading = read_md(SCRATCH_ROOT)
    finally:
        for rel, content in saved.items():
            path = SCRATCH_ROOT / rel
            if path.is_dir():
                path.rmdir()
            path.write_bytes(content)
    check_well_formed(list(reading.arrays), list(reading.notes))
    for rel, kind, _garbage in damage:
        attribute = Path(rel).name
        if attribute in NUMERIC and kind == "garbage" and rel.startswith("sys/"):
            # A number turned into letters is reported, never guessed.
            assert any(attribute in note for note in reading.notes), (rel, reading.notes)
        if kind == "directory" and attribute in ALWAYS_READ and "/dev-" not in rel:
            assert any(rel.split("/md/", 1)[-1] in note for note in reading.notes), (rel, reading.notes)
