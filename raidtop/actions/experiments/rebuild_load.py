"""A rebuild with a fio load running through it: the trade-off's step and the study's "during rebuild" column.

The load starts first; once fio reports its jobs running (about a second in)
a member is failed and removed and a fresh disk added; the load runs until
the rebuild ends and is then stopped (SIGINT), so its figures cover the
rebuild, give or take fio's start.
"""

from __future__ import annotations

from typing import Any

import threading
import time

from raidtop.actions.lab.core import Lab, LabError
from raidtop.actions.experiments.experiment import (
    Control,
    JobFigures,
    in_sync_member,
    last_rebuild,
    rebuild_seconds,
    run_fio,
    wait_whole,
)
from raidtop.actions.lab.members import LabMemberActions
from raidtop.actions.member_actions import ActionRefused

STATUS_INTERVAL_S = 1.0
"""fio's ``--status-interval`` (raidtop's fio commands): the span one status report covers."""
SLACK_S = 0.2
"""How late a report may arrive and still count (a pipe and a thread away from fio)."""


def rebuild_under_load(
    lab: Lab,
    actions: LabMemberActions,
    name: str,
    preset,
    control: Control,
    stop_after_s: float | None = None,
    rebuilding: list | None = None,
    **history,
) -> tuple[float | None, JobFigures]:
    """Start the load, fail and replace a member, wait for the rebuild, stop the load.

    Returns the rebuild's seconds (``None`` when none was recorded) and the
    load's figures, which cover the rebuild plus fio's first second.
    With ``stop_after_s`` the load stops that long after the fresh disk was
    added, or when the rebuild ends if that is sooner (the study's "during
    rebuild" column: its runtime, spent rebuilding); the rebuild then
    finishes unloaded. ``rebuilding`` receives fio's per-second status
    reports whose whole second lay between the add and the stop: the load
    while the array was rebuilding, without fio's start or the fail before.
    ``history`` labels the fio run (see :func:`run_fio`).
    """
    done, running = threading.Event(), threading.Event()
    outcome: dict[str, Any] = {}
    heard: list = []
    window = [float("inf"), float("inf")]

    def on_point(point) -> None:
        heard.append((time.monotonic(), point))

    def stop() -> None:
        if not done.is_set():
            window[1] = time.monotonic()
            done.set()

    def load() -> None:
        try:
            outcome["figures"] = run_fio(
                lab, preset, f"/dev/{name}", 0, control, until=done, running=running, on_point=on_point, **history
            )
        except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread, which raises it
            outcome["error"] = exc
        finally:
            running.set()

    worker = threading.Thread(target=load, name="lab-rebuild-load", daemon=True)
    worker.start()
    rebuild_s = None
    timer: threading.Timer | None = None
    try:
        # The member fails once fio reports its jobs running: a short rebuild must not end before the load starts.
        while not running.wait(0.1):
            control.check()
        if "error" in outcome:
            raise outcome["error"]
        before = last_rebuild(lab, name)
        victim = in_sync_member(lab, name)
        actions.run("fail", name, victim)
        actions.run("remove", name, victim)
        actions.run("add", name, None)
        window[0] = time.monotonic()
        if stop_after_s is not None:
            timer = threading.Timer(stop_after_s, stop)
            timer.daemon = True
            timer.start()
        wait_whole(lab, name, control)
        rebuild_s = rebuild_seconds(lab, name, before)
    except ActionRefused as exc:
        raise LabError(str(exc)) from None
    finally:
        window[1] = min(window[1], time.monotonic())
        done.set()
        worker.join()
        if timer is not None:
            timer.cancel()
    if "error" in outcome:
        raise outcome["error"]
    if rebuilding is not None:
        rebuilding += points_within(heard, window[0], window[1])
    return rebuild_s, outcome["figures"]


def points_within(heard: list, start: float, end: float) -> list:
    """The reports (``(arrival, point)``) whose whole status interval lies between ``start`` and ``end``.

    A report covers the interval before it arrived, so one that arrives less
    than an interval after ``start`` still holds time from before it.
    """
    return [point for at, point in heard if at - STATUS_INTERVAL_S >= start - SLACK_S and at <= end + SLACK_S]
