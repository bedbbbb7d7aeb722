"""Starting the lab's experiments from the Experiments screen: confirm, run in a thread, report progress.

:class:`ExperimentJobs` is an invisible widget: ``ask(kind)`` shows what the
experiment will run (its defaults, as ``raidtop lab sweep`` etc. would use
them) in the confirm dialog; a yes runs it in a thread worker with a
:class:`~raidtop.actions.experiments.experiment.Control` whose progress comes back
as messages. ``stop()`` (and leaving the screen) cancels it: the experiment
tears down what it made and keeps what it measured.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual import work
from textual.message import Message
from textual.widget import Widget

from raidtop.actions.lab.commands import LabCommandFailed
from raidtop.actions.lab.core import Lab, LabError
from raidtop.actions.lab.members import LIVE_ONLY
from raidtop.actions.experiments.experiment import Control, ProgressEvent
from raidtop.actions.experiments.results import ExperimentResult
from raidtop.actions.lab.spec import SpecError, human_size
from raidtop.screens.dialogs import ConfirmDialog
from raidtop.model.units import counted

KINDS = ("sweep", "tradeoff", "bitmap")


def experiment_plan(kind: str) -> tuple[Any, str, str]:
    """(params, title, the commands it will run as text) of ``kind`` with its defaults."""
    from raidtop.actions.experiments import bitmap_study, chunk_sweep, tradeoff

    if kind == "sweep":
        p = chunk_sweep.SweepParams()
        return (
            p,
            f"Run the chunk × block-size sweep ({counted(p.steps, 'step')})?",
            (
                f"for chunk in {', '.join(f'{c}K' for c in p.chunks_kib)}:\n"
                f"  mdadm --create /dev/md1NN --level={p.level.removeprefix('raid')} "
                f"--raid-devices={p.disks} --chunk=C "
                f"(fresh {human_size(p.disk_size_bytes)} loop disks); wait for the initial build\n"
                f"  for rw in {', '.join(p.patterns)}, bs in {', '.join(p.block_sizes)}:\n"
                f"    fio --rw=RW --bs=BS --iodepth=16 --direct=1 --runtime={p.runtime_s} --filename=/dev/md1NN\n"
                "  mdadm --stop; losetup -d; rm the images"
            ),
        )
    if kind == "tradeoff":
        t = tradeoff.TradeoffParams()
        return (
            t,
            "Run the rebuild-speed trade-off?",
            (
                f"mdadm --create /dev/md1NN --level={t.level.removeprefix('raid')} --raid-devices={t.disks} "
                f"(fresh {human_size(t.disk_size_bytes)} loop disks); fill it (dd)\n"
                f"fio {t.load} for {t.baseline_s} s (baseline)\n"
                f"for limit in {', '.join(t.limits)} KiB/s:\n"
                "  echo LIMIT > /sys/block/md1NN/md/sync_speed_max; echo LIMIT > …/sync_speed_min\n"
                f"  fio {t.load} until the rebuild ends; mdadm --fail, --remove a member; add a fresh disk\n"
                "echo system > both limits; mdadm --stop; losetup -d; rm the images"
            ),
        )
    b = bitmap_study.BitmapParams()
    return (
        b,
        "Run the bitmap study?",
        (
            f"for bitmap in none, internal: mdadm --create /dev/md1NN --level={b.level.removeprefix('raid')} "
            f"--raid-devices={b.disks} --bitmap=… (fresh {human_size(b.disk_size_bytes)} loop disks)\n"
            f"  for N in {', '.join(f'{w} MiB' for w in b.writes_mib)}: mdadm --fail, --remove a member; "
            "dd N MiB onto the array; mdadm --re-add it; time the resync\n"
            "  mdadm --stop; losetup -d; rm the images"
        ),
    )


class ExperimentJobs(Widget):
    """Runs one experiment at a time in a thread worker and reports through messages."""

    DEFAULT_CSS = "ExperimentJobs { display: none; }"

    class Progress(Message):
        """Where the running experiment is (step i of n, time left)."""

        def __init__(self, line: str) -> None:
            super().__init__()
            self.line = line

    class Finished(Message):
        """The experiment ended: stored (``experiment_id``) or refused/failed (``error``)."""

        def __init__(self, kind: str, experiment_id: int | None, error: str = "", stopped: bool = False) -> None:
            super().__init__()
            self.kind = kind
            self.experiment_id = experiment_id
            self.error = error
            self.stopped = stopped

    def __init__(self, lab: Lab, **kwargs) -> None:
        super().__init__(**kwargs)
        self.lab = lab
        self.control: Control | None = None

    @property
    def running(self) -> bool:
        """True while an experiment runs."""
        return self.control is not None

    def _progress(self, event: ProgressEvent) -> None:
        # Called in the experiment's thread: messages are the way into the UI.
        self.post_message(self.Progress(event.line()))

    def ask(self, kind: str) -> None:
        """Show ``kind``'s plan and run it on yes."""
        params, title, commands = experiment_plan(kind)

        def answered(yes: bool | None) -> None:
            if yes and not self.running:
                self.control = Control(self._progress)
                self.post_message(self.Progress(f"{kind}: starting"))
                self._run(kind, params, self.control)

        self.app.push_screen(
            ConfirmDialog(
                title, commands, "Lab arrays on loop devices only; Ctrl+C-safe: stopping (X) tears down what it made."
            ),
            answered,
        )

    def stop(self) -> None:
        """Stop the running experiment (it tears down, keeps what it measured)."""
        if self.control is not None:
            self.control.cancel()

    def on_unmount(self) -> None:
        self.stop()

    @work(thread=True, exclusive=True, group="lab-experiment")
    def _run(self, kind: str, params: Any, control: Control) -> None:
        from raidtop.actions.experiments import bitmap_study, chunk_sweep, tradeoff

        runs: dict[str, Callable[..., ExperimentResult]] = {
            "sweep": chunk_sweep.run_chunk_sweep,
            "tradeoff": tradeoff.run_tradeoff,
            "bitmap": bitmap_study.run_bitmap_study,
        }
        run = runs[kind]
        levels = [params.level]
        try:
            if not self.lab.root.is_live:
                raise LabError(LIVE_ONLY)
            environment = self.lab.environment(levels, need_fio=kind != "bitmap")
            if not environment.ready:
                raise LabError(f"the {kind} cannot run here:\n{environment.describe()}")
            result = run(self.lab, params, control)
            message = self.Finished(kind, result.experiment_id, stopped=result.stopped)
        except (LabError, LabCommandFailed, SpecError, OSError) as exc:
            message = self.Finished(kind, None, str(exc))
        self.control = None
        self.post_message(message)


__all__ = ["ExperimentJobs", "KINDS", "ProgressEvent", "experiment_plan"]
