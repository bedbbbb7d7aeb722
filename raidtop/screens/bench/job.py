"""The benchmark a confirm dialog is asked about: one run, a repeat or a sweep."""

from __future__ import annotations


from raidtop.model.frozen import frozen_dataclass
from raidtop.actions.fio.session import BenchPlan


@frozen_dataclass(slots=False)
class Job:
    """What the confirm dialog is asked about: one run, a repeat or a sweep."""

    mode: str
    """``single``, ``repeat`` or ``sweep``."""
    plan: BenchPlan
    passes: int = 1
    knob: str | None = None
    values: tuple[str, ...] = ()
    devices: tuple[str, ...] = ()

    def pass_label(self, index: int) -> str:
        """What the live panel calls pass ``index`` (0-based)."""
        if self.mode == "repeat":
            return f"pass {index + 1}/{self.passes}"
        if self.mode == "sweep" and index < len(self.values):
            return f"{self.knob}={self.values[index]} ({index + 1}/{len(self.values)})"
        return ""
