"""The batch commands print no control character from what they echo back.

Run as a real process: a preset description from the user's presets.toml
carries an OSC title sequence, a CSI and an 8-bit CSI; none may reach the
terminal (or a pipe) as a control character.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

OSC_TITLE = "\x1b]0;PWNED\x07"
CSI_CLEAR = "\x1b[2J"
C1_CSI = "\x9b31m"


def run_raidtop(*argv: str, env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "raidtop", *argv], capture_output=True, env=env, timeout=60)


def hostile_env(tmp_path: Path) -> dict[str, str]:
    config = tmp_path / "config" / "raidtop"
    config.mkdir(parents=True)
    # JSON's \u escapes are TOML's too: the file holds the raw control characters once parsed.
    description = json.dumps(OSC_TITLE + CSI_CLEAR + C1_CSI + "mixed")
    (config / "presets.toml").write_text(
        f'[preset.evil]\ndescription = {description}\nrw = "randread"\nbs = "4k"\niodepth = 1\nnumjobs = 1\n'
    )
    env = dict(
        os.environ,
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        XDG_DATA_HOME=str(tmp_path / "data"),
        XDG_STATE_HOME=str(tmp_path / "state"),
        PYTHONPATH=str(Path(__file__).resolve().parents[2]),
    )
    return env


def assert_no_controls(data: bytes) -> None:
    assert b"\x1b" not in data and b"PWNED\x07" not in data
    assert "\x9b" not in data.decode("utf-8", "replace")


def test_a_preset_description_is_listed_without_its_escape_sequences(tmp_path: Path):
    result = run_raidtop("bench", "--list", env=hostile_env(tmp_path))
    assert result.returncode == 0, result.stderr
    assert b"evil" in result.stdout and b"mixed" in result.stdout
    assert_no_controls(result.stdout + result.stderr)
    assert "\ufffd]0;PWNED" in result.stdout.decode()  # shown, visibly defused


def test_progress_keeps_its_carriage_return_and_newlines():
    import io

    from raidtop.cli.plain_output import PlainOutput

    inner = io.StringIO()
    out = PlainOutput(inner)
    out.write("\r  3 s  100 IOPS\tok\n" + OSC_TITLE)
    assert inner.getvalue() == "\r  3 s  100 IOPS\tok\n\ufffd]0;PWNED\ufffd"
