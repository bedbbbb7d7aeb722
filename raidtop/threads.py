"""Daemon threads for blocking reads, so a stuck read never keeps raidtop from exiting.

``asyncio.to_thread`` and Textual's thread workers use the event loop's
default executor, a ThreadPoolExecutor: at exit ``asyncio.run`` and the
interpreter join its threads, so one read stuck on a hung NFS mount or a
sysfs attribute of a dying disk kept ``q`` from ever quitting.
:class:`DaemonExecutor` runs each call in its own daemon thread instead and
never waits for them: what is still blocked when raidtop exits is left behind
(the kernel ends it with the process).
"""

from __future__ import annotations

import itertools
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar
from collections.abc import Callable

T = TypeVar("T")

_names = itertools.count(1)


class DaemonExecutor(ThreadPoolExecutor):
    """An executor whose every call runs in a new daemon thread that nobody joins.

    It subclasses ThreadPoolExecutor only because ``loop.set_default_executor``
    accepts nothing else; none of the pool's machinery is used.
    """

    def __init__(self, name: str = "raidtop-io") -> None:
        super().__init__(max_workers=1, thread_name_prefix=name)
        self._name = name

    def submit(self, fn: Callable[..., T], /, *args, **kwargs) -> Future[T]:
        """Start ``fn(*args, **kwargs)`` in a fresh daemon thread; its result arrives in the future."""
        future: Future[T] = Future()

        def run() -> None:
            if not future.set_running_or_notify_cancel():
                return
            try:
                result = fn(*args, **kwargs)
            except BaseException as exc:  # noqa: BLE001 - handed to whoever awaits the future
                future.set_exception(exc)
            else:
                future.set_result(result)

        threading.Thread(target=run, name=f"{self._name}-{next(_names)}", daemon=True).start()
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Return at once: waiting would wait for a read that may never end."""
