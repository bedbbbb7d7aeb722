"""Argument types for every numeric option of every raidtop command.

Each factory returns an argparse ``type=`` callable that accepts only a finite
value inside stated bounds and otherwise raises ``ArgumentTypeError`` with one
sentence, so ``--interval inf``, ``--interval nan``, ``--port 99999`` or a
100,000-digit number end as a one-line usage error (exit 2) before any command
runs, never as an OverflowError, a busy loop or a traceback.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from raidtop.model.frozen import frozen_dataclass
from raidtop.config import Config
from raidtop.model.md_events import EVENT_KINDS
from raidtop.model.units import parse_duration

if TYPE_CHECKING:  # read only when --replay is given
    from raidtop.collect.recording.read import Recording

MAX_NUMBER_CHARS = 32
"""Longer option values are refused before any conversion (int() has a digit limit)."""

_INTEGER = re.compile(r"[0-9]+", re.ASCII)


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one line: ``raidtop: <what> (see raidtop --help)``."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def _short(text: str) -> str:
    # The value is echoed back: a huge or control-laden argument must stay one short line.
    from raidtop.untrusted import plain

    shown = plain(text)
    return repr(shown if len(shown) <= MAX_NUMBER_CHARS else shown[:MAX_NUMBER_CHARS] + "…")


def _number(text: str, pattern: re.Pattern[str], what: str) -> str:
    stripped = str(text).strip()
    if len(stripped) > MAX_NUMBER_CHARS or not pattern.fullmatch(stripped):
        raise argparse.ArgumentTypeError(f"{what}, not {_short(text)}")
    return stripped


def seconds(minimum: float, maximum: float) -> Callable[[str], float]:
    """Finite seconds in ``[minimum, maximum]`` (``0.5``, ``30``, ``5s``, ``2m``, ``1h``, ``1d``).

    Parsed by :func:`raidtop.model.units.parse_duration`, the replay's jump's
    own grammar; no ``inf``, ``nan`` or exponents.
    """
    what = f"expected seconds from {minimum:g} to {maximum:g} (or with a unit: 5s, 2m, 1h, 1d)"

    def parse(text: str) -> float:
        value = parse_duration(str(text))
        if value is None or not minimum <= value <= maximum:
            raise argparse.ArgumentTypeError(f"{what}, not {_short(text)}")
        return value

    parse.__name__ = "seconds"  # argparse names the type in some messages
    return parse


def recording(text: str) -> Path:
    """A recording's file, or ``builtin:NAME`` for one raidtop ships (:mod:`raidtop.demo.bundled`)."""
    from raidtop.demo.bundled import bundled_recording

    try:
        bundled = bundled_recording(str(text))
    except KeyError as exc:
        raise argparse.ArgumentTypeError(str(exc.args[0])) from None
    return bundled if bundled is not None else Path(text)


RECORDING_HELP = "a file made with `raidtop record` or R, or builtin:rebuild (a real kernel's raid5 rebuild, shipped)"


def integer(minimum: int, maximum: int, what: str = "a whole number") -> Callable[[str], int]:
    """A whole number in ``[minimum, maximum]``; its digits are bounded before ``int()``."""
    sentence = f"expected {what} from {minimum} to {maximum}"

    def parse(text: str) -> int:
        value = int(_number(text, _INTEGER, sentence))
        if not minimum <= value <= maximum:
            raise argparse.ArgumentTypeError(f"{sentence}, not {_short(text)}")
        return value

    parse.__name__ = "integer"
    return parse


def size(rules: Callable[[], tuple[Callable[[str], int], int, int]], example: str) -> Callable[[str], str]:
    """A size in range; ``rules()`` gives (the command's own size parser, minimum, maximum bytes).

    The rules are loaded on first use, so building the parser imports no
    action module. Returns the text unchanged (each command reads it in its
    own syntax); it only gets through once it is a finite size in range.
    """

    def parse(text: str) -> str:
        parse_size, minimum, maximum = rules()
        sentence = f"expected a size from {_binary(minimum)} to {_binary(maximum)} (e.g. {example})"
        stripped = str(text).strip()
        if len(stripped) > MAX_NUMBER_CHARS:
            raise argparse.ArgumentTypeError(f"{sentence}, not {_short(text)}")
        try:
            value = parse_size(stripped)
        except (ValueError, OverflowError):
            raise argparse.ArgumentTypeError(f"{sentence}, not {_short(text)}") from None
        if not minimum <= value <= maximum:
            raise argparse.ArgumentTypeError(f"{sentence}, not {_short(text)}")
        return stripped

    parse.__name__ = "size"
    return parse


