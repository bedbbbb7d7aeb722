"""The interpreter that runs raidtop inside the guest, and how the guest reaches it.

Scenarios import raidtop and, for the live UI, Textual inside the VM, so the
guest needs an interpreter whose environment has the project's dependencies.
The rule, first match wins:

1. ``$REALMD_PYTHON`` if set (no check: the caller knows best);
2. :func:`host_python.host_python` (the project ``.venv``, else the real
   ``python3``) if it can import textual and raidtop from the checkout;
3. ``/tmp/probe-venv/bin/python`` if it can (a scratch venv used while the
   project ``.venv`` is still being built).

The guest mounts its own tmpfs over ``/run`` (and, before guest_init.sh
kept the host's ``/tmp``, over ``/tmp``), which hides a venv kept there on
the host; :func:`reach_interpreter_script` links it back from the host root
that the guest's init mounted (``/proc/1/root/host`` from inside the chroot).
"""

from __future__ import annotations

import functools
import os
import shlex
import subprocess
from pathlib import Path, PurePosixPath

from .host_python import host_python
from .paths import REPO_ROOT

SCRATCH_VENV_PYTHON = Path("/tmp/probe-venv/bin/python")
#: Folders the guest may mount its own filesystems over (see guest_init.sh);
#: the link is only made when the path is missing in the guest.
GUEST_HIDDEN_DIRS = ("/tmp", "/run")
#: What the scenarios import inside the guest.
REQUIRED_IMPORTS = "import textual, raidtop.app.raidtop_app"


class NoGuestPython(Exception):
    """No host interpreter can import raidtop's dependencies."""


def _imports_project(python: Path) -> bool:
    """True when ``python`` (run from the checkout, as in the guest) imports raidtop and textual."""
    try:
        completed = subprocess.run(
            [str(python), "-c", REQUIRED_IMPORTS],
            cwd=REPO_ROOT,
            capture_output=True,
            timeout=120,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return completed.returncode == 0


@functools.cache
def raidtop_python() -> Path:
    """The interpreter for raidtop in the guest (see the module docstring for the rule).

    Raises:
        NoGuestPython: no candidate can import textual and raidtop.
    """
    override = os.environ.get("REALMD_PYTHON")
    if override:
        return Path(override)
    candidates = []
    try:
        candidates.append(host_python())
    except FileNotFoundError:
        pass
    candidates.append(SCRATCH_VENV_PYTHON)
    tried = []
    for candidate in candidates:
        if candidate.exists() and _imports_project(candidate):
            return candidate
        tried.append(str(candidate))
    raise NoGuestPython(
        f"no interpreter with raidtop's dependencies (tried {', '.join(tried)}); "
        "run `make test-realmd` (it installs .venv) or set REALMD_PYTHON"
    )


def reach_interpreter_script(python: Path) -> str:
    """Bash lines that make ``python`` usable at its own path inside the guest.

    A venv under a folder the guest hides (``/tmp/probe-venv``) is linked
    to the same folder on the host root; elsewhere nothing is needed.
    """
    parts = PurePosixPath(python).parts
    for hidden in GUEST_HIDDEN_DIRS:
        hidden_parts = PurePosixPath(hidden).parts
        if parts[: len(hidden_parts)] == hidden_parts and len(parts) > len(hidden_parts):
            top = PurePosixPath(*parts[: len(hidden_parts) + 1])
            source = shlex.quote(f"/proc/1/root/host{top}")
            return f"[[ -e {shlex.quote(str(top))} ]] || ln -s {source} {shlex.quote(str(top))}\n"
    return ""
