"""The slow-member mark from latency distributions, and its fall-back to the average await."""

from __future__ import annotations

from dataclasses import MISSING, fields
from pathlib import Path

from raidtop.latency.histogram import delta, from_values, parse_hist_message
from raidtop.latency.summary import MemberLatency, summarize
from raidtop.model.md import MdArray, MdMember
from raidtop.model.snapshot import DiskIO
from raidtop.presentation.member_latency import BASIS_AWAIT, BASIS_P99, MIN_REQUESTS, slow_members_judged

RECORDED = Path(__file__).parent.parent / "data" / "bpftrace" / "raidtop-loop-members.jsonl"
KEYS = {str(7 << 20 | n): f"loop{n}" for n in range(3)}
ARRAY = MdArray(
    "md0",
    "raid5",
    "clean",
    "ok",
    3,
    0,
    members=tuple(MdMember(f"loop{n}", slot=n, roles=("in_sync",)) for n in range(3)),
)


def disk_io(name: str, await_ms: float | None) -> DiskIO:
    unknown = {f.name: None for f in fields(DiskIO) if f.default is MISSING and f.name not in ("name", "kind")}
    return DiskIO(**(unknown | {"name": name, "kind": "loop", "r_await_ms": await_ms}))


def recorded_interval() -> dict[str, MemberLatency]:
    first, second = [h for h in map(parse_hist_message, RECORDED.read_text().splitlines()) if h][:2]
    return {KEYS[k]: summarize(delta(second[k], first[k])) for k in KEYS}


def slow_leg(delay_us: int) -> MemberLatency:
    """A member behind dm-delay: every request waits ``delay_us`` on top of the loop device's own time."""
    return summarize(from_values([delay_us + 20 + i % 40 for i in range(1000)]))


def test_three_alike_members_of_the_recording_none_slow_by_the_distribution():
    assert slow_members_judged(ARRAY, {}, recorded_interval()) == (set(), BASIS_P99)


def test_a_member_whose_tail_is_far_above_its_siblings_is_slow_by_p99():
    latencies = recorded_interval() | {"loop1": slow_leg(50_000)}
    assert slow_members_judged(ARRAY, {}, latencies) == ({"loop1"}, BASIS_P99)


def test_the_distribution_overrides_an_average_that_says_otherwise():
    # await says loop2 is slow (one interval's average), the distributions say all are alike.
    disks = {"loop0": disk_io("loop0", 1.0), "loop1": disk_io("loop1", 1.0), "loop2": disk_io("loop2", 40.0)}
    assert slow_members_judged(ARRAY, disks, {}) == ({"loop2"}, BASIS_AWAIT)
    assert slow_members_judged(ARRAY, disks, recorded_interval()) == (set(), BASIS_P99)


def test_too_few_requests_fall_back_to_the_average_await():
    few = {name: summarize(from_values([30] * (MIN_REQUESTS - 1))) for name in ("loop0", "loop1")}
    few["loop2"] = summarize(from_values([90_000] * (MIN_REQUESTS - 1)))
    disks = {"loop0": disk_io("loop0", 1.0), "loop1": disk_io("loop1", 1.0), "loop2": disk_io("loop2", 90.0)}
    assert slow_members_judged(ARRAY, disks, few) == ({"loop2"}, BASIS_AWAIT)


def test_a_faulty_member_is_not_a_sibling_nor_judged():
    array = MdArray(
        "md0",
        "raid1",
        "clean",
        "degraded",
        2,
        1,
        members=(MdMember("loop0", slot=0, roles=("in_sync",)), MdMember("loop1", roles=("faulty",))),
    )
    latencies = {"loop0": slow_leg(0), "loop1": slow_leg(50_000)}
    assert slow_members_judged(array, {}, latencies) == (set(), BASIS_AWAIT)


def test_the_readme_states_the_rule_and_the_sentence_raidtop_shows():
    from raidtop.latency.program import WHAT_IT_LOADS
    from raidtop.presentation.md import SLOW_FACTOR, SLOW_FLOOR_MS
    from raidtop.presentation.member_latency import BASIS_WORDS

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    section = " ".join(readme[readme.index("## Latency per member as a distribution") :].split()[:900])
    assert f"at least {SLOW_FLOOR_MS:.0f} ms and more than {SLOW_FACTOR:.0f}×" in section
    assert f"{MIN_REQUESTS} or more requests" in section
    assert " ".join(WHAT_IT_LOADS.format(devices="DEVICES").split()) in section.replace("*", "")
    assert BASIS_WORDS[BASIS_AWAIT].split(" (")[0] in section.replace("*", "")


def test_the_slow_rules_median_is_the_statistics_modules():
    import random
    import statistics

    from raidtop.presentation.md import median

    rng = random.Random(30)
    for count in (1, 2, 3, 4, 7, 8):
        values = [rng.choice((0.5, 1.0, 3.0, 12.5, 100.0)) * rng.random() for _ in range(count)]
        assert median(values) == statistics.median(values)
        assert median(iter(values)) == statistics.median(values)  # a generator, as the p99 rule passes it
