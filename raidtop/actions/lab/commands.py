"""Runs the lab's commands, shows each one as it runs, and logs each one.

Every change the lab makes goes through :class:`CommandRunner`: external
tools (losetup, mdadm, mkfs, mount) as argv lists, and the few changes
raidtop makes itself (creating a sparse file, writing a sysfs attribute,
deleting an image) through :meth:`CommandRunner.python`, which logs the
shell command that does the same. Listeners (the Lab screen's log pane,
``raidtop lab``'s stdout) hear about a command before it starts and again
when it ends; the action log (kind ``lab``) gets one line per command.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Sequence

from raidtop.model.frozen import frozen_dataclass
from raidtop.actions.action_log import ActionLog

SBIN_DIRS = ("/usr/local/sbin", "/usr/sbin", "/sbin")
"""Where mdadm and losetup live when a user's PATH lacks the sbin folders."""


@frozen_dataclass
class CommandEvent:
    """A command starting (``ok is None``) or finished."""

    command: str
    """The exact shell command (or its equivalent for what raidtop does itself)."""
    started: float
    ended: float | None = None
    ok: bool | None = None
    output: str = ""
    """stdout of a finished command (losetup prints the device it chose)."""
    error: str = ""
    """stderr, or the exception, of a failed command."""


class LabCommandFailed(Exception):
    """A lab command failed; ``str()`` is the command and the tool's own words."""

    def __init__(self, command: str, error: str) -> None:
        super().__init__(f"{command}: {error.strip() or 'failed'}")
        self.command = command
        self.error = error.strip()


def find_tool(name: str) -> str | None:
    """The path of ``name`` on PATH or in the sbin folders, or ``None``."""
    found = shutil.which(name)
    if found:
        return found
    for folder in SBIN_DIRS:
        candidate = os.path.join(folder, name)
        if os.access(candidate, os.X_OK):
            return candidate
    return None


class CommandRunner:
    """Runs, shows and logs lab commands; thread-safe."""

    def __init__(self, log: ActionLog | None = None, tools: dict[str, str] | None = None) -> None:
        self.log = log or ActionLog()
        self._tools = dict(tools or {})
        self._listeners: list[Callable[[CommandEvent], None]] = []
        self._lock = threading.Lock()

    def add_listener(self, listener: Callable[[CommandEvent], None]) -> None:
        """Call ``listener`` for every command starting and ending (from the running thread)."""
        with self._lock:
            self._listeners.append(listener)

    def remove_listener(self, listener: Callable[[CommandEvent], None]) -> None:
        """Stop calling ``listener``."""
        with self._lock:
            if listener in self._listeners:
                self._listeners.remove(listener)

    def tool(self, name: str) -> str:
        """The executable for ``name`` (mdadm, losetup, ...), found once."""
        path = self._tools.get(name)
        if path is None:
            path = find_tool(name) or name
            self._tools[name] = path
        return path

    def run(
        self, argv: Sequence[str], *, input: str | None = None, timeout: float = 120.0, check: bool = True, **details
    ) -> CommandEvent:
        """Run ``argv``; the command shown and logged names tools as typed (``mdadm``, not its path).

        Raises:
            LabCommandFailed: the command failed (``check``) or could not start.
        """
        display = shlex.join([os.path.basename(argv[0]), *argv[1:]])
        resolved = [self.tool(argv[0]) if os.sep not in argv[0] else argv[0], *argv[1:]]
        started = time.time()
        self._emit(CommandEvent(display, started))
        try:
            done = subprocess.run(resolved, input=input, capture_output=True, text=True, timeout=timeout)
        except (OSError, subprocess.SubprocessError) as exc:
            return self._finish(display, started, False, "", str(exc), check, details)
        error = done.stderr if not done.returncode else (done.stderr.strip() or f"exit status {done.returncode}")
        return self._finish(display, started, done.returncode == 0, done.stdout, error, check, details)

    def python(self, display: str, action: Callable[[], object], *, check: bool = True, **details) -> CommandEvent:
        """Do ``action`` in-process, shown and logged as the equivalent shell command ``display``."""
        started = time.time()
        self._emit(CommandEvent(display, started))
        try:
            action()
        except OSError as exc:
            return self._finish(display, started, False, "", exc.strerror or str(exc), check, details)
        return self._finish(display, started, True, "", "", check, details)

    @contextlib.contextmanager
    def shown(self, display: str) -> Iterator[None]:
        """Show ``display`` as a command starting, then ended, around work another module runs and logs.

        For fio, whose runner writes its own action-log line (kind ``fio``)
        with the result: the lab's listeners still see the exact command
        before it starts, as they do for mdadm.
        """
        started = time.time()
        self._emit(CommandEvent(display, started))
        ok, error = False, "stopped"
        try:
            yield
            ok, error = True, ""
        except Exception as exc:
            error = str(exc)
            raise
        finally:
            self._emit(CommandEvent(display, started, time.time(), ok, "", error))

    def _finish(self, display: str, started: float, ok: bool, out: str, err: str, check: bool, details) -> CommandEvent:
        event = CommandEvent(display, started, time.time(), ok, out, "" if ok else err.strip())
        self.log.append("lab", display, "ok" if ok else (event.error or "failed"), **details)
        self._emit(event)
        if check and not ok:
            raise LabCommandFailed(display, event.error)
        return event

    def _emit(self, event: CommandEvent) -> None:
        with self._lock:
            listeners = list(self._listeners)
        for listener in listeners:
            try:
                listener(event)
            except Exception:  # noqa: BLE001 - a broken listener (a closed screen) must not stop the lab
                pass
