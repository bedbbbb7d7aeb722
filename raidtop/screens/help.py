"""The help screen: every key of every context, generated from the live bindings so it stays true.

Keys are shown as Textual shows them in the footer (``.`` not ``full_stop``):
both come from :meth:`App.get_key_display`. The sections flow into as many
columns as the terminal is wide (two at 120 columns), and the page scrolls
with ↓/↑/PgDn/PgUp/Home/End when it does not fit.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen

from raidtop.widgets.shown_text import PlainStatic
from raidtop.widgets.text_table import Column, Row, TextTable

Section = tuple[str, list[Binding]]
KEY_WIDTH = 16
ACTION_WIDTH = 19
COLUMN_MIN_WIDTH = 56
"""Narrower than this, a column of key, action and details no longer reads: one column fewer."""
ENTER_OPENS = Binding("enter", "select", "Open row", id="table-open", tooltip="Expand or open the highlighted row")
ENTER_FOLDS = Binding("enter", "fold", "Fold grid", id="members-fold", tooltip="Fold the grid away, back to the arrays")
BACK = Binding(
    "escape,q",
    "back",
    "Back",
    id="back-anywhere",
    tooltip="On every other screen: back (q quits only from the dashboard)",
)
BACK_ACTIONS = {"back", "app.pop_screen", "dismiss"}


def context_sections(app_bindings: list[Binding]) -> list[Section]:
    """Every context's keys: global, dashboard, member grid, tables, replay and each screen."""
    from raidtop.screens.bench.screen import BenchScreen
    from raidtop.screens.dashboard.keys import DASHBOARD_BINDINGS
    from raidtop.screens.fleet import FleetScreen, HostScreen
    from raidtop.screens.lab.screen import LabScreen
    from raidtop.screens.tuning.screen import TuningScreen
    from raidtop.widgets.arrays_panel import ArraysPanel

    member_keys = _keys(ArraysPanel.BINDINGS)
    member_ids = {b.id for b in member_keys}
    replay = [b for b in app_bindings if (b.id or "").startswith("replay-")]
    sections: list[Section] = [
        # Every table moves and opens alike on every screen: those keys are global too.
        (
            "Global",
            [b for b in app_bindings if b not in replay]
            + [BACK]
            + [_one_row(_keys(TextTable.BINDINGS), "Move, Home/End", "↑ ↓ PgUp PgDn"), ENTER_OPENS],
        ),
        ("Dashboard", _one_row_for_digits(DASHBOARD_BINDINGS, "Focus panel")),
        ("Member grid (Enter on an array; demo and lab arrays)", [*member_keys, ENTER_FOLDS]),
        ("Replay (--replay)", replay),
        ("Benchmarks (b)", _one_row_for_digits(_keys(BenchScreen.BINDINGS), "Run preset n")),
        (
            "Lab (l): member keys as in the member grid",
            [b for b in _keys(LabScreen.BINDINGS) if b.id not in member_ids],
        ),
        ("Tuning (t)", _keys(TuningScreen.BINDINGS)),
        ("Fleet (raidtop fleet)", _unique(_keys([*FleetScreen.BINDINGS, *HostScreen.BINDINGS]))),
    ]
    # One Back row (in Global) stands for every screen's Esc/q; pairs such as
    # ↑/↓ share a row: the whole list fits one 120×40 screen in two columns.
    return [(title, _paired([b for b in bindings if b is BACK or not _is_back(b)])) for title, bindings in sections]


def _keys(bindings: Iterable[BindingType]) -> list[Binding]:
    """The bindings a class declares as :class:`Binding` (every raidtop key is one: it has an id)."""
    return [b for b in bindings if isinstance(b, Binding)]


SHARED_ROWS = frozenset({("stack", "audit"), ("lab-fault", "lab-fault-clear")})
"""Neighbours that answer one question share a row: what an array rests on (u) and whether it holds (A); a lab fault
put on (F) and taken off (C)."""


def _is_back(binding: Binding) -> bool:
    return binding.action in BACK_ACTIONS and "escape" in binding.key.split(",")


