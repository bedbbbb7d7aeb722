"""``--listen HOST:PORT`` and ``--prometheus URL``: parsed once, refused with one sentence."""

from __future__ import annotations

import argparse
import ipaddress
import re
from urllib.parse import urlsplit

DEFAULT_PORT = 10719
"""The exporter's default port. Prometheus's default-port-allocations wiki has
filled 9100-9999; 10719 is above the range new exporters are being given and
is no IANA-registered service, so it collides with neither."""
DEFAULT_LISTEN = f"127.0.0.1:{DEFAULT_PORT}"
"""Localhost only unless told otherwise: metrics name disks and arrays."""

_HOSTNAME = re.compile(r"[A-Za-z0-9]([A-Za-z0-9.-]{0,252})", re.ASCII)


def _short(text: str) -> str:
    from raidtop.untrusted import plain

    shown = plain(text)
    return repr(shown if len(shown) <= 64 else shown[:64] + "…")


def parse_listen(text: str) -> tuple[str, int]:
    """``127.0.0.1:10719``, ``[::1]:10719``, ``0.0.0.0:10719`` or ``name:10719`` -> (host, port).

    Raises ``argparse.ArgumentTypeError`` with one sentence for anything else.
    """
    value = str(text).strip()
    match = re.fullmatch(r"\[([0-9A-Fa-f:.]+)\]:([0-9]{1,5})|([^\[\]:]+):([0-9]{1,5})", value, re.ASCII)
    if match is None:
        raise argparse.ArgumentTypeError(
            f"{_short(value)}: give HOST:PORT, e.g. {DEFAULT_LISTEN}, 0.0.0.0:{DEFAULT_PORT} or [::1]:{DEFAULT_PORT}"
        )
    host = match.group(1) or match.group(3)
    port = int(match.group(2) or match.group(4))
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{_short(value)}: the port must be 1 to 65535")
    if match.group(1) is not None:
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{_short(value)}: {_short(host)} is no IPv6 address") from None
    else:
        try:
            ipaddress.IPv4Address(host)
        except ValueError:
            if _HOSTNAME.fullmatch(host) is None:
                raise argparse.ArgumentTypeError(
                    f"{_short(value)}: {_short(host)} is no host name or address"
                ) from None
    return host, port


def parse_prometheus_url(text: str) -> str:
    """An ``http(s)://host[:port][/prefix]`` URL of a Prometheus server, without a trailing slash."""
    value = str(text).strip()
    parts = urlsplit(value)
    try:
        port = parts.port
    except ValueError:
        port = -1
    if parts.scheme not in ("http", "https") or not parts.hostname or port == -1 or parts.query or parts.fragment:
        raise argparse.ArgumentTypeError(f"{_short(value)}: give the server's address, e.g. http://localhost:9090")
    if any(ord(c) < 33 or ord(c) == 127 for c in value):
        raise argparse.ArgumentTypeError(f"{_short(value)}: spaces or control characters in the URL")
    return value.rstrip("/")
