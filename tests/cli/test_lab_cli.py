"""``raidtop lab`` on a machine that cannot run the lab, and its argument checks."""

from __future__ import annotations

from pathlib import Path

import pytest

from raidtop.cli import lab as lab_cli


@pytest.fixture(autouse=True)
def private_xdg(monkeypatch, tmp_path: Path):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("RAIDTOP_LAB_DIR", raising=False)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = lab_cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_an_empty_lab_lists_nothing_and_tears_down_nothing(capsys, tmp_path: Path):
    code, out, _ = run(capsys, "--lab-dir", str(tmp_path / "lab"), "list")
    assert code == 0 and f"the lab has nothing (lab directory {tmp_path / 'lab'})" in out
    code, out, _ = run(capsys, "--lab-dir", str(tmp_path / "lab"), "teardown")
    assert code == 0 and out.strip() == "the lab had nothing to tear down"


def test_bad_arguments_exit_2_with_the_reason(capsys, tmp_path: Path):
    lab_dir = str(tmp_path / "lab")
    code, _, err = run(capsys, "--lab-dir", lab_dir, "create", "--level", "7", "--disks", "2")
    assert code == 2 and "not 7" in err
    code, _, err = run(capsys, "--lab-dir", lab_dir, "create", "--level", "5", "--disks", "2")
    assert code == 2 and "raid5 in the lab takes 3 to 16 disks, not 2" in err
    code, _, err = run(capsys, "--lab-dir", lab_dir, "study", "--levels", "0,9")
    assert code == 2 and "not 9" in err
    code, _, err = run(capsys, "--lab-dir", lab_dir, "speed", "md100", "fast")
    assert code == 2 and "KiB/s" in err
    assert lab_cli.main([]) == 2


def test_acting_on_an_array_the_lab_did_not_make_is_refused(capsys, tmp_path: Path):
    code, _, err = run(capsys, "--lab-dir", str(tmp_path / "lab"), "fail", "md0", "sda")
    assert code == 1 and "fail refused: md0 was not created by raidtop's lab" in err


@pytest.mark.skipif(Path("/proc/mdstat").exists(), reason="this host has md")
def test_create_on_this_host_says_md_is_missing(capsys, tmp_path: Path):
    code, _, err = run(
        capsys, "--lab-dir", str(tmp_path / "lab"), "create", "--level", "1", "--disks", "2", "--size", "16M"
    )
    assert code == 3 and "has no md driver" in err
    assert not (tmp_path / "lab").exists()  # nothing was made
    code, out, _ = run(capsys, "--lab-dir", str(tmp_path / "lab"), "doctor")
    assert code == 3 and "has no md driver" in out


def test_lab_registers_as_a_subcommand():
    import argparse

    parser = argparse.ArgumentParser(prog="raidtop")
    lab_cli.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(
        ["lab", "--lab-dir", "/x", "study", "--levels", "0,1,5", "--runtime", "2", "--csv", "t.csv"]
    )
    assert (args.lab_command, args.levels, args.runtime, args.csv, args.lab_dir) == (
        "study",
        "0,1,5",
        2,
        Path("t.csv"),
        Path("/x"),
    )
