"""The red rebuild-risk banner at the top of the Arrays panel; no height while nothing is at risk."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from raidtop.model.smart import RebuildRisk
from raidtop.presentation.smart import banner_lines
from raidtop.untrusted import plain


class RiskBanner(Widget):
    """Which array's data rests on a disk that is not ok, or carries a full filesystem while degraded."""

    DEFAULT_CSS = """
    RiskBanner {
        height: auto; display: none; background: $error 20%; color: $text-error; text-style: bold; padding: 0 1;
    }
    RiskBanner.-shown { display: block; }
    """

    risks: reactive[tuple[RebuildRisk, ...]] = reactive((), layout=True)
    """The snapshot's rebuild risks; the banner shows while there is one."""

    full: reactive[tuple[str, ...]] = reactive((), layout=True)
    """Sentences: a full filesystem on a degraded array (the snapshot's ``full_filesystems``)."""

    def watch_risks(self, risks: tuple[RebuildRisk, ...]) -> None:
        self.set_class(bool(risks) or bool(self.full), "-shown")

    def watch_full(self, full: tuple[str, ...]) -> None:
        self.set_class(bool(full) or bool(self.risks), "-shown")

    @property
    def lines(self) -> list[str]:
        """The banner's text, one line per survivor at risk."""
        return [f"! {line}" for line in self.full] + banner_lines(self.risks)

    def render(self) -> Text:
        # Lines hold device names and the drive's own reason texts: plain, never markup.
        return Text(plain("\n".join(self.lines), multiline=True))
