"""raidtop with the changes recommended for app.py and the panels, patched in for measurement.

Usage (from the repository root, through tui_cost.py)::

    python perf/tui_cost.py --also "subtitle-fix=python perf/experiments/app_patches.py subtitle" \
                             --also "all-fixes=python perf/experiments/app_patches.py subtitle defer"

``subtitle``: assigning a panel's ``border_subtitle`` the text it already has
does nothing. Textual's setter calls ``refresh()`` on the whole widget even
for an unchanged value, and every panel re-assigns its subtitle on every
sample, so every panel repaints in full every second.

``merge``: TextTable's lines are simplified (neighbouring cells in the same
style joined into one segment), so the terminal receives one style sequence
per run of cells instead of one per cell.

``defer``: the dashboard's ``dashboard_ready`` (which starts the udev
watcher and the sampler worker) runs after the first frame is painted
instead of before it, so neither competes with the first paint for the GIL.

Nothing here changes the repository's code: the patches are applied at
start-up in this process only.
"""

import os
import runpy
import sys

import textual.widget as widget


def skip_unchanged_border_titles() -> None:
    """Make re-assigning an identical border title or subtitle a no-op."""
    original = widget._BorderTitle.__set__

    def set_if_changed(self, obj, title):
        key = "_bench_last" + self._internal_name
        if isinstance(title, str) and obj.__dict__.get(key) == title:
            return
        obj.__dict__[key] = title
        original(self, obj, title)

    widget._BorderTitle.__set__ = set_if_changed


def merge_table_segments() -> None:
    """Join same-style neighbouring segments in TextTable's rows and header."""
    from raidtop.widgets.text_table import TextTable

    row_strip, header_strip = TextTable._row_strip, TextTable._header_strip
    TextTable._row_strip = lambda self, index: row_strip(self, index).simplify()
    TextTable._header_strip = lambda self: header_strip(self).simplify()


def defer_start_after_first_frame() -> None:
    """Start the udev watcher and the sampler once the first frame is on screen."""
    from raidtop.app.raidtop_app import RaidtopApp

    ready = RaidtopApp.dashboard_ready
    RaidtopApp.dashboard_ready = lambda self: self.call_after_refresh(ready, self)


def main() -> None:
    """Apply the patches named on the command line, then run raidtop."""
    sys.path.insert(0, os.getcwd())  # run from the repository, like python -m raidtop
    wanted = set(sys.argv[1:])
    if "subtitle" in wanted:
        skip_unchanged_border_titles()
    if "merge" in wanted:
        merge_table_segments()
    if "defer" in wanted:
        defer_start_after_first_frame()
    sys.argv = ["raidtop"]
    runpy.run_module("raidtop", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
