"""Subcommands of the ``raidtop`` command line, one module each.

Each module defines ``register(subparsers)`` (adds its parser and sets
``func`` to its runner) and a runner ``run(args) -> int`` (the exit code).
"""

from __future__ import annotations

SUBCOMMANDS = ("watch", "snapshot", "smart", "audit", "record", "tune", "bench", "lab", "exporter", "fleet")
"""Modules under raidtop.cli, in the order ``--help`` lists them."""
