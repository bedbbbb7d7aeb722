"""Fixtures for tests that boot the realmd VM.

Without qemu (or without apt to fetch the guest packages) these tests skip
with the reason. With CI=true a missing VM fails them instead: on CI a
skipped realmd tier would pass vacuously.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from collections.abc import Callable

import pytest

from .vm import GuestResult, PrepareError, VmImage, prepare_image, run_in_guest

REALMD_DIR = Path(__file__).parent


def _on_ci() -> bool:
    return os.environ.get("CI", "").lower() == "true"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # Lets `-m "not realmd"` leave out the whole slow tier (marker declared
    # in pyproject.toml).
    for item in items:
        if REALMD_DIR in Path(item.fspath).parents:
            item.add_marker(pytest.mark.realmd)


@pytest.fixture(scope="session")
def vm_image() -> VmImage:
    """qemu, the cached Debian kernel and the initramfs, ready to boot.

    Fetches and builds on first use; skips (fails with CI=true) if it can't.
    """
    install_qemu = _on_ci() or os.environ.get("REALMD_INSTALL_QEMU") == "1"
    try:
        return prepare_image(install_qemu=install_qemu)
    except PrepareError as error:
        if _on_ci():
            pytest.fail(f"realmd VM unavailable with CI=true: {error}", pytrace=False)
        pytest.skip(f"realmd VM unavailable: {error}")


@pytest.fixture
def guest(vm_image: VmImage, tmp_path: Path) -> Callable[..., GuestResult]:
    """``run_in_guest`` bound to the prepared image, results in ``tmp_path/results``."""
    return functools.partial(run_in_guest, image=vm_image, results_dir=tmp_path / "results")
