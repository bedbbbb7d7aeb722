"""`raidtop --web` serves the dashboard to a real browser (headless Chromium)."""

from __future__ import annotations

import asyncio
import base64
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.cli.web.cdp import open_page, websocket_text
from tests.cli.web.server import WebServer, free_port

DATA = Path(__file__).resolve().parents[2] / "data" / "ui" / "root1"
SHOTS = Path(os.environ.get("RAIDTOP_WEB_SHOT_DIR", "/tmp"))
pytestmark = pytest.mark.live


def test_browser_shows_the_dashboard(tmp_path):
    aiohttp = pytest.importorskip("aiohttp")
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        if os.environ.get("CI") == "true":
            pytest.fail("CI must run the browser test: Debian's chromium package is missing")
        pytest.skip("chromium is not installed (apt install chromium)")
    debug_port = free_port()
    server = WebServer(DATA)
    browser = None
    try:
        browser = subprocess.Popen(
            [
                chromium,
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                f"--user-data-dir={tmp_path / 'profile'}",
                f"--remote-debugging-port={debug_port}",
                "--window-size=1280,800",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

        async def drive() -> tuple[str, str]:
            async with aiohttp.ClientSession() as session:
                # Without the printed token the browser gets a 404 and no session.
                page = await open_page(debug_port, f"http://localhost:{server.port}/", session)
                await asyncio.sleep(1)
                refused = await page.evaluate('document.body.textContent')
                assert "not found" in refused and server.sessions() == [] and websocket_text(page) == ""
                await page.call("Page.navigate", url=server.url)
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
        server.stop()
