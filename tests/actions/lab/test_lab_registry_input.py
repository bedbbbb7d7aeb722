"""The lab registry is untrusted input: bounded, never through a link, every field type-checked.

Attacks that once worked: a registry that is a FIFO hung every lab command;
one symlinked to /dev/zero was read without end; wrong-typed fields raised
TypeError in ``raidtop lab list``; a damaged registry gave a traceback in
``raidtop lab fail``. Now every ``raidtop lab`` subcommand says what is
wrong in one sentence and exits 1, and nothing else is touched: the
registry stays as it was and a sentinel image in the lab's folder survives.
"""

from __future__ import annotations

import json
import math
import os
import threading
from pathlib import Path

import pytest

from raidtop.actions.lab.document import state_from_json
from raidtop.actions.lab.registry import ImageRecord, LabRegistry, RegistryDamaged
from raidtop.cli import lab as lab_cli

GOOD_IMAGE = {
    "path": "/lab/images/md100-0.img",
    "size_bytes": 16,
    "created": 1.0,
    "array": "md100",
    "state": "attached",
    "inode": 12,
    "loop": "loop3",
}
GOOD_ARRAY = {
    "name": "md100",
    "level": "raid1",
    "raid_disks": 2,
    "disk_size_bytes": 16,
    "created": 1.0,
    "state": "active",
    "timeline": [{"time": 1.0, "kind": "created"}],
    "rebuilds": [],
}


@pytest.fixture(autouse=True)
def private_xdg(monkeypatch, tmp_path: Path):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("RAIDTOP_LAB_DIR", raising=False)


def document(image: dict | None = None, array: dict | None = None) -> dict:
    return {"version": 1, "images": [{**GOOD_IMAGE, **(image or {})}], "arrays": [{**GOOD_ARRAY, **(array or {})}]}


def wrong_types(image: dict | None = None, array: dict | None = None) -> str:
    return json.dumps(document(image, array))


# What each damaged registry is, and the words that must appear in the one sentence about it.
DAMAGE = {
    "fifo": "is a FIFO, not a regular file",
    "dev-zero-link": "is a symbolic link; raidtop does not follow it",
    "too-large": "is larger than 4,194,304 bytes",
    "not-json": "is damaged (it is not JSON)",
    "inode-string": "images[0].inode is a string, not a whole number",
    "size-string": "images[0].size_bytes is a string, not a whole number",
    "disks-list": "arrays[0].raid_disks is a list, not a whole number",
    "timeline-object": "arrays[0].timeline is not a list",
    "created-nan": "arrays[0].created is out of range",
    "loop-traversal": "images[0].loop is not a loop device name",
    "name-traversal": "arrays[0].name is not an md device name",
    "bool-inode": "images[0].inode is true or false, not a whole number",
    "escape-in-path": "images[0].path holds a control character",
    "missing-path": "images[0] has no path",
}


def plant(kind: str, registry: Path) -> None:
    """Put damaged registry ``kind`` at ``registry``."""
    registry.parent.mkdir(parents=True, exist_ok=True)
    if kind == "fifo":
        os.mkfifo(registry)
    elif kind == "dev-zero-link":
        registry.symlink_to("/dev/zero")
    elif kind == "too-large":
        registry.write_text(json.dumps({"images": [], "padding": "x" * (5 << 20)}))
    elif kind == "not-json":
        registry.write_text('{"images": [{"path": 3')
    else:
        changes = {
            "inode-string": ({"inode": "12"}, None),
            "size-string": ({"size_bytes": "16M"}, None),
            "disks-list": (None, {"raid_disks": [2]}),
            "timeline-object": (None, {"timeline": {"0": 1}}),
            "created-nan": (None, {"created": math.nan}),
            "loop-traversal": ({"loop": "../../dev/sda"}, None),
            "name-traversal": (None, {"name": "../md0"}),
            "bool-inode": ({"inode": True}, None),
            "escape-in-path": ({"path": "/lab/images/\x1b]0;owned\x07.img"}, None),
            "missing-path": None,
        }[kind]
        if changes is None:
            doc = document()
            del doc["images"][0]["path"]
            registry.write_text(json.dumps(doc))
        else:
            registry.write_text(wrong_types(*changes))


def snapshot(path: Path) -> tuple:
    st = os.lstat(path)
    content = os.readlink(path) if os.path.islink(path) else path.read_bytes() if path.is_file() else None
    return st.st_mode, st.st_ino, content


