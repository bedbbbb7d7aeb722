"""``raidtop --web``: the dashboard in a browser, for the one person holding the address.

textual-serve accepts a WebSocket from any page and any Host: a site the
admin visits could open a session on ``ws://localhost:8000/ws`` and type into
Tuning, Benchmarks and the Lab. :class:`GuardedServer` serves everything under
a random path (``http://localhost:PORT/<token>/``) printed once at start, and
refuses, before any session starts:

* a Host header that is not the served address (DNS rebinding);
* a path without the token (a guessed port is not enough);
* a WebSocket whose Origin is missing or not the served address.
"""

from __future__ import annotations

import logging
import secrets

import aiohttp_jinja2
import jinja2
from aiohttp import web
from textual_serve.server import Server

TOKEN_BYTES = 32
"""secrets.token_urlsafe(32): 43 characters, 256 bits."""


def served_hosts(port: int) -> frozenset[str]:
    """The Host values a browser sends for raidtop's own address (localhost binds both families)."""
    return frozenset({f"localhost:{port}", f"127.0.0.1:{port}", f"[::1]:{port}"})


class GuardedServer(Server):
    """textual-serve's Server, reachable only under ``/<token>/`` and only from its own pages."""

    def __init__(self, command: str, port: int, token: str | None = None, title: str = "raidtop") -> None:
        super().__init__(command, host="localhost", port=port, title=title)
        self.token = token or secrets.token_urlsafe(TOKEN_BYTES)
        self.hosts = served_hosts(port)
        self.origins = frozenset(f"http://{host}" for host in self.hosts)

    @property
    def url(self) -> str:
        """The address to open (the token is the key: whoever has it gets a root session)."""
        return f"{self.public_url}/{self.token}/"

    async def _make_app(self) -> web.Application:
        # textual-serve's routes, under the token; nothing is served outside it.
        app = web.Application(middlewares=[self._guard])
        aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(self.templates_path))
        prefix = f"/{self.token}"
        app.add_routes(
            [
                web.get(f"{prefix}/", self.handle_index, name="index"),
                web.get(f"{prefix}/ws", self.handle_websocket, name="websocket"),
                web.get(f"{prefix}/download/{{key}}", self.handle_download, name="download"),
                web.static(f"{prefix}/static", self.statics_path, show_index=False, name="static"),
            ]
        )
        app.on_startup.append(self.on_startup)
        app.on_shutdown.append(self.on_shutdown)
        return app

    async def on_startup(self, app: web.Application) -> None:
        """Print nothing: raidtop prints the one line with the address itself."""

    def initialize_logging(self) -> None:
        """textual-serve's logging, without aiohttp's access log.

        The access log writes every request's path, and every path holds the
        token: a terminal's scrollback, a tmux log or a screen share would
        hand over a root session. Refusals are answered, not logged.
        """
        super().initialize_logging()
        logging.getLogger("aiohttp.access").setLevel(logging.WARNING)

    @web.middleware
    async def _guard(self, request: web.Request, handler):
        refusal = self.refusal(request)
        if refusal is not None:
            status, text = refusal
            return web.Response(status=status, text=text + "\n", headers={"Referrer-Policy": "no-referrer"})
        response = await handler(request)
        if not isinstance(response, web.WebSocketResponse):
            # The token is in the path: never let the page hand it to another site.
            response.headers["Referrer-Policy"] = "no-referrer"
        return response

    def refusal(self, request: web.Request) -> tuple[int, str] | None:
        """Why ``request`` is refused (HTTP status, one line), or None to serve it."""
        host = (request.headers.get("Host") or "").lower()
        if host not in self.hosts:
            return 403, "raidtop --web answers only requests addressed to localhost"
        first, _, rest = request.path.lstrip("/").partition("/")
        if not secrets.compare_digest(first.encode(), self.token.encode()):
            return 404, "not found: open the address raidtop --web printed"
        if request.method not in ("GET", "HEAD"):
            return 405, "raidtop --web only serves pages"
        if rest == "ws" and request.headers.get("Origin") not in self.origins:
            # Browsers always send Origin on a WebSocket; a foreign or missing one is another page.
            return 403, "this session only accepts connections from raidtop's own page"
        return None
