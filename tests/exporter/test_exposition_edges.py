"""The cached exposition's own promises (raidtop.exporter.exposition), one by one.

test_exposition.py checks the served text against the library's on real
roots; here: a family's bytes are reused exactly while its samples are
unchanged and formatted anew when any part changes, families keep their
order and vanished ones are forgotten, a publish of the same text does not
compress again, and the WSGI answers for every method and path. Expected
text comes from prometheus-client's own ``generate_latest`` over a registry.
"""

from __future__ import annotations

import gzip
from wsgiref.util import setup_testing_defaults

import pytest
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily

from raidtop.exporter import exposition
from raidtop.exporter.exposition import CachedExposition, FamilyFormatter, cached_app


def gauge(name: str, value: float, doc: str = "help", unit: str = "", labels: dict | None = None):
    family = GaugeMetricFamily(name, doc, labels=list(labels or {}), unit=unit)
    family.add_metric(list((labels or {}).values()), value)
    return family


class Fixed:
    def __init__(self, families):
        self.families = families

    def collect(self):
        return self.families


def library(*families) -> bytes:
    registry = CollectorRegistry(auto_describe=False)
    registry.register(Fixed(list(families)))
    return generate_latest(registry)


@pytest.fixture
def formatted(monkeypatch):
    """Names of the families the formatter formatted (a spy over the library's own formatter)."""
    names: list[str] = []
    real = exposition.generate_latest

    def spy(collector):
        names.extend(f.name for f in collector.collect())
        return real(collector)

    monkeypatch.setattr(exposition, "generate_latest", spy)
    return names


def test_the_text_is_the_librarys_in_family_order(formatted):
    families = [gauge("b_one", 1), gauge("a_two", 2.5, labels={"array": "md0"})]
    assert FamilyFormatter().format(families) == library(*families)
    assert formatted == ["b_one", "a_two"]


def test_unchanged_families_are_not_formatted_again(formatted):
    formatter = FamilyFormatter()
    formatter.format([gauge("a", 1), gauge("b", 2)])
    formatted.clear()
    text = formatter.format([gauge("a", 1), gauge("b", 3)])
    assert formatted == ["b"] and text == library(gauge("a", 1), gauge("b", 3))


@pytest.mark.parametrize(
    "changed",
    [
        gauge("a", 1, doc="other help"),
        gauge("a", 1, unit="bytes"),
        gauge("a", 1, labels={"array": "md1"}),
        gauge("a", 2),
    ],
)
def test_any_change_in_a_family_formats_it_anew(formatted, changed):
    formatter = FamilyFormatter()
    formatter.format([gauge("a", 1)])
    formatted.clear()
    assert formatter.format([changed]) == library(changed)
    assert formatted == [changed.name]


def test_a_family_that_vanished_is_forgotten(formatted):
    formatter = FamilyFormatter()
    formatter.format([gauge("a", 1), gauge("b", 2)])
    assert formatter.format([gauge("b", 2)]) == library(gauge("b", 2))
    formatted.clear()
    # Back with the same samples: formatted again, its old bytes were dropped.
    assert formatter.format([gauge("a", 1), gauge("b", 2)]) == library(gauge("a", 1), gauge("b", 2))
    assert formatted == ["a"]


def test_nothing_to_format_is_empty():
    assert FamilyFormatter().format([]) == b""


def test_before_the_first_publish_a_scrape_gets_empty_plain_text():
    assert CachedExposition().body(True) == (b"", False)
    assert CachedExposition().body(False) == (b"", False)


def test_publish_compresses_once_per_new_text(monkeypatch):
    cached = CachedExposition()
    cached.publish(b"x 1\n")
    first = cached.body(True)
    assert first[1] is True and gzip.decompress(first[0]) == b"x 1\n"
    assert cached.body(False) == (b"x 1\n", False)
    compressed: list[bytes] = []
    monkeypatch.setattr(exposition.gzip, "compress", lambda data, level: compressed.append(data) or b"")
    cached.publish(b"x 1\n")
    assert compressed == [] and cached.body(True) == first
    cached.publish(b"x 2\n")
    assert compressed == [b"x 2\n"] and cached.body(False) == (b"x 2\n", False)


def test_an_empty_text_published_first_is_served_without_compressing():
    # Equal to the empty start: nothing to compress, plain bytes until a real text comes.
    cached = CachedExposition()
    cached.publish(b"")
    assert cached.body(True) == (b"", False)


def call(app, method="GET", path="/metrics", encoding=""):
    environ = {"REQUEST_METHOD": method, "PATH_INFO": path, "HTTP_ACCEPT_ENCODING": encoding}
    setup_testing_defaults(environ)
    answer = {}

    def start_response(status, headers):
        answer["status"], answer["headers"] = status, headers

    body = b"".join(app(environ, start_response))
    return answer["status"], answer["headers"], body


@pytest.fixture
def app():
    cached = CachedExposition()
    cached.publish(b"raidtop_up 1\n")
    return cached_app(cached)


def test_get_any_path_serves_the_text_with_its_length(app):
    for path in ("/metrics", "/", "/anything"):
        assert call(app, path=path) == (
            "200 OK",
            [("Content-Type", "text/plain; version=0.0.4; charset=utf-8"), ("Content-Length", "13")],
            b"raidtop_up 1\n",
        )


def test_gzip_only_when_asked(app):
    status, headers, body = call(app, encoding="gzip")
    assert status == "200 OK" and dict(headers)["Content-Encoding"] == "gzip"
    assert dict(headers)["Content-Length"] == str(len(body)) and gzip.decompress(body) == b"raidtop_up 1\n"
    assert "Content-Encoding" not in dict(call(app, encoding="deflate")[1])


def test_options_favicon_and_other_methods(app):
    assert call(app, "OPTIONS") == ("200 OK", [("Allow", "OPTIONS,GET")], b"")
    assert call(app, path="/favicon.ico") == ("200 OK", [], b"")
    assert call(app, "POST") == (
        "405 Method Not Allowed",
        [("Allow", "OPTIONS,GET")],
        b"# HTTP 405 Method Not Allowed: POST; use OPTIONS or GET\n",
    )
    assert call(app, "HEAD")[0] == "405 Method Not Allowed"


def test_a_request_without_a_method_is_a_get(app):
    environ = {"PATH_INFO": "/metrics"}
    answer = {}
    body = app(environ, lambda status, headers: answer.update(status=status))
    assert answer["status"] == "200 OK" and body == [b"raidtop_up 1\n"]
