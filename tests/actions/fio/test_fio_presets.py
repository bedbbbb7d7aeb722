"""Built-in presets and the user's presets.toml (override, extend, survive mistakes)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from raidtop.actions.fio.presets import (
    BUILTIN_PRESETS,
    DEFAULT_RUNTIME_S,
    load_presets,
    next_runtime,
    parse_presets_toml,
    presets_path,
)


def test_builtins_are_the_jobs_the_issue_names():
    by_name = {p.name: p for p in BUILTIN_PRESETS}
    assert list(by_name) == ["seq-read", "seq-write", "rand-read", "rand-write", "rand-rw", "certification"]
    for name in ("seq-read", "seq-write"):
        assert (by_name[name].bs, by_name[name].iodepth, by_name[name].numjobs) == ("1M", 32, 4)
    for name in ("rand-read", "rand-write"):
        assert (by_name[name].bs, by_name[name].iodepth, by_name[name].numjobs) == ("4k", 32, 4)
    rw = by_name["rand-rw"]
    assert (rw.rw, rw.rwmixread, rw.bs, rw.ioengine, rw.direct, rw.numjobs) == ("randrw", 50, "4k", "libaio", True, 4)
    cert = by_name["certification"]
    assert (cert.rw, cert.bs, cert.iodepth, cert.numjobs, cert.runtime_s) == ("randwrite", "4M", 64, 4, 30)
    assert [p.writes for p in BUILTIN_PRESETS] == [False, True, False, True, True, True]


def test_default_runtime_is_short_and_a_preset_runtime_wins():
    presets = load_presets(Path("/nonexistent/presets.toml"))
    assert presets.problems == ()
    assert DEFAULT_RUNTIME_S == 15
    assert presets.runtime_of(presets.get("rand-read")) == 15
    assert presets.runtime_of(presets.get("certification")) == 30
    assert presets.runtime_of(presets.get("certification"), override=2) == 2


def test_the_screens_default_runtime_leaves_a_presets_own_runtime_alone():
    # `u` on the Benchmarks screen is a default: certification keeps its 30 s, as the pop-up says.
    presets = load_presets(Path("/nonexistent/presets.toml"))
    assert presets.runtime_of(presets.get("certification"), default=5) == 30
    assert presets.runtime_of(presets.get("rand-read"), default=5) == 5


def test_the_file_lives_in_the_xdg_config_dir(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert presets_path() == tmp_path / "raidtop" / "presets.toml"
    (tmp_path / "raidtop").mkdir()
    presets_path().write_text("runtime = 7\n")
    assert load_presets().default_runtime_s == 7


def test_a_file_can_change_a_builtin_and_add_a_preset():
    text = """
runtime = 20
size = "256M"

[preset.rand-read]
iodepth = 64

[preset.oltp-8k]
description = "8K 70/30 random mix"
rw = "randrw"
rwmixread = 70
bs = "8k"
iodepth = 16
numjobs = 2
options = { norandommap = true, randrepeat = 0 }
"""
    presets = parse_presets_toml(text)
    assert presets.problems == ()
    rand_read = presets.get("rand-read")
    assert (rand_read.iodepth, rand_read.bs, rand_read.numjobs) == (64, "4k", 4)
    assert rand_read.origin == "built-in, changed in presets.toml"
    oltp = presets.get("oltp-8k")
    assert presets.names[-1] == "oltp-8k"
    assert (oltp.rw, oltp.rwmixread, oltp.bs, oltp.iodepth, oltp.numjobs, oltp.ioengine) == (
        "randrw",
        70,
        "8k",
        16,
        2,
        "libaio",
    )
    assert oltp.options == (("norandommap", "1"), ("randrepeat", "0"))
    assert presets.runtime_of(oltp) == 20 and presets.size_of(oltp) == "256M"


def test_a_file_that_does_not_parse_keeps_the_builtins_and_says_where():
    presets = parse_presets_toml("[preset.rand-read\niodepth = 64\n", Path("/home/u/.config/raidtop/presets.toml"))
    assert presets.presets == BUILTIN_PRESETS
    assert len(presets.problems) == 1
    assert "/home/u/.config/raidtop/presets.toml" in presets.problems[0]
    assert "line 1" in presets.problems[0] and "built-in presets" in presets.problems[0]


def test_one_bad_preset_is_skipped_and_named_while_the_rest_apply():
    text = """
[preset.rand-read]
iodepth = "deep"

[preset.seq-read]
numjobs = 8

[preset.half]
rw = "randread"

[preset.sneaky]
rw = "read"
bs = "4k"
iodepth = 1
numjobs = 1
options = { output-format = "normal" }

[preset.typo]
rw = "randred"
bs = "4k"
iodepth = 1
numjobs = 1
"""
    presets = parse_presets_toml(text)
    assert presets.get("rand-read").iodepth == 32  # the built-in kept
    assert presets.get("seq-read").numjobs == 8
    assert presets.get("half") is None and presets.get("sneaky") is None and presets.get("typo") is None
    problems = "\n".join(presets.problems)
    assert "'rand-read': iodepth must be int" in problems and "kept the built-in" in problems
    assert "'half': a new preset needs bs, iodepth, numjobs" in problems
    assert "'sneaky': option 'output-format' is not allowed" in problems
    assert "'typo': rw must be one of" in problems
    assert len(presets.problems) == 4


def test_wrong_top_level_values_are_reported_and_defaults_kept():
    presets = parse_presets_toml('runtime = -3\nsize = "lots"\ncolour = "blue"\n')
    assert presets.default_runtime_s == DEFAULT_RUNTIME_S
    assert presets.default_size == "1G"
    assert len(presets.problems) == 3


def test_runtime_steps_cycle():
    assert next_runtime(15) == 30
    assert next_runtime(120) == 5
    assert next_runtime(5, -1) == 120
    assert next_runtime(7) == 10


def test_deeply_nested_toml_is_a_problem_not_a_recursion_error(tmp_path: Path):
    path = tmp_path / "presets.toml"
    path.write_text("x = " + "[" * 100_000 + "]" * 100_000 + "\n")
    loaded = load_presets(path)
    assert loaded.presets == BUILTIN_PRESETS
    assert loaded.problems == (f"{path}: nested too deeply to be a presets file; using the built-in presets",)


def test_a_fifo_as_presets_file_is_refused_without_hanging(tmp_path: Path):
    path = tmp_path / "presets.toml"
    os.mkfifo(path)
    loaded = load_presets(path)
    assert loaded.presets == BUILTIN_PRESETS
    assert loaded.problems == (
        f"{path}: cannot be read (is a FIFO, not a regular file; not read); using the built-in presets",
    )


@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        ("numjobs = 100000", "numjobs must be from 1 to 64, not 100000"),
        ("iodepth = 4097", "iodepth must be from 1 to 1024, not 4097"),
        ("runtime = 1000000", "runtime must be from 1 to 86400, not 1000000"),
        ('options = { numjobs = "1000" }', "option 'numjobs' is not allowed"),
        ('options = { exec_prerun = "rm -rf /" }', "option 'exec_prerun' is not allowed"),
        ('options = { thread = "0" }', "option 'thread' is not allowed"),
    ],
)
def test_job_limits_cannot_be_dodged(spec: str, problem: str):
    loaded = parse_presets_toml(f"[preset.rand-read]\n{spec}\n")
    assert loaded.get("rand-read").origin == "built-in"
    assert len(loaded.problems) == 1 and problem in loaded.problems[0]
