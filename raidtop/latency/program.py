"""The bpftrace program behind per-member latency histograms, and the sentence that says what it loads.

It attaches to two stable block tracepoints (``block:block_rq_issue`` and
``block:block_rq_complete``), keeps each request's issue time in a map keyed by
device and sector, and adds (complete − issue) in microseconds to a log2
histogram per device. Device-mapper and md issue no requests (they are
bio-based: dm-delay holds a bio, then passes a clone to the device below), so
for them it uses ``block:block_bio_queue`` and ``block:block_bio_complete``
instead: a bio's submission to its end, the latency md sees from that member.
Every interval it prints the histograms as JSON. It never
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
    "raidtop loads a bpftrace program into the kernel: block tracepoints "
    "(block_rq_issue/complete; block_bio_queue/complete for device-mapper members) on {devices}, "
    "to build each member's latency histogram (p50/p99/max); it is unloaded when no latency view is open."
)


ATTACHED = "raidtop: probes attached"
"""What the program's ``BEGIN`` prints; its line arrives only once every probe is attached."""
INTERVAL_DONE = "raidtop: interval printed"
"""What the program prints after each interval's histograms: bpftrace prints nothing for an empty
map (no request completed yet), so this line is how the reader knows bpftrace is not stuck."""


FINER = (("@us1", 1189), ("@us2", 1414), ("@us3", 1682))
"""The histograms of the latencies scaled by 2^(1/4), 2^(1/2), 2^(3/4) (thousandths): a quarter-octave
percentile (:mod:`raidtop.latency.histogram`). Printed before ``@us``, whose line closes the interval."""


def kernel_dev(major: int, minor: int) -> int:
    """The tracepoints' ``dev`` for ``major:minor`` (the kernel's MKDEV: 20 bits of minor)."""
    return (major << 20) | minor


def _numbers(devs: list[tuple[str, int, int]]) -> list[int]:
    return sorted(
        {kernel_dev(major, minor) for _name, major, minor in devs if 0 <= major < 4096 and 0 <= minor < (1 << 20)}
    )


def _pair(issue: str, complete: str, starts: str, numbers: list[int]) -> str:
    cond = " || ".join(f"args->dev == {n}" for n in numbers)
    return (
        f"tracepoint:block:{issue} /{cond}/ {{ {starts}[args->dev, args->sector] = nsecs; }}\n"
        f"tracepoint:block:{complete} /{starts}[args->dev, args->sector]/ {{\n"
        f"  $us = (nsecs - {starts}[args->dev, args->sector]) / 1000;\n"
        f"  @us[args->dev] = hist($us);\n"
        + "".join(f"  {name}[args->dev] = hist($us * {scale} / 1000);\n" for name, scale in FINER)
        + f"  delete({starts}[args->dev, args->sector]);\n}}\n"
    )


def program(
    devs: list[tuple[str, int, int]], interval_s: int = 1, bio_devs: list[tuple[str, int, int]] | None = None
) -> str:
    """The bpftrace source for the devices ``[(name, major, minor), ...]``, printing every ``interval_s``.

    ``devs`` are request-based (blk-mq: disks, NVMe, loop): a request's issue to its completion.
    ``bio_devs`` are bio-based (device-mapper, md), which issue no requests of their own: a
    bio's submission to its end. A request's completion is keyed by its start sector; a bio's
    too, which is why a request-based device is never traced by its bios (the block layer
    advances a bio's sector as its request completes, so the key would not match).
    """
    if not 1 <= interval_s <= 60:
        raise ValueError("an interval of 1 to 60 s")
    rq, bio = _numbers(devs), _numbers(bio_devs or [])
    if not rq and not bio:
        raise ValueError("no valid device numbers")
    probes = (_pair("block_rq_issue", "block_rq_complete", "@start", rq) if rq else "") + (
        _pair("block_bio_queue", "block_bio_complete", "@bio", bio) if bio else ""
    )
    ends = "".join(f"clear({m}); " for m, n in (("@start", rq), ("@bio", bio)) if n)
    finer = "".join(f"print({name}); " for name, _scale in FINER)
    cleared = "".join(f" clear({name});" for name, _scale in FINER)
    return (
        f'BEGIN {{ printf("{ATTACHED}\\n"); }}\n'
        + probes
        + f'interval:s:{interval_s} {{ {finer}print(@us); printf("{INTERVAL_DONE}\\n"); }}\n'
        + f"END {{ {ends}clear(@us);{cleared} }}\n"
    )


def argv(source: str) -> list[str]:
    """The command line: JSON output, a line at a time (a pipe is block-buffered otherwise), the
    program on the command line (no file to trust)."""
    return ["bpftrace", "-B", "line", "-f", "json", "-e", source]