def run_in_thread(argv: list[str]) -> int:
    # A regression here used to hang for ever (a FIFO): fail the test instead of hanging the suite.
    result: list[int] = []
    worker = threading.Thread(target=lambda: result.append(lab_cli.main(argv)), daemon=True)
    worker.start()
    worker.join(60)
    assert not worker.is_alive(), f"raidtop lab {' '.join(argv)} did not finish"
    return result[0]


@pytest.mark.parametrize("kind", sorted(DAMAGE))
@pytest.mark.parametrize("command", [["list"], ["list", "--json"], ["fail", "md100", "loop3"], ["teardown"]])
def test_every_lab_command_says_what_is_wrong_with_the_registry_in_one_sentence(kind, command, tmp_path, capsys):
    lab_dir = tmp_path / "lab"
    plant(kind, lab_dir / "registry.json")
    sentinel = lab_dir / "images" / "md100-0.img"
    sentinel.parent.mkdir()
    sentinel.write_bytes(b"SENTINEL")
    before = snapshot(lab_dir / "registry.json")
    code = run_in_thread(["--lab-dir", str(lab_dir), *command])
    out, err = capsys.readouterr()
    assert code == 1
    assert err.count("\n") == 1 and err.startswith(f"raidtop lab: the lab registry {lab_dir}/registry.json ")
    assert DAMAGE[kind] in err and "\x1b" not in err and "Traceback" not in err + out
    assert snapshot(lab_dir / "registry.json") == before and sentinel.read_bytes() == b"SENTINEL"


def test_a_registry_link_is_never_written_through(tmp_path: Path):
    victim = tmp_path / "victim.json"
    victim.write_text('{"images": []}')
    registry = LabRegistry(tmp_path / "lab")
    registry.lab_dir.mkdir()
    registry.path.symlink_to(victim)
    with pytest.raises(RegistryDamaged, match="is a symbolic link"), registry.edit() as draft:
        draft.put_image(ImageRecord("/x.img", 1, 1.0))
    assert victim.read_text() == '{"images": []}' and registry.path.is_symlink()


def test_a_lock_file_link_is_never_followed(tmp_path: Path):
    registry = LabRegistry(tmp_path / "lab")
    registry.lab_dir.mkdir()
    target = tmp_path / "created-through-the-link"
    registry.lock_path.symlink_to(target)
    with pytest.raises(RegistryDamaged, match="registry.lock is a symbolic link"), registry.edit():
        pass
    assert not target.exists() and not registry.path.exists()


def test_writes_go_through_one_atomic_writer_and_stay_readable(tmp_path: Path):
    registry = LabRegistry(tmp_path / "lab")
    with registry.edit() as draft:
        draft.put_image(ImageRecord(str(registry.images_dir / "md100-0.img"), 1, 1.0, "md100", "planned"))
    assert os.stat(registry.path).st_mode & 0o777 == 0o644
    assert sorted(p.name for p in registry.lab_dir.iterdir()) == ["registry.json", "registry.lock"]
    assert registry.read().images[0].state == "planned"


def test_a_good_document_parses_and_unknown_keys_are_ignored():
    doc = document(image={"future": [1, 2]}, array={"watch": {"time": 2.0, "members": ["loop3"]}})
    doc["future_top_level"] = {"x": 1}
    state = state_from_json(doc, "/lab/images")
    assert state.images[0].inode == 12 and state.arrays[0].watch.members == ("loop3",)
    assert state.arrays[0].created == 1.0 and isinstance(state.images[0].created, float)
    assert state.image_name("/lab/images/md100-0.img") == "md100-0.img"
    assert state.image_name("/lab/images/../etc/passwd") is None and state.image_name("/etc/passwd") is None


@pytest.mark.parametrize(
    ("doc", "words"),
    [
        ([], "it is not a JSON object"),
        ({"version": 2}, "its version is not 1"),
        ({"images": {}}, "images is not a list"),
        ({"images": ["x"]}, "images[0] is not an object"),
        (document(array={"watch": {"time": "now"}}), "arrays[0].watch.time is a string, not a number"),
        (
            document(array={"rebuilds": [{"kind": "recovery", "started": 1, "finished": -5}]}),
            "arrays[0].rebuilds[0].finished is out of range",
        ),
        (document(array={"bitmap": 1}), "arrays[0].bitmap is a whole number, not true or false"),
        (document(image={"state": "melted"}), "images[0].state is not one of planned"),
        (document(image={"path": "relative.img"}), "images[0].path is not an absolute path"),
        (document(array={"created": 1e300}), "arrays[0].created is out of range"),
    ],
)
def test_every_field_is_checked(doc, words):
    with pytest.raises(ValueError) as caught:
        state_from_json(doc)
    assert words in str(caught.value)
