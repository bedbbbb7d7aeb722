"""Explain a number: its formula and the raw counter deltas behind it.

Pure functions over a Snapshot and the two raw samples it was computed from
(no Textual, no I/O). The formulas are written the way sysstat's sources
compute them, so a user can check raidtop against iostat by hand.
"""

from __future__ import annotations

from collections.abc import Sequence

from raidtop.model.frozen import frozen_dataclass
from raidtop.collect.md.methods import ETA_METHOD, SPEED_METHOD, STALL_METHOD
from raidtop.model.units import size
from raidtop.presentation.format import DASH, num
from raidtop.presentation.md import NOTES_JOIN, held_text, row_marks, sync_speed_cell
from raidtop.model.disk_columns import disk_named
from raidtop.model.snapshot import CpuCounters, DiskCounters, Snapshot
from raidtop.model.md import MdArray
from raidtop.model.smart import RebuildRisk
from raidtop.presentation.processes import rebuild_vs_load
from raidtop.presentation.smart import member_verdicts, percent, rate_text

UTIL_CAVEAT = (
    "%util on NVMe, md and dm devices does not mean saturation: they serve many requests in "
    "parallel, and 100 % only says at least one request was in flight all the time."
)
SINCE_BOOT = "This is the first sample: every delta is the counter itself, averaged over the uptime."


@frozen_dataclass
class Line:
    """One explained value: its name, the formula, the formula with numbers, the result."""

    name: str
    formula: str
    numbers: str
    result: str


@frozen_dataclass
class Explanation:
    """Everything the Explain dialog shows for one row."""

    title: str
    lines: tuple[Line, ...]
    caveats: tuple[str, ...] = ()


def explain_disk(snap: Snapshot, name: str) -> Explanation | None:
    """Every iostat -x column of one device, from the diskstats deltas."""
    cur = _disk(snap.raw.disks if snap.raw else (), name)
    row = disk_named(snap.disks, name)
    if cur is None or row is None or snap.interval_s is None:
        return None
    prev = _disk(snap.raw_previous.disks, name) if snap.raw_previous else None
    dt = snap.interval_s

    def d(attr: str) -> int | None:
        now = getattr(cur, attr)
        if now is None:
            return None
        before = getattr(prev, attr) if prev is not None else 0
        return None if before is None else now - before

    lines: list[Line] = []
    for prefix, label in (("rd", "r"), ("wr", "w"), ("dc", "d")):
        ios, merges, sectors, ticks = (
            d(f"{prefix}_ios"),
            d(f"{prefix}_merges"),
            d(f"{prefix}_sectors"),
            d(f"{prefix}_ticks"),
        )
        if ios is None:
            continue
        key = {"rd": "r", "wr": "w", "dc": "d"}[prefix]
        lines += [
            Line(f"{label}/s", f"Δ{prefix}_ios / Δt", f"{ios} / {dt:.2f} s", num(getattr(row, f"{key}_s"))),
            Line(
                f"{label}KiB/s",
                f"Δ{prefix}_sectors / 2 / Δt",
                f"{sectors} / 2 / {dt:.2f} s",
                num(getattr(row, f"{key}kib_s")),
            ),
            Line(f"{label}rqm/s", f"Δ{prefix}_merges / Δt", f"{merges} / {dt:.2f} s", num(getattr(row, f"{key}rqm_s"))),
            Line(
                f"%{label}rqm",
                f"Δ{prefix}_merges / (Δ{prefix}_merges + Δ{prefix}_ios) × 100",
                f"{merges} / ({merges} + {ios}) × 100",
                num(getattr(row, f"{key}rqm_pct")),
            ),
            Line(
                f"{label}_await",
                f"Δ{prefix}_ticks / Δ{prefix}_ios",
                f"{ticks} ms / {ios}",
                num(getattr(row, f"{key}_await_ms")),
            ),
            Line(
                f"{label}areq-sz",
                f"Δ{prefix}_sectors / 2 / Δ{prefix}_ios",
                f"{sectors} / 2 / {ios}",
                num(getattr(row, f"{key}areq_sz_kib")),
            ),
        ]
    fl_ios, fl_ticks = d("fl_ios"), d("fl_ticks")
    if fl_ios is not None:
        lines += [
            Line("f/s", "Δfl_ios / Δt", f"{fl_ios} / {dt:.2f} s", num(row.f_s)),
            Line("f_await", "Δfl_ticks / Δfl_ios", f"{fl_ticks} ms / {fl_ios}", num(row.f_await_ms)),
        ]
    lines += [
        Line("aqu-sz", "Δrq_ticks / (Δt × 1000)", f"{d('rq_ticks')} ms / {dt * 1000:.0f} ms", num(row.aqu_sz)),
        Line(
            "%util",
            "Δio_ticks / (Δt × 1000) × 100",
            f"{d('tot_ticks')} ms / {dt * 1000:.0f} ms × 100",
            num(row.util_pct),
        ),
    ]
    caveats = [f"Δt = {dt:.2f} s, from /proc/uptime as sysstat measures it; sectors are 512 bytes; ticks are ms."]
    if row.kind in ("md", "dm") or name.startswith("nvme"):
        caveats.append(UTIL_CAVEAT)
    if row.r_s is None:
        caveats.append("A counter went backwards (device reset or re-added): no honest rate exists for this interval.")
    if snap.since_boot:
        caveats.append(SINCE_BOOT)
    return Explanation(f"{name}: iostat -x from /proc/diskstats", tuple(lines), tuple(caveats))