def _paired(bindings: list[Binding]) -> list[Binding]:
    """Neighbours calling one action with other arguments (``cursor(-1)``, ``cursor(1)``) as one row.

    So are an action and its ``_reverse``, and the pairs of :data:`SHARED_ROWS`.
    """
    out: list[Binding] = []
    for binding in bindings:
        previous = out[-1] if out else None
        opposite = previous is not None and (
            (_step_of(binding) and previous.action.split("(")[0] == binding.action.split("(")[0])
            or binding.action == previous.action + "_reverse"  # s / S: sort, sort the other way
            or (previous.id, binding.id) in SHARED_ROWS
        )
        if previous is not None and opposite:
            out[-1] = Binding(
                f"{previous.key},{binding.key}",
                previous.action,
                _pair_words(previous.description, binding.description),
                id=f"{previous.id}+{binding.id}",
                tooltip=previous.tooltip,
                key_display=f"{_first_key(previous)} / {_first_key(binding)}",
            )
        else:
            out.append(binding)
    return out


def _pair_words(first: str, second: str) -> str:
    """``Interval +`` and ``Interval -`` → ``Interval + / -``; otherwise both in full."""
    head, _, rest = first.partition(" ")
    if rest and second.startswith(head + " "):
        return f"{first} / {second.removeprefix(head + ' ')}"
    return f"{first} / {second}"


def _step_of(binding: Binding) -> bool:
    """True for actions like ``cursor(-1)``: a direction, whose opposite is its neighbour."""
    _name, _, argument = binding.action.partition("(")
    return argument.rstrip(")").lstrip("-").isdigit()


def _first_key(binding: Binding) -> str:
    """The binding's first key as the footer shows it (aliases such as ``=`` for ``+`` are left out of pairs)."""
    from textual.keys import format_key

    return binding.key_display or format_key(binding.key.split(",")[0].strip())


def _one_row_for_digits(bindings: list[Binding], description: str) -> list[Binding]:
    """Digit keys (panel hotkeys, Benchmarks' run-preset keys) as one row saying what each does."""
    digits = [b for b in bindings if b.key.isdigit()]
    rest = [b for b in bindings if not b.key.isdigit()]
    if not digits:
        return rest
    tooltip = " · ".join(f"{b.key} {b.description}" for b in digits)
    joined = Binding(
        ",".join(b.key for b in digits),
        digits[0].action,
        description,
        id="+".join(b.id or b.action for b in digits),
        tooltip=tooltip,
        key_display=f"{digits[0].key}…{digits[-1].key}",
    )
    return [*rest, joined]


def _one_row(bindings: list[Binding], description: str, display: str) -> Binding:
    """Several movement keys as one row (their ids joined, so the list stays checkable)."""
    tooltip = " · ".join(f"{_first_key(b)} {b.description}" for b in bindings)
    return Binding(
        ",".join(b.key for b in bindings),
        bindings[0].action,
        description,
        id="+".join(b.id or b.action for b in bindings),
        tooltip=tooltip,
        key_display=display,
    )


def _unique(bindings: list[Binding]) -> list[Binding]:
    seen: set[str] = set()
    kept = []
    for binding in bindings:
        if binding.description not in seen:
            seen.add(binding.description)
            kept.append(binding)
    return kept


