"""One HTTP GET bounded in size and in total time, and the credentials it may carry.

``urllib``'s ``timeout`` bounds each socket operation, not the request: a
server sending one byte every 2 s never trips a 5 s timeout and holds the
reader forever. Here a watchdog shuts the socket down when the whole
request's deadline passes, which wakes the blocked read at once, however
the server dribbles (headers included).
"""

from __future__ import annotations

import base64
import http.client
import os
import socket
import ssl
import stat
import threading
from pathlib import Path
from urllib.parse import urlsplit

from raidtop.model.frozen import frozen_dataclass
from raidtop.safeio import read_bounded
from raidtop.untrusted import plain

SECRET_LIMIT = 64 * 1024
"""A token or a user:password line is far below this."""


class FetchError(OSError):
    """The GET failed; ``str()`` is one sentence (never a credential)."""


class TimedOut(FetchError):
    """The whole request did not finish within its deadline."""


@frozen_dataclass
class Answer:
    """What the server said: its status and at most ``limit`` bytes of body."""

    status: int
    body: bytes


@frozen_dataclass(repr=False)
class Credentials:
    """The ``Authorization`` header and TLS trust for one server (never shown, never on argv)."""

    authorization: str | None = None
    ca_file: str | None = None

    def __repr__(self) -> str:
        return f"Credentials(authorization={'set' if self.authorization else None}, ca_file={self.ca_file!r})"

    def ssl_context(self) -> ssl.SSLContext:
        """The system's trust store, or only the CA bundle given."""
        return ssl.create_default_context(cafile=self.ca_file)


def read_secret(path: str | os.PathLike[str], what: str) -> str:
    """The first line of a secret file; refuses links, non-files and files others can read.

    Raises :class:`FetchError` with one sentence.
    """
    try:
        data = read_bounded(path, SECRET_LIMIT, follow_links=False)
        mode = os.stat(path, follow_symlinks=False).st_mode
    except OSError as exc:
        raise FetchError(f"{what} {plain(str(path))}: {plain(exc.strerror or str(exc))}") from None
    if mode & stat.S_IROTH:
        raise FetchError(f"{what} {plain(str(path))} is readable by every user: chmod o-r it first")
    lines = data.decode("utf-8", "replace").splitlines()
    secret = lines[0].strip() if lines else ""
    if not secret or any(ord(c) < 32 or ord(c) == 127 for c in secret):
        raise FetchError(f"{what} {plain(str(path))}: the first line must hold it, without control characters")
    return secret


def credentials(
    *, bearer_token_file: Path | None = None, basic_auth_file: Path | None = None, ca_file: Path | None = None
) -> Credentials:
    """Credentials from files, as Prometheus's own ``bearer_token_file`` / ``password_file`` do."""
    authorization = None
    if bearer_token_file is not None:
        authorization = "Bearer " + read_secret(bearer_token_file, "--bearer-token-file")
    elif basic_auth_file is not None:
        pair = read_secret(basic_auth_file, "--basic-auth-file")
        if ":" not in pair:
            raise FetchError(f"--basic-auth-file {plain(str(basic_auth_file))}: give one line USER:PASSWORD")
        authorization = "Basic " + base64.b64encode(pair.encode()).decode("ascii")
    if ca_file is not None:
        try:
            ssl.create_default_context(cafile=str(ca_file))
        except (OSError, ssl.SSLError) as exc:
            reason = plain(getattr(exc, "strerror", None) or exc)
            raise FetchError(f"--ca-file {plain(str(ca_file))}: {reason}") from None
    return Credentials(authorization, None if ca_file is None else str(ca_file))


def get(url: str, *, timeout_s: float, limit: int, auth: Credentials = Credentials()) -> Answer:
    """GET ``url`` (http or https) within ``timeout_s`` in all; more than ``limit`` bytes is refused.

    Raises :class:`FetchError` with one sentence.
    """
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.scheme == "https":
        conn: http.client.HTTPConnection = http.client.HTTPSConnection(
            host, parts.port, timeout=timeout_s, context=auth.ssl_context()
        )
    else:
        conn = http.client.HTTPConnection(host, parts.port, timeout=timeout_s)
    expired = threading.Event()

    def expire() -> None:
        expired.set()
        sock = conn.sock
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)  # wakes the read blocked in the other thread
            except OSError:
                pass

    watchdog = threading.Timer(timeout_s, expire)
    watchdog.daemon = True
    watchdog.start()
    headers = {"Accept": "application/json", "User-Agent": "raidtop-fleet"}
    if auth.authorization:
        headers["Authorization"] = auth.authorization
    try:
        conn.request("GET", (parts.path or "/") + (f"?{parts.query}" if parts.query else ""), headers=headers)
        answer = conn.getresponse()
        body = bytearray()
        while chunk := answer.read(65536):
            body += chunk
            if len(body) > limit:
                raise FetchError(f"sent more than {limit >> 20} MiB; refused")
        if expired.is_set():
            raise TimedOut(f"no complete answer within {timeout_s:g} s")
        return Answer(answer.status, bytes(body))
    except FetchError:
        raise
    except (OSError, http.client.HTTPException, ValueError) as exc:
        if expired.is_set():
            raise TimedOut(f"no complete answer within {timeout_s:g} s") from None
        reason = getattr(exc, "reason", None) or getattr(exc, "strerror", None) or exc
        raise FetchError(plain(str(reason))[:200] or type(exc).__name__) from None
    finally:
        watchdog.cancel()
        conn.close()
