"""`raidtop --web` serves the dashboard to a real browser (headless Chromium)."""

from __future__ import annotations

import asyncio
import base64
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .cdp import open_page, websocket_text

DATA = Path(__file__).resolve().parent.parent / "data" / "ui" / "root1"
SHOTS = Path(os.environ.get("RAIDTOP_WEB_SHOT_DIR", "/tmp"))
pytestmark = pytest.mark.live


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, process: subprocess.Popen) -> None:
    for _ in range(300):  # bounded: the server needs a Python start (slow on a loaded machine)
        if process.poll() is not None:
            raise AssertionError(f"raidtop --web exited: {process.stdout.read()}")
        try:
            socket.create_connection(("localhost", port), 0.2).close()
            return
        except OSError:
            time.sleep(0.1)
    raise AssertionError("raidtop --web never listened")


def test_browser_shows_the_dashboard(tmp_path):
    aiohttp = pytest.importorskip("aiohttp")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        if os.environ.get("CI") == "true":
            pytest.fail("CI must run the browser test: Debian's chromium package is missing")
        pytest.skip("chromium is not installed (apt install chromium)")
    port, debug_port = free_port(), free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "raidtop", "--web", "--port", str(port), "--root", str(DATA)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    browser = None
    try:
        wait_for_port(port, server)
        browser = subprocess.Popen(
            [chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={tmp_path / 'profile'}", f"--remote-debugging-port={debug_port}",
             "--window-size=1280,800", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )

        async def drive() -> tuple[str, str]:
            async with aiohttp.ClientSession() as session:
                page = await open_page(debug_port, f"http://localhost:{port}", session)
                received = ""
                for _ in range(240):  # bounded wait for the session to draw
                    await asyncio.sleep(0.25)
                    await page.evaluate("1")  # pumps queued events
                    received = websocket_text(page)
                    if all(text in received for text in ("Disks", "Sensors", "sdq")):
                        break
                intro = await page.evaluate('document.body.textContent.replace(/\\s+/g, " ")')
                shot = await page.call("Page.captureScreenshot", format="png")
                (SHOTS / "raidtop-web.png").write_bytes(base64.b64decode(shot["data"]))
                return intro, received

        intro, received = asyncio.run(drive())
        assert "raidtop" in intro  # the page names the app
        # The page's own websocket carried the dashboard: its panel titles and a device.
        for text in ("raidtop", "Disks", "CPU", "Memory / VM", "Sensors", "sdq"):
            assert text in received, text
    finally:
        if browser is not None:
            browser.kill()
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
