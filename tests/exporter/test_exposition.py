"""The cached exposition: the library's own text, formatted by the sampling thread, never by a scrape."""

from __future__ import annotations

import gzip
import io
import shutil
import subprocess
import urllib.request
from pathlib import Path
from wsgiref.util import setup_testing_defaults

import pytest
from prometheus_client import CollectorRegistry, generate_latest

from raidtop.collect.sampler import Sampler
from raidtop.exporter.exposition import cached_app
from raidtop.exporter.service import Exporter
from tests.exporter import procs

PROJECT = Path(__file__).resolve().parents[2]
PROCFS = PROJECT / "tests" / "data" / "md" / "roots" / "prometheus-procfs"


class Roots:
    """A source that samples whichever root the test points it at."""

    def __init__(self, root: Path) -> None:
        self.sampler = Sampler(root)

    def __call__(self):
        return self.sampler.sample()

    def queues(self, snapshot):
        return {}


def library_text(exporter: Exporter) -> bytes:
    registry = CollectorRegistry(auto_describe=False)
    registry.register(exporter.metrics)
    return generate_latest(registry)


def call(app, method: str = "GET", encoding: str = "") -> tuple[str, dict, bytes]:
    environ = {"REQUEST_METHOD": method, "PATH_INFO": "/metrics", "HTTP_ACCEPT_ENCODING": encoding}
    setup_testing_defaults(environ)
    answer: dict = {}

    def start_response(status, headers):
        answer["status"], answer["headers"] = status, dict(headers)

    body = b"".join(app(environ, start_response))
    return answer["status"], answer["headers"], body


def test_the_cached_text_is_the_librarys_text_after_every_change(tmp_path) -> None:
    exporter = Exporter(Roots(PROCFS), 1.0)
    texts = []
    for root in (PROCFS, procs.clean_root(tmp_path), PROCFS, PROCFS):
        exporter.source.sampler = Sampler(root)  # arrays appear, vanish and come back: no stale family survives
        exporter.sample_once()
        served = exporter.exposition.body(False)[0]
        assert served == library_text(exporter)
        texts.append(served)
    assert b'array="md127"' in texts[0] and b'array="md127"' not in texts[1]


def test_a_scrape_only_hands_out_bytes(tmp_path) -> None:
    exporter = Exporter(Roots(PROCFS), 1.0)
    exporter.sample_once()
    expected = library_text(exporter)

    def forbidden():
        raise AssertionError("a scrape asked the collector")

    exporter.metrics.collect = forbidden  # a scrape that formatted (or sampled) would call it
    app = cached_app(exporter.exposition)
    status, headers, body = call(app)
    assert status == "200 OK" and body == expected
    assert headers["Content-Type"] == "text/plain; version=0.0.4; charset=utf-8"
    status, headers, zipped = call(app, encoding="gzip, deflate")
    assert headers["Content-Encoding"] == "gzip" and gzip.decompress(zipped) == expected
    status, _headers, body = call(app, method="POST")
    assert status.startswith("405") and b"use OPTIONS or GET" in body


def test_what_the_server_sends_is_clean_for_promtool(tmp_path) -> None:
    port = procs.free_port()
    proc = procs.raidtop("--root", str(PROCFS), "exporter", "--listen", f"127.0.0.1:{port}", "--interval", "0.2")
    try:
        plain = procs.wait_http(f"http://127.0.0.1:{port}/metrics")
        request = urllib.request.Request(f"http://127.0.0.1:{port}/metrics", headers={"Accept-Encoding": "gzip"})
        with urllib.request.urlopen(request, timeout=10) as answer:
            assert answer.headers["Content-Encoding"] == "gzip"
            zipped = gzip.GzipFile(fileobj=io.BytesIO(answer.read())).read()
    finally:
        procs.stop(proc)
    for text in (plain, zipped):
        assert b"raidtop_md_state{" in text and b"process_resident_memory_bytes" in text
    promtool = shutil.which("promtool")
    if promtool is None:
        pytest.skip("promtool not installed (.ci/run installs Debian's prometheus)")
    for text in (plain, zipped):
        lint = subprocess.run([promtool, "check", "metrics"], input=text, capture_output=True)
        assert lint.returncode == 0 and lint.stdout == b"" and lint.stderr == b""
