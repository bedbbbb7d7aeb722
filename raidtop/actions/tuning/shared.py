"""The process-wide tuning sessions, so start values and undo survive closing the screen.

The Tuning screen, ``raidtop tune``, the fio sweep and the lab's md actions
(:func:`write_setting`) share one :class:`TuningSession` per root and log.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from raidtop.actions.action_log import ActionLog
from raidtop.actions.tuning.changes import ChangeResult
from raidtop.actions.tuning.session import TuningSession
from raidtop.collect.source import Root, as_root


class SettingFailed(OSError):
    """A write through :func:`write_setting` that did not take effect; ``str()`` says why."""

    def __init__(self, result: ChangeResult) -> None:
        super().__init__(result.message)
        self.result = result

    def __str__(self) -> str:
        return self.result.message


def write_setting(
    root: Root | str | os.PathLike[str], target: str, attr: str, value: str, *, by: str, log: ActionLog | None = None
) -> ChangeResult:
    """Change one attribute through the process-wide session (validated, read back, logged, undoable).

    For callers that treat a failure as an error (the lab): raises
    :class:`SettingFailed` unless the value now reads back as asked.
    """
    result = session_for(root, log).set(target, attr, value, by=by)
    if not result.ok:
        raise SettingFailed(result)
    return result


_SESSIONS: dict[tuple[str, str | None], TuningSession] = {}
_SESSIONS_LOCK = threading.Lock()


def session_for(root: Root | str | os.PathLike[str] = "/", log: ActionLog | None = None) -> TuningSession:
    """The process-wide session for ``root`` (and ``log``), so start values and undo
    survive closing the screen and the lab's changes show on the Tuning screen."""
    key = (os.fspath(as_root(root).path), None if log is None else os.fspath(Path(log.path)))
    with _SESSIONS_LOCK:
        session = _SESSIONS.get(key)
        if session is None:
            session = _SESSIONS[key] = TuningSession(root, log)
    return session
