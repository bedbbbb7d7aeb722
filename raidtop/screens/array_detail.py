"""The array detail screen: what mdadm --detail shows, a sync plot, thread CPU, events."""

from __future__ import annotations

import textwrap
import time

from textual.app import ComposeResult
from textual.binding import Binding
from textual.color import Color
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Static

from raidtop.collect.md.events import mismatch_verdict
from raidtop.presentation.format import DASH, kib, num
from raidtop.live.history import History, SyncPoint
from raidtop.presentation.md import (
    counting_action,
    degraded_since_text,
    eta_text,
    kernel_figures_text,
    sparse_text,
    state_badge,
    sync_action_text,
    sync_speed_text,
)
from raidtop.model.snapshot import Snapshot
from raidtop.model.md import MdArray, MdEvent, RaidSpeedLimit
from raidtop.screens.events import event_keys, show_newest_first
from raidtop.widgets.array_load_panel import ArrayLoadPanel
from raidtop.presentation.mdadm import mdadm_pairs
from raidtop.widgets.latency_heat_map import LatencyHeatMap
from raidtop.widgets.panel import Panel
from raidtop.screens.array_detail_panels import smart_panel, smart_rows, stack_panel, stack_rows
from raidtop.screens.copying import copy_binding, copy_shown
from raidtop.widgets.sync_plot import sync_plot
from raidtop.widgets.shown_text import content
from raidtop.widgets.text_table import Column, Row, TextTable
from raidtop.widgets.key_footer import KeyFooter
from raidtop.model.mdadm import MdadmDetail
from raidtop.screens.array_latency import heat_view, shown_member
from raidtop.screens.host import screen_host


def detail_rows(array: MdArray, limit: RaidSpeedLimit | None, now: float | None = None) -> list[Row]:
    """Everything mdadm --detail shows that sysfs (or mdstat) has, as label/value rows.

    ``now`` (the snapshot's time) puts wall-clock times beside the ETA and the degraded-since age.
    """
    badge, tone = state_badge(array)
    verdict = mismatch_verdict(
        array.level, array.mismatch_cnt, size_kib=array.size_kib, last_sync_action=counting_action(array)
    )

    def val(value, unit: str = "") -> str:
        return DASH if value is None else f"{value}{unit}"

    pairs: list[tuple[str, str, str | None]] = [
        ("Level", val(array.level), None),
        ("State", f"{badge} ({array.state or '?'})", tone),
        ("Health", array.health, {"ok": "good", "degraded": "warn", "failed": "crit"}.get(array.health)),
        ("Devices", f"{array.counts_string or '?'} {array.status_string or ''}", None),
        *(
            [("Slots", sparse_text(array) + ": the empty ones are configuration, no copy is missing", "dim")]
            if array.sparse_by_design
            else []
        ),
        *(
            [("Degraded", val(degraded_since_text(array, now)), "warn")]
            if now is not None and array.degraded_since is not None
            else []
        ),
        ("Array size", kib(array.size_kib), None),
        ("Component size", kib(array.component_size_kib), None),
        ("Chunk", val(array.chunk_kib, "K"), None),
        ("Layout", val(array.layout), None),
        ("Metadata", val(array.metadata), None),
        ("UUID", val(array.uuid), None),
        ("Bitmap", val(array.bitmap), None),
        ("Consistency policy", val(array.consistency_policy), None),
        (
            "Events",
            val(array.events) if array.events is not None else "not in sysfs (mdadm --detail)",
            "dim" if array.events is None else None,
        ),
        ("Last sync action", sync_action_text(array), None),
        (
            "mismatch_cnt",
            val(array.mismatch_cnt),
            {"warning": "warn", "info": None, "ok": "good"}.get(verdict.severity) if verdict else None,
        ),
        ("Stripe cache", val(array.stripe_cache_size, " pages"), None),
        ("sync_speed_min", val(array.sync_speed_min, " KiB/s"), None),
        ("sync_speed_max", val(array.sync_speed_max, " KiB/s"), None),
        ("speed_limit_min", val(limit.min if limit else None, " KiB/s (global)"), None),
        ("speed_limit_max", val(limit.max if limit else None, " KiB/s (global)"), None),
        ("Reshape position", val(array.reshape_position), None),
        ("Read from", array.source, "dim"),
    ]
    if array.sync is not None:
        sync = array.sync
        pairs[4:4] = [
            (
                "Sync",
                f"{sync.action} {num(sync.percent, 1)}%" if sync.running else f"{sync.action} (waiting to start)",
                "accent",
            ),
            ("Sync speed", sync_speed_text(sync), "warn" if sync.stalled else None),
            ("ETA (raidtop)", eta_text(sync, now), "good"),
            ("Kernel, instant", kernel_figures_text(sync), "dim"),
        ]
    rows = [Row(label, (label, value), ("dim", tone)) for label, value, tone in pairs]
    if verdict is not None:
        tone = "warn" if verdict.severity == "warning" else "dim"
        # Wrapped, not cut: the sentence's point (which sync counted it) is at its end.
        for i, line in enumerate(textwrap.wrap(verdict.text, 40)):
            rows.append(Row(f"verdict{i}", ("", line), ("dim", tone)))
    return rows


