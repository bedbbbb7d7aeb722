"""Run a program with its output capped in bytes and its run capped in time; killed past either.

``subprocess.run(capture_output=True)`` buffers everything before any check
can look at its size, and its timeout leaves the children of a killed
process running: a remote streaming zeros over ssh took raidtop to 4.5 GB.
Here stdout is read as it comes, and the program is started in its own
session so that killing its process group ends whatever it started too.
"""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import time
from collections.abc import Callable
from raidtop.model.frozen import frozen_dataclass

STDERR_KEPT = 64 * 1024
"""The tail of stderr kept (its last line is what a user needs)."""


@frozen_dataclass
class Ran:
    """How a bounded run ended: exit status (``None`` when it was killed), output, and why it was cut."""

    returncode: int | None
    stdout: bytes
    stderr: bytes
    cut: str | None = None
    """``"timeout"`` or ``"limit"`` when raidtop killed it, else ``None``."""


def run_bounded(
    argv: list[str],
    *,
    timeout_s: float,
    limit: int,
    keep_stderr: bool = False,
    started: Callable[[subprocess.Popen], None] | None = None,
    env: dict[str, str] | None = None,
) -> Ran:
    """Run ``argv`` (never a shell); raises ``OSError`` when it cannot start.

    ``env`` replaces the environment when given (a fixed locale and time zone
    for output that is parsed).

    ``started(proc)`` is called once it runs, so an owner can kill it from
    another thread (:func:`kill`) when raidtop leaves.
    """
    proc = subprocess.Popen(
        argv,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE if keep_stderr else subprocess.DEVNULL,
        start_new_session=True,
        env=env,
    )
    if started is not None:
        started(proc)
    out, err = bytearray(), bytearray()
    deadline = time.monotonic() + timeout_s
    cut = None
    try:
        with selectors.DefaultSelector() as selector:
            assert proc.stdout is not None  # started with stdout=PIPE
            selector.register(proc.stdout, selectors.EVENT_READ, out)
            if proc.stderr is not None:
                selector.register(proc.stderr, selectors.EVENT_READ, err)
            while selector.get_map() and cut is None:
                left = deadline - time.monotonic()
                if left <= 0:
                    cut = "timeout"
                    break
                for key, _ in selector.select(left):
                    chunk = os.read(key.fd, 65536)
                    if not chunk:
                        selector.unregister(key.fileobj)
                        continue
                    key.data.extend(chunk)
                    if key.data is out and len(out) > limit:
                        cut = "limit"
                        break
                    if key.data is err and len(err) > STDERR_KEPT:
                        del err[:-STDERR_KEPT]
        if cut is None:
            try:
                return Ran(proc.wait(max(0.1, deadline - time.monotonic())), bytes(out), bytes(err))
            except subprocess.TimeoutExpired:
                cut = "timeout"
        return Ran(None, bytes(out), bytes(err), cut)
    finally:
        kill(proc)


def stop(proc: subprocess.Popen) -> None:
    """SIGKILL ``proc``'s process group (its own session: nothing of raidtop's); safe from any thread.

    The thread running :func:`run_bounded` then sees its pipes close, reaps it and returns.
    """
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            proc.kill()


def kill(proc: subprocess.Popen) -> None:
    """:func:`stop`, then reap it and close its pipes (by the thread that runs it)."""
    if proc.poll() is None:
        stop(proc)
        proc.wait()
    for stream in (proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()
