"""How raidtop's toasts behave: two at most, grouped per array, never over a dialog, mutable.

Three 5-line toasts covered half of an 80×24 screen and sat on top of
confirmation dialogs. :class:`NoticeDesk` sits between ``app.notify`` and
Textual's toasts: it holds md-event notices while a modal screen is on top
(and takes back the toasts a new dialog would cover until it closes), keeps
only the newest :data:`MAX_VISIBLE`, and drops md-event notices while muted
(the event timeline, ``e``, still has every one). A notice that answers a
key press (a dialog's "give a number") is shown at once: it is about the
dialog, not under it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any

from textual.app import App, ScreenStackError
from textual.notifications import SeverityLevel
from textual.screen import ModalScreen

from raidtop.model.frozen import frozen_dataclass
from raidtop.model.snapshot import Snapshot
from raidtop.presentation.md_announcements import announcements
from raidtop.untrusted import plain
from raidtop.model.units import counted

MAX_VISIBLE = 2


@frozen_dataclass(slots=False)
class Notice:
    """One toast's text, title, Textual severity and seconds on screen."""

    message: str
    title: str = ""
    severity: SeverityLevel = "information"
    timeout: float | None = None


def grouped(notices: list[Notice], array_of: Callable[[Notice], str]) -> list[Notice]:
    """Several notices about one array as one toast ("3 events on md0"); the worst severity wins."""
    by_array: dict[str, list[Notice]] = {}
    for notice in notices:
        by_array.setdefault(array_of(notice), []).append(notice)
    out = []
    for array, group in by_array.items():
        if len(group) == 1:
            out.append(group[0])
            continue
        worst = max(group, key=lambda n: _SEVERITY_RANK.get(n.severity, 0))
        lines = "\n".join(f"{n.title.partition(': ')[2] or n.title}: {n.message}" for n in group)
        timeouts = [n.timeout for n in group if n.timeout is not None]
        out.append(
            Notice(
                lines, f"{counted(len(group), 'event')} on {array}", worst.severity, max(timeouts) if timeouts else None
            )
        )
    return out


_SEVERITY_RANK = {"information": 0, "warning": 1, "error": 2}
_LEVELS: dict[str, SeverityLevel] = {"information": "information", "warning": "warning", "error": "error"}
"""An announcement's severity word as Textual's level."""


class NoticeDesk:
    """Decides when a notice becomes a toast.

    Args:
        app: the Textual app whose toasts these are.
        post: shows one :class:`Notice` as a toast (the app's ``App.notify``).
    """

    def __init__(self, app: App[Any], post: Callable[[Notice], None]) -> None:
        self._app = app
        self._post = post
        self._held: list[Notice] = []
        self.muted = False
        """True: md-event notices are dropped (they stay in the event timeline)."""
        self.offered: deque[Notice] = deque(maxlen=200)
        """Every notice offered, one per md event before grouping (what tests and a curious reader check)."""

    def offer(self, notice: Notice) -> None:
        """Show ``notice`` now: it answers what the user just did (a dialog's own complaint included)."""
        self.offered.append(notice)
        self._post(notice)

    def offer_events(self, notices: list[Notice], array_of: Callable[[Notice], str]) -> None:
        """md-event notices from one sample: grouped per array, held under a dialog, dropped while muted."""
        self.offered.extend(notices)
        if self.muted:
            return
        for notice in grouped(notices, array_of):
            if self._dialog_on_top():
                self._held.append(notice)
            else:
                self._post(notice)

    def announce(
        self, snapshot: Snapshot, previous_alerts: frozenset[str], heard: Callable[[str], bool] | None
    ) -> bool:
        """Offer the notices ``snapshot``'s md events call for; whether a failure asks for the bell.

        ``heard`` says which arrays may be announced (the demo: only its simulated one).
        """
        said, ring = announcements(snapshot, previous_alerts, heard)
        notices = [
            Notice(plain(a.text, multiline=True), plain(a.title), _LEVELS.get(a.severity, "information"), a.timeout)
            for a in said
        ]
        # Titles read "md0: Fail" or "md0": the array is what comes before the colon.
        self.offer_events(notices, lambda notice: notice.title.partition(":")[0])
        return ring

    def screen_changed(self, _screen: object = None) -> None:
        """A screen was pushed or popped: hide toasts under a dialog, show held ones after it."""
        app = self._app
        if self._dialog_on_top():
            # The toasts already up would be drawn over the dialog: take them back until it closes.
            for notification in list(app._notifications):
                remaining = max(1.0, notification.time_left)
                self._held.append(Notice(notification.message, notification.title, notification.severity, remaining))
            if len(app._notifications):
                app.clear_notifications()
            return
        held, self._held = self._held[-MAX_VISIBLE:], []
        for notice in held:
            self._post(notice)

    def trim(self) -> None:
        """Keep only the newest :data:`MAX_VISIBLE` toasts (called after each one is added)."""
        app = self._app
        shown = list(app._notifications)
        for notification in shown[:-MAX_VISIBLE]:
            app._unnotify(notification, refresh=False)

    def _dialog_on_top(self) -> bool:
        try:
            return isinstance(self._app.screen, ModalScreen)
        except ScreenStackError:  # no screen yet (start-up) or any more (shutdown): nothing covers a toast
            return False
