"""The tests mirror the source tree: a newcomer finds raidtop/collect/md/'s tests in tests/collect/md/.

Only the tiers that need a particular machine keep folders of their own, named
for what they need rather than for a room of the package.
"""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parent
PACKAGE = TESTS.parent / "raidtop"
TIERS = {
    "live": "root and loop devices on this host",
    "realmd": "a qemu VM with a real md kernel",
    "install": "a wheel built and installed into a fresh venv",
    "mutation": "the mutation tester, run by hand",
}
NOT_TESTS = {"data", "__snapshots__", "__pycache__"}


def _test_folders() -> list[Path]:
    found = []
    for folder in sorted(p for p in TESTS.rglob("*") if p.is_dir()):
        parts = folder.relative_to(TESTS).parts
        if parts[0] in TIERS or NOT_TESTS & set(parts) or any(part.startswith(".") for part in parts):
            continue
        # A folder git no longer tracks may linger holding only __pycache__: it holds no tests.
        if any("__pycache__" not in p.relative_to(folder).parts for p in folder.rglob("*.py")):
            found.append(folder)
    return found


def test_every_test_folder_is_named_for_a_room_of_the_package():
    strays = []
    for folder in _test_folders():
        room = PACKAGE / folder.relative_to(TESTS)
        # A folder mirrors a package, or a module whose tests need helpers of their own (cli/web.py).
        if not room.is_dir() and not room.with_suffix(".py").is_file():
            strays.append(str(folder.relative_to(TESTS.parent)))
    assert not strays, f"test folders that name no room of raidtop/ (move their tests beside the code's): {strays}"


def test_every_test_folder_is_a_package_so_module_names_stay_unique():
    missing = [str(f.relative_to(TESTS.parent)) for f in _test_folders() if not (f / "__init__.py").is_file()]
    assert not missing, f"test folders without __init__.py: {missing}"


def test_the_layout_check_sees_the_folders_it_judges():
    # Guards the two tests above against passing because they looked at nothing.
    seen = {str(f.relative_to(TESTS)) for f in _test_folders()}
    assert {"collect/md", "screens/lab", "fleet", "exporter"} <= seen
    assert not seen & set(TIERS)