def _fio_size_rules() -> tuple[Callable[[str], int], int, int]:
    from raidtop.actions.fio.guards import parse_size

    return parse_size, 4096, 1 << 50


def _lab_disk_rules() -> tuple[Callable[[str], int], int, int]:
    from raidtop.actions.lab.spec import MAX_DISK_BYTES, MIN_DISK_BYTES, parse_size

    return parse_size, MIN_DISK_BYTES, MAX_DISK_BYTES


def _binary(size_bytes: int) -> str:
    for unit, factor in (("P", 1 << 50), ("T", 1 << 40), ("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if size_bytes >= factor and size_bytes % factor == 0:
            return f"{size_bytes // factor}{unit}"
    return f"{size_bytes} bytes"


def whole_or_word(word: str, minimum: int, maximum: int, what: str) -> Callable[[str], str]:
    """A whole number in range, or exactly ``word``; returned as text (``"500"``, ``"system"``)."""
    number = integer(minimum, maximum, what)

    def parse(text: str) -> str:
        stripped = str(text).strip().lower()
        if stripped == word:
            return word
        try:
            return str(number(stripped))
        except argparse.ArgumentTypeError as exc:
            raise argparse.ArgumentTypeError(f"{exc} (or {word!r})") from None

    parse.__name__ = "whole_or_word"
    return parse


# The bounds every command shares, so `raidtop --interval` and `raidtop record
# --interval` accept exactly the same values.
INTERVAL = seconds(0.05, 3600)
"""Seconds between samples: 50 ms (tests) to an hour."""
DURATION = seconds(0.05, 366 * 86400)
"""How long to keep going: up to a year (time.sleep overflows far beyond)."""
TIMEOUT = seconds(0.1, 7 * 86400)
"""How long to wait for md: up to a week."""
PORT = integer(1, 65535, "a TCP port")
SMART_INTERVAL = seconds(0, 7 * 86400)
"""Seconds between two smartctl calls for one disk: 0 turns SMART off, up to a week."""
FIO_RUNTIME = integer(1, 86400, "seconds per pass")
"""fio's --runtime: up to a day per pass."""
RUNS = integer(1, 1000, "a number of passes")
DISKS = integer(1, 64, "a number of disks")
CHUNK_KIB = integer(4, 1 << 20, "a chunk size in KiB")
FIO_SIZE = size(_fio_size_rules, "1G")
"""fio's --size for a test file (a bare number is bytes, as fio reads it)."""
LAB_DISK_SIZE = size(_lab_disk_rules, "64M")
"""Each lab disk (a bare number is MiB)."""
SPEED_LIMIT = whole_or_word("system", 1, 2**31 - 1, "a speed in KiB/s")
"""md's sync_speed_* are C ints; 'system' follows /proc/sys/dev/raid."""


# ---------------------------------------------------------------- the dashboard's options


@frozen_dataclass
class ConfigOption:
    """One option of the ``raidtop`` dashboard, the :class:`~raidtop.config.Config` field it sets.

    An option with a ``type`` takes a value; one without is a switch that sets
    its field to the opposite of the field's default (``--no-bell``: bell=False).
    The default is always the Config's own.
    """

    flag: str
    field: str
    help: str
    type: Callable[[str], Any] | None = None
    metavar: str | None = None

    def add_to(self, parser: argparse.ArgumentParser) -> None:
        """Declare the option on ``parser``; its value lands in ``args.<field>``."""
        default = _CONFIG_DEFAULTS[self.field]
        if self.type is None:
            action = "store_false" if default else "store_true"
            parser.add_argument(self.flag, dest=self.field, action=action, default=default, help=self.help)
        else:
            parser.add_argument(
                self.flag, dest=self.field, type=self.type, default=default, metavar=self.metavar, help=self.help
            )

    def argv(self, value: Any) -> list[str]:
        """The arguments that give the field ``value`` (none when it is the default or unset)."""
        if self.type is None:
            return [self.flag] if value != _CONFIG_DEFAULTS[self.field] else []
        return [] if value is None else [self.flag, str(value)]


_CONFIG_DEFAULTS = {f.name: f.default for f in fields(Config)}
THEMES_HELP = (
    "theme name (built-in: raidtop-dark, raidtop-light, raidtop-high-contrast, raidtop-16color;"
    " or a file in ~/.config/raidtop/themes/)"
)
DASHBOARD_OPTIONS = (
    ConfigOption("--root", "root", "read /proc and /sys under DIR instead of / (fixtures, recordings)", Path),
    ConfigOption("--interval", "interval", "seconds between samples (default 1)", INTERVAL, "S"),
    ConfigOption("--theme", "theme", THEMES_HELP, str),
    ConfigOption(
        "--no-bell",
        "bell",
        # From the event table, so the help names every event that rings (md's and SMART's).
        "do not ring the bell on " + ", ".join(name for name, kind in EVENT_KINDS.items() if kind.bell),
    ),
    ConfigOption(
        "--demo", "demo", "classroom demo: a simulated array to fail, remove and add disks on (no root, no md)"
    ),
    ConfigOption(
        "--demo-recording",
        "demo_recording",
        "with --demo: also play the md6 rebuild recorded on a real kernel, once (its disk fails 2 s in)",
    ),
    ConfigOption(
        "--present",
        "present",
        "with --demo: presenter mode for a projector: only the simulated array, a line saying what md just did"
        " and why, one key per step (P toggles it)",
    ),
    ConfigOption(
        "--smart-interval",
        "smart_interval",
        "ask smartctl about each disk at most every S seconds (default 600; 0 = off)",
        SMART_INTERVAL,
        "S",
    ),
    ConfigOption("--replay", "replay", "replay a recording: " + RECORDING_HELP, recording, "FILE"),
)
"""Every option that sets the dashboard's Config: declared here, read back by :func:`dashboard_config`,
written again by :func:`dashboard_argv` (``--web`` starts each visitor's raidtop with them)."""


def add_dashboard_options(parser: argparse.ArgumentParser, fields: tuple[str, ...] | None = None) -> None:
    """Declare the :data:`DASHBOARD_OPTIONS` setting ``fields`` (all of them by default) on ``parser``."""
    for option in DASHBOARD_OPTIONS:
        if fields is None or option.field in fields:
            option.add_to(parser)


def dashboard_config(args: argparse.Namespace, **overrides: Any) -> Config:
    """The Config the parsed options describe (``overrides`` win: the theme chosen for the terminal).

    Options a command does not take (``raidtop watch`` has no ``--demo``) keep the Config's defaults.
    """
    values = {option.field: getattr(args, option.field) for option in DASHBOARD_OPTIONS if hasattr(args, option.field)}
    return Config(**{**values, **overrides})


def dashboard_argv(config: Config) -> list[str]:
    """``config`` as ``raidtop`` arguments again: every option it was given survives the round trip."""
    return [word for option in DASHBOARD_OPTIONS for word in option.argv(getattr(config, option.field))]


def read_inputs(args: argparse.Namespace) -> tuple[bool, Recording | None]:
    """Check ``--root`` is a directory and read ``--replay``'s recording once (the app is handed it).

    Returns whether to go on (``False``: the reason is said on stderr; exit 2) and the recording, if any.
    """
    if not args.root.is_dir():
        print(f"raidtop: --root {args.root}: not a directory", file=sys.stderr)
        return False, None
    if args.replay is None:
        return True, None
    from raidtop.collect.recording.roots import RecordingError, read_recording

    try:
        return True, read_recording(args.replay)
    except RecordingError as exc:
        print(f"raidtop: {exc}", file=sys.stderr)
        return False, None
