"""DaemonExecutor: a call blocked for ever does not keep asyncio.run (or the interpreter) from ending."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from raidtop.threads import DaemonExecutor


def test_results_and_exceptions_arrive():
    executor = DaemonExecutor()
    assert executor.submit(pow, 2, 10).result(timeout=30) == 1024
    with pytest.raises(ZeroDivisionError):
        executor.submit(lambda: 1 / 0).result(timeout=30)


def test_a_blocked_call_does_not_hold_up_exit():
    # With the default ThreadPoolExecutor this script never ends: asyncio.run's
    # shutdown_default_executor, then the interpreter, join the blocked thread.
    script = textwrap.dedent("""
        import asyncio, threading
        from raidtop.threads import DaemonExecutor

        async def main():
            asyncio.get_running_loop().set_default_executor(DaemonExecutor())
            stuck = asyncio.ensure_future(asyncio.to_thread(threading.Event().wait))
            await asyncio.sleep(0.1)
            stuck.cancel()

        asyncio.run(main())
        print("ended")
    """)
    project = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(project)}
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, env=env)
    assert result.returncode == 0 and result.stdout.strip() == "ended", result.stderr