class HelpScreen(ModalScreen[None]):
    """Lists every binding of every context, with what it does, in columns as wide as the terminal."""

    BINDINGS = [Binding("escape,q,question_mark,f1", "dismiss", "Close help", id="help-close")]
    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > Vertical {
        width: 100%; height: 100%; border: round $primary; background: $surface; padding: 0 1;
    }
    HelpScreen VerticalScroll { height: 1fr; }
    HelpScreen Horizontal { height: auto; }
    HelpScreen .help-column { width: 1fr; height: auto; }
    HelpScreen .help-column TextTable { scrollbar-size: 0 0; }
    HelpScreen .help-section { color: $text-accent; text-style: bold; height: 1; }
    HelpScreen .help-intro { color: $text-muted; height: 1; }
    """

    def __init__(self, sections: list[Section]) -> None:
        super().__init__()
        self._sections = sections

    def compose(self) -> ComposeResult:
        count = max(1, min(3, (self.app.size.width - 4) // COLUMN_MIN_WIDTH))
        # Two cells of gap between columns, so one column's details never run into the next one's keys.
        details = max(8, (self.app.size.width - 4) // count - KEY_WIDTH - ACTION_WIDTH - 3)
        columns = [
            Column("key", "Key", KEY_WIDTH, "left"),
            Column("what", "Action", ACTION_WIDTH, "left"),
            Column("more", "Details", details, "left"),
        ]
        with Vertical() as frame:
            # In the border, not a line of its own: every line counts for fitting 120×40.
            frame.border_title = "Every key raidtop knows · all are in the command palette (Ctrl+P)"
            frame.border_subtitle = "↓ ↑ PgDn End scroll · Esc closes"
            with VerticalScroll(id="help-scroll"), Horizontal():
                for sections in self._deal(count):
                    with Vertical(classes="help-column"):
                        for title, bindings in sections:
                            yield PlainStatic(title, classes="help-section")
                            table = TextTable(columns, show_header=False, show_cursor=False, id=_table_id(title))
                            table.can_focus = False
                            table.set_rows(self._rows(bindings))
                            table.styles.height = len(bindings)
                            yield table

    def on_mount(self) -> None:
        self.query_one("#help-scroll", VerticalScroll).focus()

    @property
    def rows(self) -> list[Row]:
        """Every key row shown, in reading order (tests read it)."""
        return [row for table in self.query(TextTable) for row in table.rows]

    def _deal(self, count: int) -> list[list[Section]]:
        """The sections dealt into ``count`` columns: filled to the screen's height when that fits it all.

        A section may then continue at the top of the next column ("… (cont.)");
        when even that does not fit, columns of about equal height, each section
        kept whole, and the page scrolls.
        """
        sections = [(title, bindings) for title, bindings in self._sections if bindings]
        height = self.app.size.height - 2  # the frame's border
        filled = _fill(sections, count, height)
        if filled is not None:
            return filled
        total = sum(len(bindings) + 1 for _, bindings in sections)
        columns: list[list[Section]] = [[] for _ in range(count)]
        height = 0
        current = 0
        for title, bindings in sections:
            lines = len(bindings) + 1
            if current < count - 1 and columns[current] and height + lines / 2 > total / count:
                current, height = current + 1, 0
            columns[current].append((title, bindings))
            height += lines
        return [column for column in columns if column]

    def _rows(self, bindings: list[Binding]) -> list[Row]:
        return [
            Row(b.id or b.action, (self.key_text(b), b.description, b.tooltip or ""), ("good", None, "dim"))
            for b in bindings
        ]

    def key_text(self, binding: Binding) -> str:
        """A binding's keys as the footer shows them (``full_stop`` → ``.``, ``question_mark,f1`` → ``? / f1``)."""
        if binding.key_display:
            return binding.key_display
        keys = [key.strip() for key in binding.key.split(",") if key.strip()]
        return " / ".join(self.app.get_key_display(Binding(key, binding.action)) for key in keys)


def _fill(sections: list[Section], count: int, height: int) -> list[list[Section]] | None:
    """Columns filled top to bottom to ``height`` lines, splitting a section where a column ends.

    ``None`` if even that overflows.
    """
    columns: list[list[Section]] = [[]]
    room = height
    for title, bindings in sections:
        rest = list(bindings)
        while rest:
            if room < 2:  # a title needs a row under it
                if len(columns) == count:
                    return None
                columns.append([])
                room = height
            take = rest[: room - 1]
            columns[-1].append((title, take))
            room -= len(take) + 1
            rest = rest[len(take) :]
            title = title.split(" (")[0] + " (cont.)"
    return columns


def _table_id(title: str) -> str:
    suffix = "-cont" if title.endswith("(cont.)") else ""
    return "help-" + "".join(c if c.isalnum() else "-" for c in title.split(" (")[0].split(":")[0].lower()) + suffix
