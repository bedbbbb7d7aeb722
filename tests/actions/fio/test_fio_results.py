"""fio JSON from fio 2.1 to 3.x parses into the same fields, in the same units.

Expected values are read off the files in tests/data/fio (see PROVENANCE.md):
fio 2.x ``io_bytes`` is KiB and latencies are µs; fio 3.x ``io_bytes`` is
bytes and ``clat_ns`` is ns. Every figure here is in bytes and µs.
"""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path

import pytest

from raidtop.actions.fio.results import (
    DirectionResult,
    JsonObjectSplitter,
    parse_fio_json,
    split_json_objects,
)

DATA = Path(__file__).resolve().parents[2] / "data" / "fio"
CORPUS = sorted(DATA.glob("*.json"))


def load(name: str):
    parsed = parse_fio_json((DATA / name).read_text())
    assert parsed.ok, parsed.message
    return parsed.result


def test_the_corpus_is_all_there():
    assert len(CORPUS) == 8


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name)
def test_every_corpus_file_parses_into_the_same_fields(path: Path):
    parsed = parse_fio_json(path.read_text())
    assert parsed.ok and parsed.message is None
    result = parsed.result
    assert result.fio_version.startswith("fio-")
    assert result.jobs
    active = [d for d in (result.read, result.write) if d.active]
    assert active, "every corpus file did some I/O"
    for direction in active:
        assert {f.name for f in fields(direction)} == {f.name for f in fields(DirectionResult)}
        assert direction.iops > 0 and direction.bw_bytes_s > 0 and direction.io_bytes > 0 and direction.total_ios > 0
        assert direction.lat_mean_us is not None and direction.lat_mean_us > 0
        assert direction.lat_p99_us is not None and direction.lat_p99_us > 0
        assert direction.lat_basis == "clat"
    for direction in (result.read, result.write):
        if not direction.active:
            assert direction.lat_mean_us is None and direction.lat_p99_us is None


def test_fio_3_1_nanoseconds_become_microseconds():
    result = load("fio-plot__8x2TBRAID5MDADM_randread-1-1.json")
    read = result.read
    assert result.fio_version == "fio-3.1"
    assert read.iops == pytest.approx(106.131564)
    assert read.io_bytes == 26083328  # io_kbytes present: io_bytes is already bytes
    assert read.bw_bytes_s == 424 * 1024  # no bw_bytes in 3.1: bw KiB/s
    assert read.total_ios == 6368
    assert read.runtime_ms == 60001
    assert read.lat_mean_us == pytest.approx(9361.648047582)  # clat_ns mean 9361648.047582
    assert read.lat_p99_us == pytest.approx(20054.016)  # clat_ns p99 20054016
    assert not result.write.active


def test_fio_3_1_write_with_a_multi_second_tail():
    write = load("fio-plot__8x2TBRAID5MDADM_randwrite-16-64.json").write
    assert write.iops == pytest.approx(465.808962)
    assert write.lat_mean_us == pytest.approx(2005252.57816772)
    assert write.lat_p99_us == pytest.approx(6408896.512)  # 6.4 s


def test_fio_3_6_uses_bw_bytes():
    read = load("fio-plot__ceph-ssd_randread-1-1.json").read
    assert read.bw_bytes_s == 4487639
    assert read.iops == pytest.approx(1095.615073)
    assert read.lat_mean_us == pytest.approx(860.669744547)
    assert read.lat_p99_us == pytest.approx(1318.912)


def test_fio_2_18_microseconds_and_kib():
    read = load("fio-plot__test-data01_randread-01-01.json").read
    assert read.iops == pytest.approx(73.182907)
    assert read.io_bytes == 2932 * 1024  # no io_kbytes: io_bytes was KiB
    assert read.bw_bytes_s == 292 * 1024
    assert read.lat_mean_us == pytest.approx(13643.395634)
    assert read.lat_p99_us == 23168


def test_fio_2_18_numjobs_16_merged_by_group_reporting():
    result = load("fio-plot__test-data01_randread-16-16.json")
    assert len(result.jobs) == 1
    assert result.read.iops == pytest.approx(538.037898)
    assert result.read.lat_p99_us == 1662976
    assert result.read.p99_exact


def test_fio_2_18_write_direction():
    write = load("fio-plot__test-data01_randwrite-01-01.json").write
    assert write.iops == pytest.approx(28.551463)
    assert write.lat_mean_us == pytest.approx(202.206294)
    assert write.lat_p99_us == 2768


def test_fio_2_17_two_stonewalled_groups_one_per_direction():
    result = load("PerfKitBenchmarker__pkb-7fb0c9d8-0_fio.json")
    assert [j.groupid for j in result.jobs] == [0, 1]
    assert result.read.iops == pytest.approx(8086.673998)
    assert result.read.io_bytes == 1294256 * 1024
    assert result.read.lat_mean_us == pytest.approx(238.357679)
    assert result.read.lat_p99_us == 1352
    assert result.write.iops == pytest.approx(2457.017193)
    assert result.write.lat_p99_us == 2384
    # One group per direction: nothing had to be merged.
    assert result.read.p99_exact and result.write.p99_exact


