"""Which host Python interpreter the guest should run (it sees the host's root)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from .paths import REPO_ROOT


def host_python() -> Path:
    """The interpreter for project code in the guest.

    The project's ``.venv`` when it exists; otherwise the real binary behind
    ``python3`` on the host. pyenv's shims are bash scripts that consult
    pyenv at every start (slow over 9p), so the shim is resolved here, on
    the host, by asking the interpreter for its own path.

    Raises:
        FileNotFoundError: there is no python3 on the host.
    """
    venv_python = REPO_ROOT / ".venv" / "bin" / "python"
    if venv_python.exists():
        return venv_python
    python3 = shutil.which("python3")
    if python3 is None:
        raise FileNotFoundError("no python3 on the host PATH")
    real = subprocess.run(
        [python3, "-c", "import os, sys; print(os.path.realpath(sys.executable))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    return Path(real)
