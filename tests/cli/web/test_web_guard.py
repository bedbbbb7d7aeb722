"""``raidtop --web`` opens a session only for its own page at its printed address.

Reproduces issue 11 item 4: textual-serve accepted a WebSocket from any
Origin and any Host, so a page on another site could open the session and
send keys (Tuning, Benchmarks and Lab included). A real server on a free
port, a real aiohttp client doing real handshakes; the sentinel is that no
refused request ever started a raidtop session process.
"""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.web.server import PROJECT, WebServer

aiohttp = pytest.importorskip("aiohttp")
pytest.importorskip("textual_serve")

DATA = Path(__file__).resolve().parents[2] / "data" / "ui" / "root1"


@pytest.fixture(scope="module")
def server():
    web = WebServer(DATA)
    yield web
    web.stop()


async def handshake(url: str, **headers: str) -> int:
    """The HTTP status of a WebSocket handshake (101 when the session opened)."""
    async with aiohttp.ClientSession() as session:
        try:
            async with session.ws_connect(url, headers=headers, timeout=aiohttp.ClientWSTimeout(ws_close=5)) as ws:
                await ws.close()
                return 101
        except aiohttp.WSServerHandshakeError as exc:
            return exc.status


async def get(url: str, **headers: str) -> tuple[int, str, dict]:
    async with aiohttp.ClientSession() as session, session.get(url, headers=headers) as response:
        return response.status, await response.text(), dict(response.headers)


def ws_url(server: WebServer, token: str | None = None) -> str:
    return f"ws://localhost:{server.port}/{token if token is not None else server.token}/ws?width=80&height=24"


def own_origin(server: WebServer) -> str:
    return f"http://localhost:{server.port}"


@pytest.mark.parametrize(
    ("case", "status"),
    [
        ("foreign origin", 403),
        ("no origin", 403),
        ("null origin", 403),
        ("foreign host", 403),
        ("rebound host", 403),
        ("no token", 404),
        ("wrong token", 404),
        ("token prefix", 404),
    ],
)
def test_a_foreign_websocket_is_refused_and_starts_nothing(server, case, status):
    url, origin, headers = ws_url(server), own_origin(server), {}
    if case == "foreign origin":
        origin = "https://evil.example"
    elif case == "null origin":
        origin = "null"  # a sandboxed iframe or a file:// page
    elif case == "foreign host":
        headers["Host"] = "evil.example"
    elif case == "rebound host":  # DNS rebinding: evil.example now resolves to 127.0.0.1
        headers["Host"] = f"evil.example:{server.port}"
        origin = f"http://evil.example:{server.port}"
    elif case == "no token":
        url = f"ws://localhost:{server.port}/ws"
    elif case == "wrong token":
        url = ws_url(server, "A" * len(server.token))
    elif case == "token prefix":
        url = ws_url(server, server.token[:-1])
    if case != "no origin":
        headers["Origin"] = origin
    assert asyncio.run(handshake(url, **headers)) == status
    assert server.sessions() == []  # no raidtop process was started for it


def test_pages_need_the_token_and_the_host(server):
    status, _, _ = asyncio.run(get(f"http://localhost:{server.port}/"))
    assert status == 404
    status, _, _ = asyncio.run(get(server.url, Host="evil.example"))
    assert status == 403
    status, page, headers = asyncio.run(get(server.url))
    assert status == 200 and headers.get("Referrer-Policy") == "no-referrer"
    # The page's own websocket and scripts are under the token too.
    assert f"ws://localhost:{server.port}/{server.token}/ws" in page
    assert f"/{server.token}/static/js/textual.js" in page
    assert asyncio.run(get(f"http://localhost:{server.port}/{server.token}/static/js/textual.js"))[0] == 200
    assert asyncio.run(get(f"http://localhost:{server.port}/static/js/textual.js"))[0] == 404
    assert server.sessions() == []


DASHBOARD = ("raidtop", "Disks", "CPU", "Sensors")


def test_the_own_page_gets_the_dashboard(server):
    async def session() -> str:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 90  # bounded: a raidtop process starts and draws (slow on a loaded machine)
        async with aiohttp.ClientSession() as client:
            async with client.ws_connect(ws_url(server), headers={"Origin": own_origin(server)}) as ws:
                await ws.send_json(["resize", {"width": 120, "height": 40}])
                received = ""
                while not all(text in received for text in DASHBOARD) and loop.time() < deadline:
                    try:
                        message = await ws.receive(timeout=1)
                    except TimeoutError:
                        continue
                    if message.type == aiohttp.WSMsgType.BINARY:
                        received += message.data.decode("utf-8", "replace")
                    elif message.type != aiohttp.WSMsgType.TEXT:
                        break
                assert len(server.sessions()) == 1  # this connection's own raidtop
                return received

    received = asyncio.run(session())
    for text in DASHBOARD:
        assert text in received, text


def test_the_token_is_printed_once_and_never_logged():
    """Requests, served and refused, leave no copy of the token on the terminal."""
    server = WebServer(DATA)
    try:
        assert asyncio.run(get(server.url))[0] == 200
        assert asyncio.run(get(f"{server.url}static/js/textual.js"))[0] == 200
        assert asyncio.run(get(f"{server.url}nothing-here"))[0] == 404
        assert asyncio.run(get(server.url, Host="evil.example"))[0] == 403
        # A session too: the WebSocket's path holds the token as well.
        assert asyncio.run(handshake(ws_url(server), Origin=own_origin(server))) == 101
    finally:
        server.stop_and_read()
    printed = server.output + server.rest
    assert printed.count(server.token) == 1, printed
    assert "GET /" not in printed  # no access-log line at all


def test_each_start_has_a_new_token():
    first, second = WebServer(DATA), WebServer(DATA)
    try:
        assert first.token != second.token and len(first.token) >= 43
    finally:
        first.stop()
        second.stop()


def test_a_port_in_use_is_one_line():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run(
            [sys.executable, "-m", "raidtop", "--web", "--port", str(port), "--root", str(DATA)],
            capture_output=True,
            text=True,
            timeout=60,
            cwd=PROJECT,
        )
    assert result.returncode == 1, result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith(f"raidtop: cannot serve on localhost port {port}") and "Traceback" not in result.stderr


@pytest.mark.parametrize("port", ["0", "65536", "http", "-1"])
def test_a_bad_port_is_one_line(port):
    result = subprocess.run(
        [sys.executable, "-m", "raidtop", "--web", "--port", port, "--root", str(DATA)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=PROJECT,
    )
    assert result.returncode == 2
    (line,) = result.stderr.splitlines()
    assert "--port" in line and "TCP port from 1 to 65535" in line
