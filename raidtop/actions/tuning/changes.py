"""A change in three stages: a validated :class:`Plan` (or a :class:`Refusal`), then the
:class:`ChangeResult` of applying it."""

from __future__ import annotations

from dataclasses import replace

from raidtop.model.frozen import frozen_dataclass
from raidtop.actions.action_log import ActionLog, LoggedAction


@frozen_dataclass
class Plan:
    """A validated change, ready to confirm: what will be written and the equivalent command."""

    target: str
    attr: str
    path: str
    old: str | None
    new: str
    command: str
    """The command as root runs it."""
    sudo_command: str
    """The same for a user who is not root."""
    warning: str = ""
    notes: tuple[str, ...] = ()
    undo_of: float | None = None
    """For an undo: the time of the change it reverts."""
    undo_all: bool = False
    """For "undo all": it reverts every change of this knob back to the start value."""

    @property
    def noop(self) -> bool:
        """True when the knob already holds the new value."""
        return self.old == self.new


@frozen_dataclass
class Refusal:
    """A change refused before writing, with the reason."""

    target: str
    attr: str
    message: str


@frozen_dataclass
class ChangeResult:
    """What happened when a plan was applied."""

    time: float
    target: str
    attr: str
    old: str | None
    new: str
    command: str
    status: str
    """``ok``; ``mismatch`` (accepted but reads back differently); ``unchanged`` (already
    the value, nothing written); ``failed`` (the kernel refused); ``needs-root``; ``refused``."""
    message: str
    """What happened, in words."""
    readback: str | None = None
    side_effects: tuple[tuple[str, str | None, str | None], ...] = ()
    """Other knobs of the target that changed with it: (attr, before, after)."""
    undo_of: float | None = None
    undo_all: bool = False
    log_error: str | None = None
    """Why the change could not be logged, if it could not."""

    @property
    def ok(self) -> bool:
        """True when the value now reads back as requested."""
        return self.status in ("ok", "unchanged")

    @property
    def changed_system(self) -> bool:
        """True when the write took effect (so it can be undone)."""
        return self.status in ("ok", "mismatch")

    @property
    def is_undo(self) -> bool:
        """True for a write that reverted earlier changes."""
        return self.undo_of is not None or self.undo_all


def log_change(log: ActionLog, result: ChangeResult, by: str = "") -> ChangeResult:
    """Append ``result`` to the action log as a ``tune`` entry; the result carries the log's time (or its error)."""
    extra = {"by": by} if by else {}
    try:
        entry: LoggedAction = log.append(
            "tune",
            result.command,
            "ok" if result.status == "ok" else result.message,
            device=result.target,
            attribute=result.attr,
            old=result.old,
            new=result.new,
            readback=result.readback,
            status=result.status,
            side_effects=[list(s) for s in result.side_effects],
            undo_of=result.undo_of,
            undo_all=result.undo_all,
            **extra,
        )
    except OSError as exc:
        return replace(result, log_error=f"could not write the change log {log.path}: {exc.strerror or exc}")
    # The log's own timestamp identifies the change, so an undo can name it.
    return replace(result, time=entry.time)
