"""Running a module's tests against one mutant, in a forked child that leaves the tree untouched.

The child's import system serves the mutated code for the module; the tests
run under pytest with a time limit, and the result is one word.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PRELOAD = (
    "hypothesis",
    "hypothesis.strategies",
    "textual.app",
    "rich.text",
    "syrupy",
    "prometheus_client",
    "psutil",
    "pyudev",
)


class _MutantFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves the mutated code object for one module name; every other import as usual."""

    def __init__(self, name: str, path: Path, code) -> None:
        self.name, self.path, self.code = name, path, code

    def find_spec(self, fullname, path=None, target=None):
        if fullname != self.name:
            return None
        return importlib.util.spec_from_file_location(fullname, self.path, loader=self)

    def create_module(self, spec):
        return None

    def exec_module(self, module) -> None:
        exec(self.code, module.__dict__)


# Property tests draw the same examples for every mutant, not one run's luck.
_SEEDED = ["--hypothesis-seed=0"] if importlib.util.find_spec("hypothesis") else []


def _absolute(arg: str) -> str:
    """A test path made absolute (the child runs elsewhere); options as they are."""
    path = ROOT / arg.split("::")[0]
    return str(ROOT / arg) if not arg.startswith("-") and path.exists() else arg


def run_in_child(name: str, path: Path, code, pytest_args: list[str], timeout: float, quiet: bool = True) -> str:
    """``passed``, ``failed`` or ``timeout`` for the tests run against ``code`` as module ``name``."""
    # A mutant may write where it should not, or be killed mid-test: its
    # working directory and pytest's tmp_path live in a scratch directory
    # removed afterwards, never in the checkout or the shared /tmp/pytest-of-*.
    scratch = tempfile.mkdtemp(prefix="mutant-")
    pid = os.fork()
    if pid == 0:  # the child: import the mutant, run pytest, report by exit status
        try:
            if quiet:
                null = os.open(os.devnull, os.O_WRONLY)
                os.dup2(null, 1)
                os.dup2(null, 2)
            os.setpgid(0, 0)
            os.chdir(scratch)
            sys.meta_path.insert(0, _MutantFinder(name, path, code))
            import pytest

            status = pytest.main(
                [
                    "-x",
                    "-q",
                    "-p",
                    "no:cacheprovider",
                    "-W",
                    "ignore::pytest.PytestAssertRewriteWarning",
                    "--rootdir",
                    str(ROOT),
                    "-c",
                    str(ROOT / "pyproject.toml"),
                    "--basetemp",
                    os.path.join(scratch, "tmp"),
                    *_SEEDED,
                    *[_absolute(arg) for arg in pytest_args],
                ]
            )
            os._exit(0 if status == 0 else 1)
        except BaseException:  # noqa: BLE001 - the forked child must always _exit, never return into the parent's code
            os._exit(2)
    try:
        return _wait(pid, timeout)
    finally:
        _remove_scratch(scratch)


def _wait(pid: int, timeout: float) -> str:
    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return "passed" if os.waitstatus_to_exitcode(status) == 0 else "failed"
        if time.monotonic() > deadline:
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.waitpid(pid, 0)
            return "timeout"
        time.sleep(0.02)


def _remove_scratch(scratch: str) -> None:
    """Remove a child's scratch directory, first unmounting what a killed test left mounted there."""
    with open("/proc/self/mounts", encoding="utf-8") as mounts:
        points = [line.split()[1] for line in mounts]
    for point in sorted((p for p in points if p.startswith(scratch + "/")), key=len, reverse=True):
        subprocess.run(["umount", "-l", point], check=False, capture_output=True)
    shutil.rmtree(scratch, ignore_errors=True)


def preload() -> None:
    """Import pytest and its plugins once, here, so each forked child starts warm."""
    import importlib.metadata

    import pytest  # noqa: F401

    for entry in importlib.metadata.entry_points(group="pytest11"):
        try:
            entry.load()
        except Exception:  # noqa: BLE001 - a plugin that fails here fails in the child too, visibly
            pass
    # Heavy third-party imports the tests make (never raidtop's own modules,
    # which must come fresh in each child to see the mutant).
    for heavy in PRELOAD:
        try:
            importlib.import_module(heavy)
        except ImportError:
            pass
