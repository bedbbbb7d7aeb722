"""Small real servers on 127.0.0.1 for the fleet's attack tests; each stops by itself.

A hostile exporter (any exposition text, for a real Prometheus to scrape), a
server answering any bytes to every request (a fake Prometheus API for what a
real one cannot send, such as JSON nested 200,000 deep) and a server that
answers one byte every 2 s.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable

LIFETIME_S = 120.0
"""Every server here stops by itself after this long, whatever the test does."""


class Server:
    """Accepts connections on a free localhost port and hands each to ``handle`` in a daemon thread."""

    def __init__(self, handle: Callable[[socket.socket], None], lifetime_s: float = LIFETIME_S) -> None:
        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(16)
        self._sock.settimeout(0.2)
        self.port = self._sock.getsockname()[1]
        self.address = f"127.0.0.1:{self.port}"
        self.url = f"http://{self.address}"
        self._handle = handle
        self._end = time.monotonic() + lifetime_s
        self._stop = threading.Event()
        self.requests: list[bytes] = []
        """The head of every request received (request line and headers)."""
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        with self._sock:
            while not self._stop.is_set() and time.monotonic() < self._end:
                try:
                    conn, _ = self._sock.accept()
                except (TimeoutError, OSError):
                    continue
                threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            try:
                conn.settimeout(5)
                self.requests.append(self._read_request(conn))
                self._handle(conn)
            except OSError:
                pass

    @staticmethod
    def _read_request(conn: socket.socket) -> bytes:
        data = b""
        while b"\r\n\r\n" not in data and len(data) < 65536:
            chunk = conn.recv(4096)
            if not chunk:
                break
            data += chunk
        return data

    def close(self) -> None:
        """Stop accepting (connections being served end with their handler)."""
        self._stop.set()


def answering(body: Callable[[], bytes], content_type: str = "text/plain; version=0.0.4") -> Server:
    """A server answering 200 with ``body()`` to every request."""

    def handle(conn: socket.socket) -> None:
        data = body()
        conn.sendall(
            b"HTTP/1.1 200 OK\r\nContent-Type: "
            + content_type.encode()
            + b"\r\nContent-Length: "
            + str(len(data)).encode()
            + b"\r\nConnection: close\r\n\r\n"
            + data
        )

    return Server(handle)


def dribbling(every_s: float = 2.0) -> Server:
    """A server that answers a valid-looking HTTP response one byte every ``every_s`` seconds, for a minute."""
    response = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n" + b" " * 100000

    def handle(conn: socket.socket) -> None:
        end = time.monotonic() + 60
        for byte in response:
            if time.monotonic() > end:
                return
            conn.sendall(bytes([byte]))
            time.sleep(every_s)

    return Server(handle)
