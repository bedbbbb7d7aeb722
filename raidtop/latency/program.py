"""The bpftrace program behind per-member latency histograms, and the sentence that says what it loads.

It attaches to two stable block tracepoints (``block:block_rq_issue`` and
``block:block_rq_complete``), keeps each request's issue time in a map keyed by
device and sector, and adds (complete − issue) in microseconds to a log2
histogram per device; every interval it prints the histograms as JSON. It never
clears them: a request completing between ``print`` and ``clear`` would be lost
(measured: 56 of 2000), so the histograms are cumulative and an interval's is the
difference of two prints (:func:`raidtop.latency.histogram.delta`). Only the
member devices asked for are traced (a filter on ``dev``), so the cost is two
map operations per request on those devices. The tracepoints' ``dev``
is the kernel's internal dev_t: ``major << 20 | minor``.

bpftrace's own ``attached_probes`` line is written *before* it attaches
anything (seen with strace: the line, then the program loads and
``perf_event_open`` calls), so it cannot say tracing has begun. The ``BEGIN``
probe's ``printf`` of :data:`ATTACHED` can: bpftrace reads its output buffer only
once every probe is attached, so that line reaches us after the last attach.
"""

from __future__ import annotations

WHAT_IT_LOADS = (
    "raidtop loads a bpftrace program into the kernel: two block tracepoints "
    "(block_rq_issue, block_rq_complete) on {devices}, to build each member's latency "
    "histogram (p50/p99/max); it is unloaded when no latency view is open."
)


ATTACHED = "raidtop: probes attached"
"""What the program's ``BEGIN`` prints; its line arrives only once every probe is attached."""


def kernel_dev(major: int, minor: int) -> int:
    """The tracepoints' ``dev`` for ``major:minor`` (the kernel's MKDEV: 20 bits of minor)."""
    return (major << 20) | minor


def program(devs: list[tuple[str, int, int]], interval_s: int = 1) -> str:
    """The bpftrace source for the devices ``[(name, major, minor), ...]``, printing every ``interval_s``."""
    if not devs or not 1 <= interval_s <= 60:
        raise ValueError("at least one device and an interval of 1 to 60 s")
    numbers = sorted(
        {kernel_dev(major, minor) for _name, major, minor in devs if 0 <= major < 4096 and 0 <= minor < (1 << 20)}
    )
    if not numbers:
        raise ValueError("no valid device numbers")
    cond = " || ".join(f"args->dev == {n}" for n in numbers)
    return (
        f'BEGIN {{ printf("{ATTACHED}\\n"); }}\n'
        f"tracepoint:block:block_rq_issue /{cond}/ {{ @start[args->dev, args->sector] = nsecs; }}\n"
        f"tracepoint:block:block_rq_complete /@start[args->dev, args->sector]/ {{\n"
        f"  @us[args->dev] = hist((nsecs - @start[args->dev, args->sector]) / 1000);\n"
        f"  delete(@start[args->dev, args->sector]);\n}}\n"
        f"interval:s:{interval_s} {{ print(@us); }}\n"
        f"END {{ clear(@start); clear(@us); }}\n"
    )


def argv(source: str) -> list[str]:
    """The command line: JSON output, a line at a time (a pipe is block-buffered otherwise), the
    program on the command line (no file to trust)."""
    return ["bpftrace", "-B", "line", "-f", "json", "-e", source]
