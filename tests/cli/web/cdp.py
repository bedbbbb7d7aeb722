"""A minimal Chrome DevTools Protocol client (aiohttp websockets) for browser tests."""

from __future__ import annotations

import asyncio
import itertools
import json

import aiohttp


class Page:
    """One browser tab driven over CDP."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        self._ws = ws
        self._ids = itertools.count(1)
        self.events: list[dict] = []
        """Every event received while waiting for replies (e.g. Network.*)."""

    async def call(self, method: str, **params) -> dict:
        """Send one command and wait for its reply (events in between are skipped)."""
        call_id = next(self._ids)
        await self._ws.send_str(json.dumps({"id": call_id, "method": method, "params": params}))
        while True:
            message = json.loads((await self._ws.receive()).data)
            if "method" in message and "id" not in message:
                self.events.append(message)
                continue
            if message.get("id") == call_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})

    async def evaluate(self, expression: str):
        """The value of a JavaScript expression in the page."""
        result = await self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        return result.get("result", {}).get("value")


async def open_page(debug_port: int, url: str, session: aiohttp.ClientSession) -> Page:
    """Connect to the browser's first tab and navigate it to ``url``."""
    for _ in range(100):
        try:
            async with session.get(f"http://127.0.0.1:{debug_port}/json/list") as response:
                targets = [t for t in await response.json() if t.get("type") == "page"]
            if targets:
                break
        except aiohttp.ClientError:
            pass
        await asyncio.sleep(0.1)
    else:
        raise RuntimeError("the browser did not open a page")
    ws = await session.ws_connect(targets[0]["webSocketDebuggerUrl"], max_msg_size=0)
    page = Page(ws)
    await page.call("Page.enable")
    await page.call("Network.enable")
    await page.call("Page.navigate", url=url)
    return page


def websocket_text(page: Page) -> str:
    """Everything the page received over websockets, decoded as far as it is text."""
    import base64

    chunks = []
    for event in page.events:
        if event["method"] != "Network.webSocketFrameReceived":
            continue
        response = event["params"]["response"]
        data = response.get("payloadData", "")
        if response.get("opcode") == 2:  # binary frames arrive base64-encoded
            data = base64.b64decode(data).decode("utf-8", "replace")
        chunks.append(data)
    return "".join(chunks)
