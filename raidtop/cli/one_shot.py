"""What the one-shot commands (``snapshot``, ``audit``) share: their options, a judged sampler, JSON out.

Both read the system once (or twice), wait a bounded time for SMART, and
print; the sampler is the dashboard's, with the same judgement handed in
(:mod:`raidtop.presentation.judgement`).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from raidtop.cli import options

if TYPE_CHECKING:  # the readers are imported when the command runs, not when --help is built
    from raidtop.collect.sampler import Sampler
    from raidtop.collect.smart.poller import SmartPoller


def add_sampling_options(parser: argparse.ArgumentParser) -> None:
    """``--root`` (as for raidtop) and ``--smart-wait``."""
    parser.add_argument("--root", type=Path, default=argparse.SUPPRESS, help="as for raidtop")
    parser.add_argument(
        "--smart-wait",
        type=options.SMART_INTERVAL,
        default=30.0,
        metavar="S",
        help="wait up to S seconds for every disk's SMART reading (default 30; 0 = no SMART)",
    )


def root_refused(root: Path) -> bool:
    """True (and said on stderr) when ``--root`` is not a directory."""
    if root.is_dir():
        return False
    print(f"raidtop: --root {root}: not a directory", file=sys.stderr)
    return True


def judged_sampling(root: Path, smart_wait: float, **sampler_options: Any) -> tuple[Sampler, SmartPoller | None]:
    """The sampler for one-shot use, and its SMART poller (None when ``smart_wait`` is 0)."""
    from raidtop.presentation.judgement import judged_sampler, smart_poller

    # One SMART round per command: the interval only has to outlast the command.
    poller = smart_poller(root, 600.0 if smart_wait > 0 else 0.0)
    return judged_sampler(root, smart=poller, **sampler_options), poller


def wait_for_smart(poller: SmartPoller | None, smart_wait: float, otherwise: str) -> None:
    """Wait up to ``smart_wait`` s for every disk's SMART answer; say ``otherwise`` on stderr if some gave none."""
    if poller is not None and not poller.wait_for_all(smart_wait):
        print(f"raidtop: some disks gave no SMART answer within {smart_wait:g} s; {otherwise}", file=sys.stderr)


def print_json(document: object) -> None:
    """``document`` on stdout, indented; a reader that went away (``| head``) is normal use, not an error."""
    try:
        json.dump(document, sys.stdout, indent=1)
        sys.stdout.write("\n")
        sys.stdout.flush()
    except BrokenPipeError:
        sys.stderr.close()
