"""Fixtures of the Benchmarks screen's tests (defined in bench_pilot.py, which other folders' tests import too)."""

from __future__ import annotations

from tests.screens.bench.bench_pilot import bench  # noqa: F401 (a fixture)
