"""DaemonExecutor: a call blocked for ever does not keep asyncio.run (or the interpreter) from ending,
and a thread whose call ended serves the next one."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
import time
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


def wait_until(condition, limit_s: float = 30.0) -> bool:
    """Poll ``condition`` until it holds or ``limit_s`` passes (a bound on waiting, not a timing check)."""
    deadline = time.monotonic() + limit_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)
    return True


def test_a_thread_whose_call_ended_takes_the_next_call():
    # The sampler asks for a call every interval: one thread serves them all.
    executor = DaemonExecutor()
    first = executor.submit(threading.current_thread).result(timeout=30)
    assert wait_until(lambda: executor.idle_threads() == 1)
    second = executor.submit(threading.current_thread).result(timeout=30)
    assert second is first and first.daemon


def test_a_busy_thread_is_never_handed_a_call():
    # A read stuck in the kernel holds up only itself: the next call gets a thread of its own.
    executor = DaemonExecutor()
    release = threading.Event()
    stuck = executor.submit(lambda: (release.wait(30), threading.current_thread())[1])
    other = executor.submit(threading.current_thread).result(timeout=30)
    assert not stuck.done()
    release.set()
    assert stuck.result(timeout=30) is not other


def test_an_idle_thread_ends_after_its_wait():
    executor = DaemonExecutor(idle_wait=0.05)
    thread = executor.submit(threading.current_thread).result(timeout=30)
    assert wait_until(lambda: not thread.is_alive())
    assert executor.idle_threads() == 0
    assert executor.submit(pow, 3, 3).result(timeout=30) == 27  # a new thread serves it


def test_no_call_is_lost_when_a_thread_ends_its_wait_as_it_is_handed_one():
    # Idle waits as short as the gap between calls: submit and the end of a wait race.
    executor = DaemonExecutor(idle_wait=0.0005)
    futures = []
    for i in range(400):
        futures.append(executor.submit(pow, i, 2))
        if i % 7 == 0:
            time.sleep(0.0005)
    assert [f.result(timeout=30) for f in futures] == [i * i for i in range(400)]
