"""An append-only JSON-lines log of every change raidtop made to the system."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from raidtop.model.frozen import frozen_dataclass
from raidtop.config import xdg_dir


def default_log_path() -> Path:
    """``$XDG_STATE_HOME/raidtop/actions.log`` (``~/.local/state/raidtop/actions.log``)."""
    return xdg_dir("state") / "actions.log"


@frozen_dataclass
class LoggedAction:
    """One line of the log."""

    time: float
    kind: str
    """``tune``, ``fio``, ``lab``…"""
    command: str
    """The exact shell command equivalent to what raidtop did."""
    result: str
    """``ok`` or the error in words."""
    details: dict[str, Any]


class ActionLog:
    """Appends one JSON object per line; a damaged line is skipped on reading."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or default_log_path()

    def append(self, kind: str, command: str, result: str, **details: Any) -> LoggedAction:
        """Record one action (creating the directory on first use)."""
        entry = LoggedAction(time.time(), kind, command, result, details)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        line = json.dumps({"time": entry.time, "kind": kind, "command": command, "result": result, **details})
        # O_APPEND keeps lines whole even if two raidtop instances log at once; a link planted
        # at the log path is refused (ELOOP), never followed.
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        try:
            os.write(fd, (line + "\n").encode())
        finally:
            os.close(fd)
        return entry

    def read(self, kind: str | None = None) -> list[LoggedAction]:
        """Every readable entry (of ``kind``), oldest first."""
        try:
            text = self.path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return []
        entries = []
        for line in text.splitlines():
            try:
                data = json.loads(line)
                entry = LoggedAction(
                    float(data.pop("time")),
                    str(data.pop("kind")),
                    str(data.pop("command")),
                    str(data.pop("result")),
                    data,
                )
            except (ValueError, KeyError, TypeError, AttributeError):
                continue
            if kind is None or entry.kind == kind:
                entries.append(entry)
        return entries
