"""Where the corpus's /proc, sysstat and hwmon samples live, and a root built from the hwmon fixture.

Shared by the corpus parsing tests and the damaged-input tests.
"""

from __future__ import annotations

import shutil
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "data"


CORPUS = DATA / "corpus"


SYSSTAT = DATA / "sysstat"


SYSSTAT_TREES = ("root1", "root2", "root3", "root4", "root5", "root6", "root7")


HWMON = CORPUS / "hwmon" / "prometheus-node_exporter__sys"


def hwmon_root(tmp_path: Path) -> Path:
    """The node_exporter sysfs fixture with its symlinks recreated from SYMLINKS.txt.

    class/hwmon/hwmonN are symlinks into devices/ on a real system; the corpus
    stores them as a list because its copies keep regular files only.
    """
    root = tmp_path / "hwmon-root"
    shutil.copytree(HWMON, root / "sys")
    for line in (HWMON / "SYMLINKS.txt").read_text().splitlines():
        link, _, target = line.partition(" -> ")
        path = root / link
        path.parent.mkdir(parents=True, exist_ok=True)
        path.symlink_to(target)
    return root