class ArrayDetailScreen(Screen[None]):
    """One array in depth; it follows live snapshots while open."""

    BINDINGS = [
        Binding("escape,q", "app.pop_screen", "Back", id="detail-back", tooltip="Return to the dashboard"),
        copy_binding("detail-copy", "the array's details as text (label: value lines, for a ticket)"),
        Binding(
            "m",
            "next_latency_member",
            "Next latency",
            id="detail-latency-member",
            tooltip="Show the next member's latency heat map (it starts on the slowest at p99)",
        ),
    ]
    DEFAULT_CSS = """
    ArrayDetailScreen #detail-title { height: 1; background: $panel; color: $text-primary; text-style: bold; }
    ArrayDetailScreen #detail-left { width: 62; }
    ArrayDetailScreen #detail-attrs { height: 1fr; }
    ArrayDetailScreen #detail-smart-panel { height: auto; max-height: 12; }
    ArrayDetailScreen #detail-smart { height: auto; max-height: 10; }
    ArrayDetailScreen #detail-stack-panel { height: auto; max-height: 10; }
    ArrayDetailScreen #detail-stack { height: auto; max-height: 8; }
    ArrayDetailScreen #detail-right { width: 1fr; }
    ArrayDetailScreen #sync-plot-panel { height: 1fr; min-height: 10; }
    ArrayDetailScreen #sync-plot { height: 1fr; background: $surface; }
    ArrayDetailScreen #threads-panel { height: 7; }
    ArrayDetailScreen #latency-heat-panel { height: auto; max-height: 16; }
    ArrayDetailScreen #detail-events-panel { height: 1fr; }
    """

    MDADM_EVERY_S = 60.0
    """mdadm is run when the screen opens and then this often: superblocks change on events, not per second."""

    def __init__(self, array: str) -> None:
        super().__init__()
        self.array_name = array
        self._mdadm: MdadmDetail | None = None
        self._latency_member: str | None = None
        """The member the heat map shows, once chosen with the key (None: the slowest at p99)."""
        self._members: frozenset[str] = frozenset()

    def compose(self) -> ComposeResult:
        yield Static(content(f" {self.array_name}"), id="detail-title")
        with Horizontal():
            with Vertical(id="detail-left"):
                panel = Panel(id="detail-attrs-panel")
                panel.border_title = "mdadm --detail (from sysfs)"
                with panel:
                    yield TextTable(
                        [Column("k", "", 20, "left"), Column("v", "", 40, "left")], id="detail-attrs", show_header=False
                    )
                yield smart_panel()
                yield stack_panel()
            with Vertical(id="detail-right"):
                plot_panel = Panel(id="sync-plot-panel")
                plot_panel.border_title = "Sync speed and progress"
                with plot_panel:
                    yield Static(id="sync-plot")
                threads = Panel(id="threads-panel")
                threads.border_title = "md kernel threads"
                with threads:
                    table = TextTable(
                        [Column("thread", "Thread", 16, "left"), Column("pid", "PID", 8), Column("cpu", "%CPU", 8)],
                        id="thread-table",
                    )
                    table.placeholder = "no md kernel threads visible in /proc"
                    yield table
                heat = Panel(id="latency-heat-panel")
                heat.border_title = "Latency over time (bpftrace, each request, per interval)"
                with heat:
                    yield LatencyHeatMap(id="latency-heat")
                yield ArrayLoadPanel(id="detail-load")
                events = Panel(id="detail-events-panel")
                events.border_title = "Events"
                with events:
                    table = TextTable(
                        [
                            Column("time", "Time", 10, "left"),
                            Column("event", "Event", 18, "left"),
                            Column("member", "Member", 12, "left"),
                        ],
                        id="detail-events",
                    )
                    table.placeholder = "no events for this array yet"
                    yield table
        yield KeyFooter()

    def on_mount(self) -> None:
        screen_host(self).live.want_units("detail", True)  # its "Who loads it" panel needs the cgroup tree read
        screen_host(self).sampler.stack.view_opened()  # and its Stack section the stack
        screen_host(self).sample_now()
        self._read_mdadm()
        self.set_interval(self.MDADM_EVERY_S, self._read_mdadm)
        snap = screen_host(self).live.latest
        if snap is not None:
            self.apply_snapshot(snap)
            # The plot needs its real size, known only after the first layout.
            self.call_after_refresh(self.apply_snapshot, snap)
        self.query_one("#detail-attrs", TextTable).focus()

    def on_unmount(self) -> None:
        screen_host(self).latency.release("detail")  # no view of the map, no bpftrace for it
        screen_host(self).live.want_units("detail", False)
        screen_host(self).sampler.stack.view_closed()

    def on_screen_suspend(self) -> None:
        screen_host(self).latency.release("detail")  # covered (help, a dialog): the map is not seen

    def on_screen_resume(self) -> None:
        screen_host(self).latency.want("detail", self._members)

    def action_next_latency_member(self) -> None:
        """Show the next member's heat map (in the array's member order)."""
        live = screen_host(self).live
        array = next((a for a in live.latest.arrays if a.name == self.array_name), None) if live.latest else None
        if array is None or not array.members:
            return
        names = [m.name for m in array.members]
        current = shown_member(array, live.latency, self._latency_member)
        self._latency_member = names[(names.index(current) + 1) % len(names)] if current in names else names[0]
        self._draw_latency(array)

    def _draw_latency(self, array: MdArray) -> None:
        host = screen_host(self)
        members = frozenset(m.name for m in array.members)
        if members != self._members:
            self._members = members
            host.latency.want("detail", members)
        view = heat_view(
            array, host.live.latency, host.latency.unavailable(), self._latency_member, host.latency.interval_s
        )
        self.query_one(LatencyHeatMap).view = view

    def _read_mdadm(self) -> None:
        from raidtop.collect.md.mdadm_detail import read_mdadm_detail
        from raidtop.collect.source import as_root

        root, name = as_root(screen_host(self).config.root), self.array_name

        def work() -> None:
            detail = read_mdadm_detail(root, name)
            self.post_message(self.MdadmRead(detail))

        self.run_worker(work, thread=True, exclusive=True, group="mdadm-detail", exit_on_error=False)

    class MdadmRead(Message):
        """mdadm's view of the array, read off the UI thread."""

        def __init__(self, detail: MdadmDetail) -> None:
            super().__init__()
            self.detail = detail

    def on_array_detail_screen_mdadm_read(self, message: MdadmRead) -> None:
        message.stop()
        self._mdadm = message.detail
        snap = screen_host(self).live.latest
        if snap is not None and self.is_mounted:
            self.apply_snapshot(snap)

    def action_copy_shown(self) -> None:
        """Copy the details table (mdadm --detail's figures from sysfs, then mdadm's own) as text."""
        rows = self.query_one("#detail-attrs", TextTable).rows
        text = "\n".join(f"{label}: {value}" if label else f"  {value}" for label, value in (r.cells[:2] for r in rows))
        copy_shown(self.app, f"{self.array_name}'s details", f"{self.array_name}\n{text}", multiline=True)

    def apply_snapshot(self, snap: Snapshot) -> None:
        """Show the latest state of this array."""
        history: History = screen_host(self).live.history
        array = next((a for a in snap.arrays if a.name == self.array_name), None)
        title = self.query_one("#detail-title", Static)
        if array is None:
            title.update(content(f" {self.array_name}: gone (the array is no longer listed by the kernel)"))
            return
        badge, _ = state_badge(array)
        title.update(content(f" {array.name}  {array.level or '?'}  {badge}  {array.status_string or ''}"))
        mdadm = [
            Row(f"mdadm{i}", (label, value), ("dim", tone))
            for i, (label, value, tone) in enumerate(mdadm_pairs(self._mdadm))
        ]
        self.query_one("#detail-attrs", TextTable).set_rows(
            detail_rows(array, snap.raid_speed_limit, snap.time) + mdadm
        )
        self._draw_plot(history.sync(array.name), history.events_of(array.name))
        self._draw_latency(array)
        self.query_one(ArrayLoadPanel).show(snap, array)
        self.query_one("#detail-smart", TextTable).set_rows(
            smart_rows(array, snap), "no SMART readings (yet) for this array's disks"
        )
        self.query_one("#detail-stack", TextTable).set_rows(
            stack_rows(array, snap), "the storage stack arrives with the next sample"
        )
        threads = [
            Row(str(t.pid), (t.thread, str(t.pid), num(t.cpu_pct)), (None, "dim", None))
            for t in snap.md_threads
            if t.array == array.name
        ]
        self.query_one("#thread-table", TextTable).set_rows(threads, "no md kernel threads visible in /proc")
        shown = history.events_of(array.name)
        events = [
            Row(key, (time.strftime("%H:%M:%S", time.localtime(e.time)), e.event, e.member or ""), ("dim", None, None))
            for key, e in zip(event_keys(shown), shown)
        ]
        show_newest_first(self.query_one("#detail-events", TextTable), events, "no events for this array yet")

    def _draw_plot(self, points: list[SyncPoint], events: list[MdEvent]) -> None:
        plot = self.query_one("#sync-plot", Static)
        theme = self.app.current_theme
        speed_rgb = Color.parse(theme.primary).rgb
        progress_rgb = Color.parse(theme.accent or theme.secondary or theme.primary).rgb
        marker_rgb = Color.parse(theme.error or "red").rgb
        width, height = plot.size
        plot.update(sync_plot(points, width or 60, height or 10, speed_rgb, progress_rgb, events, marker_rgb))
