"""The Tuning screen's reads: devices, the chosen target's knobs, the arrays' sync limits, in a worker.

:class:`TuningReader` is an invisible widget mounted in the Tuning screen. It
owns the read worker (one at a time, ``tuning-read``) and ends each read by
posting :class:`TuningReader.Read` with a :class:`TuningView`; the screen
paints that view and does no I/O of its own.
"""

from __future__ import annotations


from textual import work
from textual.message import Message
from textual.notifications import SeverityLevel
from textual.widget import Widget

from raidtop.model.frozen import frozen_dataclass
from raidtop.actions.tuning import Knob, Target, TuningError, TuningSession, parent_disk
from raidtop.actions.tuning.eta import ArrayLimits
from raidtop.collect.md.sysfs import read_md_sysfs
from raidtop.model.md import MdArray
from raidtop.model.snapshot import Snapshot


@frozen_dataclass
class Notice:
    """Something a read found that the user should be told."""

    text: str
    severity: SeverityLevel = "information"
    timeout: float | None = None


@frozen_dataclass
class TuningView:
    """Everything one refresh read, for the screen to paint."""

    target: str | None
    targets: tuple[Target, ...]
    knobs: tuple[Knob, ...]
    error: str | None
    arrays: tuple[MdArray, ...]
    limits: dict[str, ArrayLimits]
    asked: str | None = None
    """The target the screen showed when it asked (``None``: none yet, this read chose one)."""
    notices: tuple[Notice, ...] = ()
    """What resolving the wanted device found (a partition shown as its disk, an unknown name)."""


class TuningReader(Widget):
    """Reads what the Tuning screen shows, in a thread worker.

    Args:
        session: the tuning session to read through (it remembers start values).
    """

    DEFAULT_CSS = "TuningReader { display: none; }"

    class Read(Message):
        """The read worker finished: a fresh :class:`TuningView`."""

        def __init__(self, view: TuningView) -> None:
            super().__init__()
            self.view = view

    def __init__(self, session: TuningSession, **kwargs) -> None:
        super().__init__(**kwargs)
        self.session = session

    def read(self, snapshot: Snapshot | None, target: str | None, wanted: str | None) -> None:
        """Read ``target`` (or, while there is none, ``wanted``, or the first device) and post :class:`Read`."""
        self._read(snapshot, target, wanted)

    def _choose_target(
        self, targets: list[Target], target: str | None, wanted: str | None
    ) -> tuple[str | None, list[Notice]]:
        """Resolve the wanted device (a partition → its disk)."""
        names = [t.name for t in targets]
        notices: list[Notice] = []
        if wanted is not None and wanted not in names:
            parent = parent_disk(self.session.root, wanted)
            try:
                self.session.knobs(parent or wanted)
                if parent:
                    notices.append(Notice(f"{wanted} is a partition: showing {parent}, whose queue it uses."))
                    wanted = parent
            except TuningError as exc:
                notices.append(Notice(str(exc), "warning", 8))
                wanted = None
        return wanted or target or (names[0] if names else None), notices

    @work(thread=True, exclusive=True, group="tuning-read", exit_on_error=False)
    def _read(self, snapshot: Snapshot | None, asked: str | None, wanted: str | None) -> None:
        # sysfs reads over every device scale with the machine: never on the UI thread.
        session = self.session
        targets = session.targets()
        name, notices = asked, list[Notice]()
        if wanted is not None or asked is None:
            name, notices = self._choose_target(targets, asked, wanted)
        try:
            knobs, error = (session.knobs(name) if name else []), None
        except TuningError as exc:
            knobs, error = [], str(exc)
        # No sample yet (or the app samples nothing): read md from sysfs directly.
        arrays = tuple(snapshot.arrays) if snapshot is not None else tuple(read_md_sysfs(session.root)[0])
        limits = (
            session.array_limits(a.name for a in arrays)
            if any(t.kind in ("md", "global") for t in targets if t.name == name)
            else {}
        )
        view = TuningView(name, tuple(targets), tuple(knobs), error, arrays, limits, asked, tuple(notices))
        self.post_message(self.Read(view))
