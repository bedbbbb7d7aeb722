"""The exposition text, formatted once per sample and served as cached bytes.

prometheus-client formats its text on every scrape; at 64 arrays x 16 members
that is ~9,000 samples and ~100 ms of Python per scrape, and it would run
while the sampling thread holds the GIL. Here the sampling thread formats
instead, family by family, and keeps a family's bytes for as long as its
samples do not change (state and role one-hots, the info families and the
limits rarely do). A scrape hands out the last bytes: no formatting, no
sysfs, no /proc.

The formatter is still the library's own (``generate_latest`` over one family
at a time), so the text is exactly what its registry would serve, and the HTTP
server is still its own (``start_http_server``, with its TLS options); only
the WSGI application behind it is swapped for :func:`cached_app`.
"""

from __future__ import annotations

import gzip
import threading
from collections.abc import Callable, Iterable

from prometheus_client import CONTENT_TYPE_PLAIN_0_0_4, generate_latest
from prometheus_client.exposition import gzip_accepted
from prometheus_client.metrics_core import Metric

GZIP_LEVEL = 6
"""zlib's default trade: a 770 kB page shrinks ~20x in a few ms, paid once per changed sample."""


class _One:
    """A Collector of one family: lets the library format a single family."""

    def __init__(self, family: Metric) -> None:
        self._family = family

    def collect(self) -> Iterable[Metric]:
        return [self._family]


class FamilyFormatter:
    """Formats families with the library's formatter, reusing a family's bytes while its samples are unchanged."""

    def __init__(self) -> None:
        self._cache: dict[str, tuple[tuple, bytes]] = {}

    def format(self, families: Iterable[Metric]) -> bytes:
        """The text exposition of ``families``, in their order."""
        parts: list[bytes] = []
        seen: dict[str, tuple[tuple, bytes]] = {}
        for family in families:
            # Samples are namedtuples of plain values (labels a dict): equality is the whole content.
            key = (family.type, family.documentation, family.unit, family.samples)
            cached = self._cache.get(family.name)
            text = cached[1] if cached is not None and cached[0] == key else generate_latest(_One(family))
            seen[family.name] = (key, text)
            parts.append(text)
        self._cache = seen  # families that vanished (no array left) are forgotten
        return b"".join(parts)


class CachedExposition:
    """The bytes a scrape gets: replaced by the sampling thread, read by the HTTP threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._plain = b""
        self._gzipped: bytes | None = None

    def publish(self, text: bytes) -> None:
        """Make ``text`` the answer to every following scrape (compressed here, not in a scrape)."""
        if text == self._plain:
            return
        gzipped = gzip.compress(text, GZIP_LEVEL)
        with self._lock:
            self._plain, self._gzipped = text, gzipped

    def body(self, want_gzip: bool) -> tuple[bytes, bool]:
        """The latest bytes, gzipped when asked and available; the flag says whether they are."""
        with self._lock:
            if want_gzip and self._gzipped is not None:
                return self._gzipped, True
            return self._plain, False


def cached_app(exposition: CachedExposition) -> Callable:
    """A WSGI app answering like prometheus-client's, from ``exposition`` (text format 0.0.4, any path)."""

    def app(environ, start_response):
        method = environ.get("REQUEST_METHOD", "GET")
        if method == "OPTIONS":
            start_response("200 OK", [("Allow", "OPTIONS,GET")])
            return [b""]
        if method != "GET":
            start_response("405 Method Not Allowed", [("Allow", "OPTIONS,GET")])
            return [f"# HTTP 405 Method Not Allowed: {method}; use OPTIONS or GET\n".encode()]
        if environ.get("PATH_INFO") == "/favicon.ico":
            start_response("200 OK", [])
            return [b""]
        body, gzipped = exposition.body(gzip_accepted(environ.get("HTTP_ACCEPT_ENCODING", "")))
        headers = [("Content-Type", CONTENT_TYPE_PLAIN_0_0_4), ("Content-Length", str(len(body)))]
        if gzipped:
            headers.append(("Content-Encoding", "gzip"))
        start_response("200 OK", headers)
        return [body]

    return app