def explain_cpu(snap: Snapshot, cpu: str | int) -> Explanation | None:
    """One mpstat row: each field's tick delta over the CPU's total."""
    if snap.raw is None or snap.raw.stat is None:
        return None
    cur = _cpu(snap.raw.stat.cpus, cpu)
    row = next((c for c in snap.cpus if c.cpu == cpu), None)
    if cur is None or row is None:
        return None
    prev = _cpu(snap.raw_previous.stat.cpus, cpu) if snap.raw_previous and snap.raw_previous.stat else None

    def d(attr: str) -> int:
        return getattr(cur, attr) - (getattr(prev, attr) if prev else 0)

    total = sum(d(a) for a in ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal"))
    parts = (
        ("%usr", "Δ(user − guest)", d("user") - d("guest"), row.usr),
        ("%nice", "Δ(nice − guest_nice)", d("nice") - d("guest_nice"), row.nice),
        ("%sys", "Δsystem", d("system"), row.sys),
        ("%iowait", "Δiowait", d("iowait"), row.iowait),
        ("%irq", "Δirq", d("irq"), row.irq),
        ("%soft", "Δsoftirq", d("softirq"), row.soft),
        ("%steal", "Δsteal", d("steal"), row.steal),
        ("%guest", "Δguest", d("guest"), row.guest),
        ("%gnice", "Δguest_nice", d("guest_nice"), row.gnice),
        ("%idle", "Δidle", d("idle"), row.idle),
    )
    lines = tuple(Line(n, f"{f} / Δtotal × 100", f"{v} / {total} × 100", num(r)) for n, f, v, r in parts)
    caveats = [
        "Δtotal = Δ(user + nice + system + idle + iowait + irq + softirq + steal) in USER_HZ ticks; guest time is "
        "already inside user and nice, so it is not added again.",
    ]
    if cpu == "all":
        caveats.append("The 'all' row sums the online CPUs' rows, as mpstat does.")
    if snap.since_boot:
        caveats.append(SINCE_BOOT)
    return Explanation(f"CPU {cpu}: mpstat from /proc/stat", lines, tuple(caveats))


def explain_vm(snap: Snapshot) -> Explanation | None:
    """vmstat's rate columns from /proc/vmstat and /proc/stat deltas."""
    if snap.raw is None or snap.vm is None or snap.interval_s is None:
        return None
    dt = snap.interval_s
    cur_vm, prev_vm = snap.raw.vm, snap.raw_previous.vm if snap.raw_previous else None
    cur_st, prev_st = snap.raw.stat, snap.raw_previous.stat if snap.raw_previous else None

    def d(a, b, attr: str):
        now = getattr(a, attr, None) if a else None
        before = getattr(b, attr, 0) if b else 0
        return None if now is None or before is None else now - before

    vm = snap.vm
    lines = (
        Line("bi", "Δpgpgin / Δt", f"{d(cur_vm, prev_vm, 'pgpgin')} KiB / {dt:.2f} s", _kib_s(vm.bi_kib_s)),
        Line("bo", "Δpgpgout / Δt", f"{d(cur_vm, prev_vm, 'pgpgout')} KiB / {dt:.2f} s", _kib_s(vm.bo_kib_s)),
        Line(
            "si", "Δpswpin × page size / Δt", f"{d(cur_vm, prev_vm, 'pswpin')} pages / {dt:.2f} s", _kib_s(vm.si_kib_s)
        ),
        Line(
            "so",
            "Δpswpout × page size / Δt",
            f"{d(cur_vm, prev_vm, 'pswpout')} pages / {dt:.2f} s",
            _kib_s(vm.so_kib_s),
        ),
        Line("in", "Δintr / Δt", f"{d(cur_st, prev_st, 'intr')} / {dt:.2f} s", num(vm.in_s)),
        Line("cs", "Δctxt / Δt", f"{d(cur_st, prev_st, 'ctxt')} / {dt:.2f} s", num(vm.cs_s)),
        Line("cache", "Cached + SReclaimable", "from /proc/meminfo", _kib(vm.cache_kib)),
        Line("swpd", "SwapTotal − SwapFree", "from /proc/meminfo", _kib(vm.swpd_kib)),
    )
    caveats = ["us = user + nice, sy = system + irq + softirq, over the same tick total as mpstat's."]
    if snap.since_boot:
        caveats.append(SINCE_BOOT)
    return Explanation("vmstat from /proc/vmstat, /proc/stat and /proc/meminfo", lines, tuple(caveats))


def explain_array(snap: Snapshot, name: str) -> Explanation | None:
    """Where an array's progress, speed and both ETAs come from."""
    array = next((a for a in snap.arrays if a.name == name), None)
    if array is None:
        return None
    lines: list[Line] = [
        Line(
            "[n/m]",
            "raid_disks / (raid_disks − degraded)",
            f"{array.raid_disks} / ({array.raid_disks} − {array.degraded})",
            array.counts_string or "—",
        )
    ]
    sync = array.sync
    if sync is not None:
        held = held_text(sync) or "nothing: the disks set the pace"
        lines += [
            Line(
                "progress",
                "sync_completed: done / total (512-byte sectors)",
                f"{sync.done_kib} KiB / {sync.total_kib} KiB",
                num(sync.percent, 1) + "%",
            ),
            Line("Speed", SPEED_METHOD, held, sync_speed_cell(sync)),
            Line(
                "ETA",
                ETA_METHOD,
                "steady where finish= jumps; " + (sync.eta_basis or "no estimate"),
                num(sync.eta_s, 0) + " s",
            ),
            Line(
                "STALLED",
                STALL_METHOD,
                f"{num(sync.stalled_s, 0)} s without progress" if sync.stalled else "moving",
                "yes" if sync.stalled else "no",
            ),
            Line(
                "sync_speed",
                "the kernel's instant figure: work since md's mark / whole seconds since it",
                "md's own ~30 s average, KiB/s per device",
                _kib_s(sync.speed_kib_s, 0),
            ),
            Line(
                "finish=",
                "the kernel's: remaining / sync_speed (from /proc/mdstat)",
                "off by the old rate for up to 30 s after a limit change",
                num(sync.eta_s_kernel, 0) + " s",
            ),
        ]
    caveats = ["For raid4/5/6 recovery the total is the per-device size, not the array size."]
    load = rebuild_vs_load(snap, array)
    if load is not None:
        caveats = load[1] + caveats
    if sync is not None:
        caveats.insert(0, TRUST_ETA)
    risk = next((r for r in snap.rebuild_risks if r.array == name), None)
    if risk is not None:
        risk_lines, risk_caveats = explain_rebuild_risk(array, risk)
        lines += risk_lines
        caveats = risk_caveats + caveats
    notes = [text for text, _tone in row_marks(array, snap.time, set(), member_verdicts(array, snap))]
    if notes:
        # Whole here, as a narrow Notes column cuts them. A slow member is the member grid's to name, on its basis.
        caveats.insert(0, f"Notes: {NOTES_JOIN.join(notes)}.")
    return Explanation(f"{name}: md sysfs and /proc/mdstat", tuple(lines), tuple(caveats))


TRUST_ETA = (
    "Which ETA to trust: raidtop's. The kernel's finish= divides what remains by sync_speed, md's average over "
    "its last ~30 s, so after sync_speed_max or _min changes it keeps the old rate for up to 30 s, and while md "
    "sleeps on its window it still promises progress. raidtop runs md's own throttle forward, so it knows the "
    "sleep and the burst that follow a change. When neither moves (STALLED), neither estimate means anything."
)


URE_ASSUMPTIONS = (
    "Rebuild risk, an estimate: P(at least one unrecoverable read error) = 1 − exp(−bits read / rated bits per error). "
    "It assumes errors are independent and arrive at the drive's rated rate (1 in 10^14 bits when its class is "
    "unknown), and that the whole remaining range is read once. A disk with pending sectors already has errors, so "
    "the real chance is higher; a drive that beats its rating makes it lower.",
    "raid1/raid10 read each remaining block from one copy, raid4/5/6 from every survivor: the bytes are what a "
    "survivor is read over if md reads it. Back up now; prefer mdadm --replace to fail + add "
    "while the disk still reads.",
)


def explain_rebuild_risk(array: MdArray, risk: RebuildRisk) -> tuple[list[Line], list[str]]:
    """The rebuild-risk banner's numbers for one array: bytes left and the URE chance per survivor."""
    sync = array.sync
    if risk.why == "rebuilding" or (sync is not None and sync.running and sync.total_kib is not None):
        source = ("(sync_completed total − done) × 1024", f"({sync.total_kib} − {sync.done_kib}) KiB" if sync else "—")
    else:
        source = ("component_size × 1024 (a rebuild reads it all)", f"{array.component_size_kib} KiB")
    lines: list[Line] = []
    for s in risk.survivors:
        # The figure as people read it, the exact count beside it for whoever checks the arithmetic.
        left = "—" if s.bytes_to_read is None else f"{size(s.bytes_to_read, spoken=True)} ({s.bytes_to_read:,} B)"
        lines.append(Line(f"{s.disk} left", source[0], source[1], left))
        bits = "—" if s.bytes_to_read is None else f"{s.bytes_to_read * 8:.4g}"
        lines.append(
            Line(
                f"{s.disk} URE",
                "1 − exp(−bytes × 8 / rate)",
                f"1 − exp(−{bits} / {s.error_rate_bits:.3g})",
                percent(s.ure_probability),
            )
        )
        lines.append(
            Line(
                f"{s.disk} rate", "rated bits per unrecoverable error", rate_text(s.error_rate_bits, s.rate_assumed), ""
            )
        )
    why = f"{risk.array} is {risk.why}; survivors that are not ok: " + ", ".join(
        f"{s.disk} ({s.verdict}: {', '.join(s.reasons) or 'no reason given'})" for s in risk.survivors
    )
    return lines, [why, *URE_ASSUMPTIONS]


def _kib_s(value: float | None, decimals: int = 2) -> str:
    """A rate the kernel gives in KiB/s, with its unit (the cells leave it to the header)."""
    return DASH if value is None else f"{num(value, decimals)} KiB/s"


def _kib(value: int | None) -> str:
    """A /proc/meminfo figure in words, the exact KiB beside it: ``146.8 MiB (150284 KiB)``."""
    return DASH if value is None else f"{size(value * 1024, spoken=True)} ({value} KiB)"


def _disk(disks: Sequence[DiskCounters], name: str) -> DiskCounters | None:
    return disk_named(disks, name)


def _cpu(cpus: tuple[CpuCounters, ...], cpu: str | int) -> CpuCounters | None:
    return next((c for c in cpus if c.cpu == cpu), None)
