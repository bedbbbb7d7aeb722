"""The help screen: every key of every context, generated from the live bindings so it stays true.

Keys are shown as Textual shows them in the footer (``.`` not ``full_stop``):
both come from :meth:`App.get_key_display`. The sections flow into as many
columns as the terminal is wide (two from about 170 columns), their widths computed
from the texts; a description longer than its column wraps onto the next line,
and the page scrolls with ↓/↑/PgDn/PgUp/Home/End when it does not fit.
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen

from raidtop.presentation.key_names import key_display
from raidtop.screens.copying import COPY_KEY
from raidtop.widgets.key_list import GAP, KeyList, KeyRow, KeyWidths
from raidtop.widgets.shown_text import PlainStatic
from raidtop.widgets.text_table import TextTable

Section = tuple[str, list[Binding]]
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
COPY = Binding(
    COPY_KEY,
    "copy_shown",
    "Copy",
    id="copy-shown",
    tooltip="Copy the shown command, serial or details (OSC 52)",
)


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
            + [BACK, COPY]
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
    return binding.key_display or key_display(binding.key.split(",")[0].strip())


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
    HelpScreen VerticalScroll { height: 1fr; scrollbar-size-vertical: 1; }
    HelpScreen Horizontal { height: auto; }
    HelpScreen .help-column { width: auto; height: auto; margin-right: 2; }
    HelpScreen .help-section { color: $text-accent; text-style: bold; height: 1; }
    """

    def __init__(self, sections: list[Section]) -> None:
        super().__init__()
        self._sections = sections

    def compose(self) -> ComposeResult:
        sections = [(title, [self._row(b) for b in bindings]) for title, bindings in self._sections if bindings]
        count, widths = _layout([row for _, rows in sections for row in rows], self.app.size.width - FRAME_WIDTH)
        with Vertical() as frame:
            # In the border, not a line of its own: every line counts for fitting the screen.
            frame.border_title = "Every key raidtop knows · all are in the command palette (Ctrl+P)"
            frame.border_subtitle = "Esc closes"  # the scroll keys are added once the page is known to scroll
            with VerticalScroll(id="help-scroll"), Horizontal():
                for column in _deal(sections, count, widths, self.app.size.height - 2):
                    with Vertical(classes="help-column"):
                        for title, rows in column:
                            yield PlainStatic(title, classes="help-section")
                            yield KeyList(rows, widths, id=_table_id(title))

    def on_mount(self) -> None:
        self.query_one("#help-scroll", VerticalScroll).focus()
        self.call_after_refresh(self._say_how_to_scroll)

    def _say_how_to_scroll(self) -> None:
        if self.query_one("#help-scroll", VerticalScroll).max_scroll_y > 0:
            self.query_one(Vertical).border_subtitle = "↓ ↑ PgDn End scroll · Esc closes"

    @property
    def rows(self) -> list[KeyRow]:
        """Every key row shown, in reading order (tests read it)."""
        return [row for table in self.query(KeyList) for row in table.rows]

    def _row(self, binding: Binding) -> KeyRow:
        return KeyRow(binding.id or binding.action, self.key_text(binding), binding.description, binding.tooltip or "")

    def key_text(self, binding: Binding) -> str:
        """A binding's keys as the footer shows them (``full_stop`` → ``.``, ``question_mark,f1`` → ``? / f1``)."""
        if binding.key_display:
            return binding.key_display
        keys = [key.strip() for key in binding.key.split(",") if key.strip()]
        return " / ".join(self.app.get_key_display(Binding(key, binding.action)) for key in keys)


FRAME_WIDTH = 4 + 1
"""The frame's border and padding, and the scroll bar's one column."""
COLUMN_GAP = 2
ACTION_MAX = 16
"""A longer action ("Slower rebuild / Faster rebuild") wraps onto a second line."""
DETAILS_MIN = 40
"""Narrower than this, details wrap into too many lines to read: one column fewer."""
RowSection = tuple[str, list[KeyRow]]


def _layout(rows: list[KeyRow], width: int) -> tuple[int, KeyWidths]:
    """How many columns fit ``width``, and the widths inside one, computed from the rows' own texts."""
    key = max(cell_len(row.keys) for row in rows)
    action = min(ACTION_MAX, max(cell_len(row.action) for row in rows))
    for count in (3, 2, 1):
        column = (width - (count - 1) * COLUMN_GAP) // count - COLUMN_GAP
        details = column - key - action - 2 * GAP
        if details >= DETAILS_MIN or count == 1:
            return count, KeyWidths(key, action, max(8, details))
    raise AssertionError("unreachable: one column always fits")


def _deal(sections: list[RowSection], count: int, widths: KeyWidths, height: int) -> list[list[RowSection]]:
    """The sections dealt into ``count`` columns: filled to the screen's height when that fits it all.

    A section may then continue at the top of the next column ("… (cont.)");
    when even that does not fit, columns of about equal height, each section
    kept whole, and the page scrolls.
    """
    filled = _fill(sections, count, widths, height)
    if filled is not None:
        return filled
    lines = [1 + sum(row.height(widths) for row in rows) for _, rows in sections]
    total = sum(lines)
    columns: list[list[RowSection]] = [[] for _ in range(count)]
    used = 0
    current = 0
    for section, size in zip(sections, lines):
        if current < count - 1 and columns[current] and used + size / 2 > total / count:
            current, used = current + 1, 0
        columns[current].append(section)
        used += size
    return [column for column in columns if column]


def _fill(sections: list[RowSection], count: int, widths: KeyWidths, height: int) -> list[list[RowSection]] | None:
    """Columns filled top to bottom to ``height`` lines, splitting a section where a column ends.

    ``None`` if even that overflows.
    """
    columns: list[list[RowSection]] = [[]]
    room = height
    for title, rows in sections:
        rest = list(rows)
        while rest:
            take: list[KeyRow] = []
            used = 1  # the title
            for row in rest:
                if used + row.height(widths) > room:
                    break
                take.append(row)
                used += row.height(widths)
            if not take:
                if len(columns) == count:
                    return None
                columns.append([])
                room = height
                continue
            columns[-1].append((title, take))
            room -= used
            rest = rest[len(take) :]
            title = title.split(" (")[0] + " (cont.)"
    return columns


def _table_id(title: str) -> str:
    suffix = "-cont" if title.endswith("(cont.)") else ""
    return "help-" + "".join(c if c.isalnum() else "-" for c in title.split(" (")[0].split(":")[0].lower()) + suffix
