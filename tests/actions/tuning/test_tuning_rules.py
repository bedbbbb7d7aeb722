"""udev rules and sysctl.d snippets for the changes made, checked against udev(7) and sysctl.d(5)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from raidtop.actions.action_log import ActionLog
from raidtop.actions.tuning import TuningSession
from raidtop.actions.tuning.rules import (
    Setting,
    device_match,
    save_question,
    save_text,
    settings_from_knobs,
    sysctl_conf,
    udev_rules,
    under_etc,
)

from tests.actions.tuning.test_tuning_validation import tuning_root

# ---------------------------------------------------------------- udev(7), independently of raidtop

# "Match keys" and "Assignment keys" as udev(7) lists them (systemd 252).
MATCH_ONLY = {
    "ACTION",
    "DEVPATH",
    "KERNEL",
    "KERNELS",
    "SUBSYSTEM",
    "SUBSYSTEMS",
    "DRIVER",
    "DRIVERS",
    "ATTRS",
    "CONST",
    "TAGS",
    "TEST",
    "PROGRAM",
    "RESULT",
}
ASSIGN_ONLY = {"OWNER", "GROUP", "MODE", "SECLABEL", "RUN", "LABEL", "GOTO", "IMPORT", "OPTIONS"}
BOTH = {"NAME", "SYMLINK", "ATTR", "SYSCTL", "ENV", "TAG"}
NEEDS_BRACES = {"ATTR", "ATTRS", "SYSCTL", "ENV", "CONST", "SECLABEL", "IMPORT"}
PAIR = re.compile(r'\s*(?P<key>[A-Z]+)(?:\{(?P<arg>[^{}"\s]+)\})?(?P<op>==|!=|\+=|-=|:=|=)"(?P<value>[^"\n]*)"\s*')


def check_udev_line(line: str) -> list[tuple[str, str | None, str, str]]:
    """Parse one rule the way udev(7) describes it; raise AssertionError on a syntax error.

    A rule is comma-separated KEY[{arg}]OP"value" pairs; match keys take == or
    !=, assignment keys =, +=, -= or :=; a rule that assigns nothing does nothing.
    """
    pairs = []
    pos = 0
    while pos < len(line):
        match = PAIR.match(line, pos)
        assert match, f"syntax error at column {pos}: {line[pos : pos + 30]!r}"
        key, arg, op, value = match.group("key", "arg", "op", "value")
        assert key in MATCH_ONLY | ASSIGN_ONLY | BOTH, f"unknown key {key}"
        assert (arg is not None) == (key in NEEDS_BRACES), f"{key} braces"
        matching = op in ("==", "!=")
        assert not (matching and key in ASSIGN_ONLY), f"{key} cannot be matched"
        assert not (not matching and key in MATCH_ONLY), f"{key} cannot be assigned"
        pairs.append((key, arg, op, value))
        pos = match.end()
        if pos < len(line):
            assert line[pos] == ",", f"expected a comma at column {pos}"
            pos += 1
    assert any(op not in ("==", "!=") for _k, _a, op, _v in pairs), "a rule without an assignment does nothing"
    return pairs


def check_udev_file(text: str) -> list[list[tuple[str, str | None, str, str]]]:
    """Every rule of a rules file (comments and blank lines skipped)."""
    rules = []
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        assert not line.endswith("\\"), "line continuations are not generated"
        rules.append(check_udev_line(line))
    return rules


def test_the_checker_rejects_what_udev_rejects():
    """The oracle itself: so a passing rules file means something."""
    check_udev_line('ACTION=="add", KERNEL=="sda", ATTR{queue/scheduler}="none"')
    for bad in (
        'KERNEL="sda", ATTR{queue/scheduler}="none"',  # KERNEL assigned
        'ACTION=="add" ATTR{queue/scheduler}="none"',  # missing comma
        'ACTION=="add", ATTR{queue/scheduler}=none',  # unquoted value
        'ACTION=="add", ATTR="none"',  # ATTR without {file}
        'ACTION=="add", KERNEL=="sda"',
    ):  # nothing assigned
        with pytest.raises(AssertionError):
            check_udev_line(bad)


# ---------------------------------------------------------------- generation


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tuning_root(tmp_path)
    # What a live system adds: the device number and udev's database entry.
    (root / "sys" / "block" / "sda" / "dev").write_text("8:0\n")
    db = root / "run" / "udev" / "data"
    db.mkdir(parents=True)
    (db / "b8:0").write_text(
        "S:disk/by-id/ata-WDC_WD40EFRX-68N32N0_WD-WCC7K0000000\n"
        "E:ID_SERIAL=WDC_WD40EFRX-68N32N0_WD-WCC7K0000000\n"
        "E:ID_SERIAL_SHORT=WD-WCC7K0000000\n"
    )
    loop = root / "sys" / "block" / "loop7" / "queue"
    loop.mkdir(parents=True)
    (loop / "scheduler").write_text("[none] mq-deadline\n")
    (root / "sys" / "block" / "loop7" / "dev").write_text("7:7\n")
    return root


SETTINGS = [
    Setting("sda", "read_ahead_kb", "4096"),
    Setting("sda", "nr_requests", "256"),
    Setting("sda", "scheduler", "mq-deadline"),
    Setting("sda", "write_cache", "write through"),
    Setting("md6", "stripe_cache_size", "8192"),
    Setting("md6", "sync_speed_max", "system"),
    Setting("loop7", "scheduler", "none"),
    Setting("raid", "speed_limit_max", "500000"),
    Setting("raid", "speed_limit_min", "50000"),
]


def test_udev_rules_follow_udev7_and_match_stable_names(root):
    text = udev_rules(SETTINGS, root, now=0, host="testhost")
    rules = check_udev_file(text)
    assert len(rules) == 3
    by_key = [{(k, a): (op, v) for k, a, op, v in rule} for rule in rules]
    sda, md6, loop7 = by_key
    for rule in by_key:
        assert rule[("ACTION", None)] == ("==", "add|change")
        assert rule[("SUBSYSTEM", None)] == ("==", "block")
    # The disk by its serial from udev's database, not by a name that can move.
    assert sda[("ENV", "ID_SERIAL")] == ("==", "WDC_WD40EFRX-68N32N0_WD-WCC7K0000000")
    assert sda[("ENV", "DEVTYPE")] == ("==", "disk")
    assert ("KERNEL", None) not in sda
    assert sda[("ATTR", "queue/scheduler")] == ("=", "mq-deadline")
    assert sda[("ATTR", "queue/read_ahead_kb")] == ("=", "4096")
    assert sda[("ATTR", "queue/write_cache")] == ("=", "write through")
    # The array by its UUID (md0 may come back as md127).
    assert md6[("ATTR", "md/uuid")] == ("==", "5f529b25-6efd-46e4-99a2-31f6f597be6b")
    assert md6[("ATTR", "md/stripe_cache_size")] == ("=", "8192")
    assert md6[("ATTR", "md/sync_speed_max")] == ("=", "system")
    # No serial: the kernel name, with a comment that says it may change.
    assert loop7[("KERNEL", None)] == ("==", "loop7")
    assert "# loop7 (by kernel name: no serial known, the name can change between boots)" in text


def test_the_scheduler_is_set_before_nr_requests(root):
    line = next(ln for ln in udev_rules(SETTINGS, root, now=0, host="h").splitlines() if "ID_SERIAL" in ln)
    assignments = [a for k, a, op, _v in check_udev_line(line) if op == "="]
    # Switching the scheduler resets nr_requests, so the order on the line matters.
    assert assignments.index("queue/scheduler") < assignments.index("queue/nr_requests")


def test_global_limits_go_to_sysctl_not_udev(root):
    rules = udev_rules(SETTINGS, root, now=0, host="h")
    assert "speed_limit" not in rules
    conf = sysctl_conf(SETTINGS, now=0, host="h")
    # sysctl.d(5): "key = value" lines; "#" and ";" start comments.
    pairs = {}
    for line in conf.splitlines():
        if not line.strip() or line.lstrip()[0] in "#;":
            continue
        key, sep, value = line.partition("=")
        assert sep, line
        pairs[key.strip()] = value.strip()
    assert pairs == {"dev.raid.speed_limit_max": "500000", "dev.raid.speed_limit_min": "50000"}
    assert "modules-load.d" in conf


def test_nothing_changed_gives_only_comments(root):
    assert check_udev_file(udev_rules([], root, now=0, host="h")) == []
    assert all(ln.startswith("#") for ln in sysctl_conf([], now=0, host="h").splitlines())


def test_rules_from_a_session(root, tmp_path):
    session = TuningSession(root, ActionLog(tmp_path / "log"), privileged=True)
    session.set("sda", "read_ahead_kb", "8192")
    session.set("raid", "speed_limit_min", "20000")
    settings = settings_from_knobs(session.net_changes())
    assert [(s.target, s.attr, s.value) for s in settings] == [
        ("sda", "read_ahead_kb", "8192"),
        ("raid", "speed_limit_min", "20000"),
    ]
    (rule,) = check_udev_file(udev_rules(settings, root, now=0, host="h"))
    assert ("ATTR", "queue/read_ahead_kb", "=", "8192") in rule
    assert "dev.raid.speed_limit_min = 20000" in sysctl_conf(settings, now=0, host="h")


def test_device_match_falls_back_to_the_kernel_name_for_unsafe_serials(root):
    (root / "run" / "udev" / "data" / "b8:0").write_text('E:ID_SERIAL=odd"serial\n')
    match, comment = device_match(root, "sda")
    assert match == 'SUBSYSTEM=="block", KERNEL=="sda"' and "name can change" in comment


@pytest.mark.skipif(shutil.which("udevadm") is None, reason="udevadm is not installed")
def test_udevadm_verify_accepts_the_rules(root, tmp_path):
    probe = subprocess.run(["udevadm", "verify", "--help"], capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip("udevadm verify needs systemd 254 or later")
    path = tmp_path / "70-raidtop-tuning.rules"
    path.write_text(udev_rules(SETTINGS, root, now=0, host="h"))
    result = subprocess.run(["udevadm", "verify", str(path)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


# ---------------------------------------------------------------- saving


def test_save_writes_a_new_file(tmp_path):
    target = tmp_path / "out" / "70-raidtop-tuning.rules"
    result = save_text(target, "# rules\n")
    assert result.ok and target.read_text() == "# rules\n"
    assert oct(target.stat().st_mode & 0o777) == "0o644"


def test_an_existing_file_needs_confirmation(tmp_path):
    target = tmp_path / "rules"
    target.write_text("old\n")
    assert "exists and will be replaced" in save_question(target)
    refused = save_text(target, "new\n")
    assert not refused.ok and target.read_text() == "old\n"
    assert save_text(target, "new\n", confirmed=True).ok and target.read_text() == "new\n"


def test_etc_is_never_written_without_confirmation(tmp_path):
    never = Path("/etc/raidtop-test-never-written/70-raidtop-tuning.rules")
    result = save_text(never, "# rules\n")
    assert not result.ok and "is under /etc" in result.message
    assert not never.parent.exists()
    # A symlink into /etc is /etc too.
    link = tmp_path / "sneaky"
    os.symlink("/etc", link)
    assert under_etc(link / "udev" / "rules.d" / "x.rules")
    assert "under /etc" in save_question(link / "x.rules")


def test_a_failed_save_is_reported(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    result = save_text(blocker / "rules", "x")
    assert not result.ok and "could not write" in result.message
