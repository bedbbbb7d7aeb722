"""Where the realmd harness keeps things on the host."""

from __future__ import annotations

import os
from pathlib import Path

#: The project checkout; the guest starts each script here.
REPO_ROOT = Path(__file__).resolve().parents[2]

#: Downloads, extracted packages and built initramfs images (git-ignored).
#: REALMD_CACHE overrides it, e.g. to share one cache between checkouts.
CACHE_DIR = Path(os.environ.get("REALMD_CACHE", REPO_ROOT / ".cache" / "realmd"))
