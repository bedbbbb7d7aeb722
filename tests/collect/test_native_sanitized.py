"""The compiled disk code under AddressSanitizer and UndefinedBehaviorSanitizer.

The C parse reads /proc/diskstats, which raidtop treats as untrusted input:
a read past a buffer or an overflow there would not show as a wrong number
in the other tests, only as memory quietly corrupted. Here both C modules
are built again with ``-fsanitize=address,undefined`` into a copy of the
package, and their tests (the corpus, random damage, random text, random
counters) run against that build; any report fails the run.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[2]
MODULES = {
    "raidtop/collect/_diskstats_native": "raidtop/collect/_diskstats_native.c",
    "raidtop/collect/rates/_disk_rates_native": "raidtop/collect/rates/_disk_rates_native.c",
}
TESTS = ["tests/collect/test_diskstats_native.py", "tests/collect/rates/test_disk_rates_native.py"]


def _runtime(compiler: str, library: str) -> str:
    found = subprocess.run([compiler, f"-print-file-name={library}"], capture_output=True, text=True, check=True)
    return found.stdout.strip()


def test_the_c_code_passes_its_tests_under_the_sanitizers(tmp_path: Path) -> None:
    compiler = shutil.which("gcc")
    if compiler is None:
        pytest.fail("gcc is needed to build the sanitized disk code (.ci/run installs it)")
    tree = tmp_path / "tree"
    ignore = shutil.ignore_patterns("__pycache__", "*.so")
    for folder in ("raidtop", "tests", "themes"):
        shutil.copytree(PROJECT / folder, tree / folder, symlinks=True, ignore=ignore)  # sysfs trees loop
    shutil.copy(PROJECT / "pyproject.toml", tree / "pyproject.toml")
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    include = sysconfig.get_paths()["include"]
    for module, source in MODULES.items():
        subprocess.run(
            [compiler, "-O1", "-g", "-fsanitize=address,undefined", "-fno-omit-frame-pointer", "-fno-sanitize-recover",
             "-shared", "-fPIC", f"-I{include}", str(PROJECT / source), "-o", str(tree / f"{module}{suffix}")],
            check=True,
        )  # fmt: skip
    env = {
        **os.environ,
        "PYTHONPATH": str(tree),
        "LD_PRELOAD": f"{_runtime(compiler, 'libasan.so')} {_runtime(compiler, 'libubsan.so')}",
        # Python's own allocations are not the C code's: leaks are not what this run looks for.
        "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=1",
        "UBSAN_OPTIONS": "halt_on_error=1:print_stacktrace=1",
    }
    check = "import raidtop.collect.native as n; print(n.diskstats_parse.__file__, n.disk_rates.__file__)"
    where = subprocess.run([sys.executable, "-c", check], cwd=tree, env=env, capture_output=True, text=True)
    assert where.returncode == 0 and where.stdout.count(str(tree)) == 2, where.stdout + where.stderr
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *TESTS],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    report = result.stdout[-4000:] + result.stderr[-4000:]
    assert result.returncode == 0, report
    assert "runtime error" not in report and "AddressSanitizer" not in report, report
