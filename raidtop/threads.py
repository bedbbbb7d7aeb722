"""Daemon threads for blocking reads, so a stuck read never keeps raidtop from exiting.

``asyncio.to_thread`` and Textual's thread workers use the event loop's
default executor, a ThreadPoolExecutor: at exit ``asyncio.run`` and the
interpreter join its threads, so one read stuck on a hung NFS mount or a
sysfs attribute of a dying disk kept ``q`` from ever quitting.
:class:`DaemonExecutor` runs each call in a daemon thread of its own instead
and never waits for them: what is still blocked when raidtop exits is left
behind (the kernel ends it with the process).

A thread whose call has ended waits a while for the next call rather than
ending: the sampler asks for one every interval, and a new thread per sample
(created, started, its stack mapped and freed, its caches cold) cost about
8 % of raidtop's CPU at 500 devices (perf/RESULTS.md, issue 30). A call never waits
for a busy thread: with none idle, a new one starts, so a read stuck in the
kernel holds up only itself.
"""

from __future__ import annotations

import itertools
import queue
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar
from collections.abc import Callable

T = TypeVar("T")

_names = itertools.count(1)

IDLE_WAIT_S = 30.0
"""How long a thread with nothing to do waits for a call before it ends: as long as the
longest interval the keys step to (30 s); at a longer ``--interval`` each sample starts a
thread, which then costs nothing worth keeping a thread for."""


class DaemonExecutor(ThreadPoolExecutor):
    """An executor whose every call runs in a daemon thread that nobody joins.

    An idle thread takes the next call; with none idle, a call gets a new
    thread. It subclasses ThreadPoolExecutor only because
    ``loop.set_default_executor`` accepts nothing else; none of the pool's
    machinery is used.
    """

    def __init__(self, name: str = "raidtop-io", idle_wait: float = IDLE_WAIT_S) -> None:
        super().__init__(max_workers=1, thread_name_prefix=name)
        self._name = name
        self._idle_wait = idle_wait
        self._idle: list[queue.SimpleQueue[Callable[[], None]]] = []
        """The inboxes of the threads waiting for a call; ``pop`` hands a call to the one idle the shortest time."""
        self._lock = threading.Lock()

    def submit(self, fn: Callable[..., T], /, *args, **kwargs) -> Future[T]:
        """Run ``fn(*args, **kwargs)`` in an idle daemon thread or a fresh one; its result arrives in the future."""
        future: Future[T] = Future()

        def call() -> None:
            if not future.set_running_or_notify_cancel():
                return
            try:
                result = fn(*args, **kwargs)
            except BaseException as exc:  # noqa: BLE001 - handed to whoever awaits the future
                future.set_exception(exc)
            else:
                future.set_result(result)

        with self._lock:
            inbox = self._idle.pop() if self._idle else None
        if inbox is not None:
            inbox.put(call)
        else:
            threading.Thread(target=self._serve, args=(call,), name=f"{self._name}-{next(_names)}", daemon=True).start()
        return future

    def _serve(self, call: Callable[[], None]) -> None:
        """Run ``call``, then each call handed to this thread while it waits idle; end after an idle wait."""
        inbox: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        while True:
            call()
            del call  # the finished call's arguments and result are not kept alive while idle
            with self._lock:
                self._idle.append(inbox)
            try:
                call = inbox.get(timeout=self._idle_wait)
            except queue.Empty:
                with self._lock:
                    if inbox in self._idle:
                        self._idle.remove(inbox)
                        return
                # submit took this thread just as the wait ended: its call is on the way.
                call = inbox.get()

    def idle_threads(self) -> int:
        """How many threads wait for a call now."""
        with self._lock:
            return len(self._idle)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Return at once: waiting would wait for a read that may never end."""
