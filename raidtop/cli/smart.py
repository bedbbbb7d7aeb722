"""``raidtop smart``: each disk's SMART verdict and its reasons, from smartctl or saved JSON.

``raidtop smart [DEV...]`` asks smartctl about the named devices (kernel
names or /dev paths; a partition, dm or md device stands for the whole disks
under it), or about every whole disk when none is named.
``raidtop smart --from-json FILE...`` judges saved ``smartctl --json`` output
(what a user pastes from another machine) by the same rules; a file that is
not smartctl JSON is a one-line error and the others are still judged.

Exit status: 3 when any disk is failing; otherwise 1 when a file was bad or
smartctl could not be asked (not root, not installed, a device not found);
otherwise 0 (ok, watch, standby and unsupported disks alike: ``watch`` is
shown, not an error). 2 for a usage error.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from raidtop.cli import options

EXIT_FAILING = 3


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``smart`` subcommand."""
    smart = subparsers.add_parser("smart", help="each disk's SMART verdict (ok / watch / failing) and why")
    smart.add_argument(
        "devices", nargs="*", metavar="DEV", help="kernel names or /dev paths (default: every whole disk)"
    )
    smart.add_argument(
        "--from-json",
        nargs="+",
        metavar="FILE",
        default=None,
        help="judge saved `smartctl --json --xall` output instead of asking smartctl",
    )
    smart.add_argument("--json", action="store_true", help="print JSON: {\"disks\": [...], \"errors\": [...]}")
    smart.add_argument(
        "--timeout",
        type=options.TIMEOUT,
        default=20.0,
        metavar="S",
        help="seconds smartctl may take per disk (default 20)",
    )
    smart.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Judge the disks or files and print the verdicts; see the module docstring for the exit status."""
    if args.from_json is not None and args.devices:
        print("raidtop: smart: name devices or --from-json files, not both", file=sys.stderr)
        return 2
    files: list[str] | None = None
    if args.from_json is not None:
        judged, errors = judge_files(args.from_json)
        files, healths = [file for file, _ in judged], [health for _, health in judged]
    else:
        found = _disks_named(args.devices)
        if isinstance(found, str):
            print(f"raidtop: smart: {found}", file=sys.stderr)
            return 2
        healths, errors = read_disks(found, args.timeout)
    try:
        if args.json:
            _print_json(healths, errors, files)
        else:
            _print_text(healths, errors, files)
    except BrokenPipeError:
        sys.stderr.close()
    if any(h.verdict == "failing" for h in healths):
        return EXIT_FAILING
    if errors or any(h.state in ("not_root", "no_smartctl", "error") for h in healths):
        return 1
    return 0


def judge_files(paths: list[str]) -> tuple[list[tuple[str, Any]], list[dict[str, str]]]:
    """Judge each saved smartctl JSON file; ((file shown, judged disk) per good file, one error per bad file)."""
    from raidtop.collect.smart.parse import is_smartctl_document, parse_smartctl
    from raidtop.safeio import read_bounded
    from raidtop.presentation.smart_rules import judge
    from raidtop.untrusted import plain

    healths, errors = [], []
    for path in paths:
        try:
            data = read_bounded(path)
        except OSError as exc:
            errors.append(
                {"file": plain(path), "error": plain(getattr(exc, "reason", None) or exc.strerror or str(exc))}
            )
            continue
        try:
            doc = json.loads(data.decode("utf-8", "replace"))
        except (ValueError, RecursionError):
            errors.append({"file": plain(path), "error": "not JSON"})
            continue
        if not is_smartctl_document(doc):
            errors.append({"file": plain(path), "error": "not smartctl JSON output (no \"smartctl\" object)"})
            continue
        device = doc.get("device") if isinstance(doc.get("device"), dict) else {}
        name: str = device["name"] if isinstance(device.get("name"), str) else ""
        disk = plain(os.path.basename(name) or os.path.basename(path))[:64]
        mtime = _mtime(path)
        healths.append((plain(path), judge(parse_smartctl(doc, disk, mtime))))
    return healths, errors


def read_disks(disks: list[str], timeout: float) -> tuple[list, list[dict[str, str]]]:
    """Ask smartctl about each whole disk in turn."""
    from raidtop.collect.smart.smartctl import read_disk
    from raidtop.collect.source import Root
    from raidtop.presentation.smart_rules import judge

    root = Root("/")
    return [read_disk(root, disk, timeout=timeout, judge=judge) for disk in disks], []


def _disks_named(devices: list[str]) -> list[str] | str:
    """The whole disks behind ``devices`` (every physical disk when empty), or why not."""
    from raidtop.collect.source import Root, SourceError
    from raidtop.collect.whole_disk import is_physical_disk, valid_name, whole_disks
    from raidtop.untrusted import plain

    root = Root("/")
    if not devices:
        try:
            names = root.listdir("/sys/block")
        except SourceError as exc:
            return str(exc)
        return [n.replace("!", "/") for n in names if is_physical_disk(root, n)]
    disks: list[str] = []
    for given in devices:
        name = given[len("/dev/") :] if given.startswith("/dev/") else given
        sys_name = name.replace("/", "!")
        if not valid_name(sys_name) or not root.exists(f"/sys/class/block/{sys_name}"):
            return f"{plain(given)}: no such block device"
        under = whole_disks(root, name)
        if not under:
            return f"{plain(given)}: no physical disk under it (loop, zram and ram devices have no SMART)"
        disks.extend(d for d in under if d not in disks)
    return disks


def _mtime(path: str) -> float:
    try:
        return os.stat(path).st_mtime
    except OSError:
        return 0.0


def _print_json(healths: list, errors: list[dict[str, str]], files: list[str] | None = None) -> None:
    from raidtop.output.snapshot_json import smart_json

    disks = [smart_json(h) for h in healths]
    if files is not None:  # several files often hold the same disk name (sdb): say which file each came from
        disks = [{"file": file, **disk} for file, disk in zip(files, disks)]
    json.dump({"disks": disks, "errors": errors}, sys.stdout, indent=1)
    sys.stdout.write("\n")
    sys.stdout.flush()


def _print_text(healths: list, errors: list[dict[str, str]], files: list[str] | None = None) -> None:
    from raidtop.untrusted import plain

    notes_said: set[str] = set()
    for index, h in enumerate(healths):
        if h.state in ("not_root", "no_smartctl"):
            if h.message not in notes_said:
                print(f"raidtop: {h.message}", file=sys.stderr)
                notes_said.add(h.message or "")
            continue
        # Saved files from many machines all say "sdb": each line names its file first.
        print((f"{files[index]}: " if files is not None else "") + _headline(h))
        for line in _details(h):
            print(f"    {plain(line)}")
    for error in errors:
        print(f"raidtop: {error['file']}: {error['error']}", file=sys.stderr)
    sys.stdout.flush()


def _headline(h: Any) -> str:
    from raidtop.untrusted import plain

    what = " ".join(plain(part) for part in (h.model, f"serial {h.serial}" if h.serial else None) if part)
    if h.state != "read":
        return f"{plain(h.disk)}: {h.state} ({plain(h.message or '')})"
    return f"{plain(h.disk)}: {h.verdict.upper()}" + (f"  {what}" if what else "")


def _details(h: Any) -> list[str]:
    if h.state != "read":
        return []
    lines = [f"{r.severity}: {r.text} [{r.rule}]" for r in h.reasons]
    facts = []
    if h.temperature_c is not None:
        facts.append(f"{h.temperature_c:g} °C")
    if h.power_on_hours is not None:
        facts.append(f"{h.power_on_hours} h powered on")
    if h.last_self_test:
        facts.append(f"last self-test: {h.last_self_test}")
    if facts:
        lines.append(", ".join(facts))
    if h.unrecoverable_error_basis:
        lines.append(f"rated read errors: {h.unrecoverable_error_basis}")
    return lines