def test_fio_2_1_five_separate_groups_are_time_weighted():
    result = load("PerfKitBenchmarker__fio-parser-sample-result.json")
    assert result.fio_version == "fio-2.1.4"
    assert len(result.jobs) == 5
    # No total_ios in 2.1: IOPS × runtime. Writes: 133 × 5.314 s ≈ 707, 1610 × 5.625 s ≈ 9056.
    assert result.write.total_ios == 707 + 9056
    assert result.write.runtime_ms == 5314 + 5625
    assert result.write.iops == pytest.approx((707 + 9056) / 10.939)
    assert result.write.io_bytes == (361984 + 36244) * 1024
    assert result.write.lat_mean_us == pytest.approx((477734.84 * 707 + 587.02 * 9056) / (707 + 9056))
    # Percentiles of separate jobs cannot be merged: the largest, flagged inexact.
    assert result.write.lat_p99_us == 823296
    assert not result.write.p99_exact
    # Reads: groups 1, 3, 4.
    assert result.read.total_ios == round(253 * 2.788) + round(317 * 28.540) + round(323 * 28.045)
    assert result.read.lat_p99_us == 473088


def test_jobs_of_one_group_reported_separately_are_summed():
    doc = json.loads((DATA / "fio-plot__ceph-ssd_randread-1-1.json").read_text())
    doc["jobs"] = [doc["jobs"][0], dict(doc["jobs"][0], jobname="twin")]
    result = parse_fio_json(doc).result
    assert result.read.iops == pytest.approx(2 * 1095.615073)
    assert result.read.bw_bytes_s == 2 * 4487639
    assert result.read.lat_mean_us == pytest.approx(860.669744547)
    assert result.read.runtime_ms == 60001


def test_lat_percentiles_are_used_when_clat_has_none():
    doc = json.loads((DATA / "fio-plot__ceph-ssd_randread-1-1.json").read_text())
    read = doc["jobs"][0]["read"]
    read["lat_ns"]["percentile"] = read["clat_ns"].pop("percentile")
    result = parse_fio_json(doc).result
    assert result.read.lat_basis == "lat"
    assert result.read.lat_mean_us == pytest.approx(901.837089035)  # lat_ns mean, same basis as p99
    assert result.read.lat_p99_us == pytest.approx(1318.912)


def test_warnings_around_the_json_are_ignored():
    text = (
        "fio: this platform does not support process shared mutexes\n"
        + (DATA / "fio-plot__ceph-ssd_randread-1-1.json").read_text()
        + "\nfio: done\n"
    )
    assert parse_fio_json(text).result.read.iops == pytest.approx(1095.615073)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", "empty"),
        ("fio: engine libaio not loadable\n", "no JSON object in fio output: fio: engine libaio not loadable"),
        ('{"fio version": "fio-3.33", "jobs": [', "truncated"),
        ("[1, 2]", "no JSON object"),
        ('{"fio version": "fio-3.33"}', "no 'jobs' list"),
        ('{"jobs": []}', "lists no jobs"),
        ('{"jobs": [42]}', "job 0 is not an object"),
        ('{"jobs": [{"jobname": "x", "read": "fast"}]}', "job 0 (x) is malformed"),
        ('{"jobs": [{"jobname": "x", "read": {"iops": "lots"}}]}', "job 0 (x) is malformed"),
        ('{"jobs": [{"read": {}}], "x": tru}', "not valid JSON"),
    ],
)
def test_malformed_output_gives_a_message_not_an_exception(text: str, words: str):
    parsed = parse_fio_json(text)
    assert not parsed.ok and parsed.result is None
    assert words in parsed.message


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name)
def test_every_truncation_of_a_corpus_file_gives_a_message(path: Path):
    text = path.read_text()
    for cut in range(1, len(text.rstrip()) - 1, 211):
        parsed = parse_fio_json(text[:cut])
        assert parsed.result is None and parsed.message, cut


def test_bytes_input_is_decoded():
    assert parse_fio_json((DATA / "fio-plot__ceph-ssd_randread-1-1.json").read_bytes()).ok


# ---------------------------------------------------------------- the stream splitter


def test_status_stream_splits_into_objects_whatever_the_chunking():
    one = (DATA / "fio-plot__test-data01_randread-01-01.json").read_text()
    two = (DATA / "fio-plot__ceph-ssd_randread-1-1.json").read_text()
    stream = one + "fio: a warning between status blocks\n" + two
    assert split_json_objects(stream) == [one.strip(), two.strip()]
    splitter = JsonObjectSplitter()
    pieces: list[str] = []
    for start in range(0, len(stream), 7):
        pieces += splitter.feed(stream[start : start + 7])
    assert pieces == [one.strip(), two.strip()]
    assert splitter.noise == ["fio: a warning between status blocks"]


def test_braces_and_quotes_inside_strings_do_not_end_an_object():
    doc = {"jobs": [{"jobname": 'odd {name} with "quotes" and \\ }'}]}
    text = json.dumps(doc)
    assert split_json_objects(text + text) == [text, text]


def test_a_truncated_tail_is_pending_not_emitted():
    splitter = JsonObjectSplitter()
    assert splitter.feed('{"a": 1}\n{"b": [') == ['{"a": 1}']
    assert splitter.pending == '{"b": ['
