"""md tuning knobs on real arrays (issue 5): speed limits change the observed sync speed."""

from __future__ import annotations

import json

from .guest_python import raidtop_python, reach_interpreter_script


def test_speed_limits_and_stripe_cache_on_real_md(guest):
    python = raidtop_python()
    script = reach_interpreter_script(python) + f"{python} -m tests.realmd.guest_tuning_md\n"
    result = guest(script, timeout=240)
    assert result.returncode == 0, result.describe_failure()
    data = json.loads((result.results_dir / "tuning.json").read_text())
    slow, fast = data["phases"]
    assert slow["status"] == fast["status"] == "ok"
    assert slow["readback"].startswith("1000") and fast["readback"].startswith("20000")
    # md throttles to the limit: at 1000 KiB/s the resync crawls; raising the
    # limit lets it run several times faster (TCG caps the absolute speed).
    assert slow["rate_kib_s"] is not None and slow["rate_kib_s"] <= 1000 * 1.6
    assert fast["rate_kib_s"] is not None and fast["rate_kib_s"] > 2 * slow["rate_kib_s"]
    print(json.dumps(data["phases"]))
    assert data["back_to_system"]["status"] == "ok" and "system" in data["back_to_system"]["readback"]
    assert data["stripe"] == {"status": "ok", "readback": "4096", "sysfs": "4096"}
    assert data["stripe_too_small"]["status"] == "refused"
    assert data["log_lines"] >= 4  # every write is in the change log
