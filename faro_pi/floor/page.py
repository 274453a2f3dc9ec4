"""The floor page: the pit at a glance, read-only, behind the floor's own token.

Served by the floor process (Starlette on uvicorn, as the table's console).
Nothing here changes a table: the only routes are reads. Every read needs the
floor's token, as ``Authorization: Bearer <token>`` or as the cookie that
opening ``/?token=<token>`` once sets (an ``EventSource`` can send a cookie,
never a header). ``GET /api/pit`` is the pit as JSON (:func:`faro_pi.floor.pit.pit`),
``GET /api/events`` the same after every change as Server-Sent Events (a
change is pushed within :data:`PUSH_AFTER` of its row reaching the floor, a
burst of them once), and ``GET /api/tables/NAME/export`` the table's copy as
``faro-pi export`` prints it.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
import socket
import time
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.responses import FileResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from faro_pi.console.guest import GuestServer, guest_config
from faro_pi.console.stream import Client, send_stream
from faro_pi.floor.pit import pit
from faro_pi.floor.pitboss import PitBoss
from faro_pi.floor.store import StoreError, export_lines

log = logging.getLogger("faro_pi")

PAGE = Path(__file__).with_name("page")

RENDERER = Path(__file__).parent.parent / "console" / "page" / "dom.js"
"""The console page's renderer, which the floor's page draws with too (served as /dom.js)."""

COOKIE = "faro-floor"

COOKIE_AGE = 30 * 24 * 3600
"""Seconds the floor page's cookie keeps (its Max-Age), across browser restarts: the pit
boss's screen reads the floor only, and stays on it for weeks; a new floor token ends it."""

PUSH_AFTER = 0.05
"""Seconds a change waits for others to go out with it: the page gets a burst once."""

BACKLOG = 64
"""Connections waiting to be accepted: the socket's and uvicorn's alike."""

HEARTBEAT = 15.0
"""Seconds between beats on a quiet event stream, so proxies keep it open."""


class FloorPage:
    """The page's routes and streams, fed by the pit boss's changes."""

    def __init__(self, boss: PitBoss, token: str, consoles):
        self.boss = boss
        self.token = token
        self.consoles = consoles
        """``table name -> address of its console``."""
        self.version = 0
        self.summaries: dict[str, dict[str, Any]] = {}
        self.dirty: set[str] = set(boss.views)
        self.streams: set[Client] = set()
        self._push: asyncio.TimerHandle | None = None
        self.app = self._app()
        boss.watchers.append(self.changed)

    def changed(self, names: set[str]) -> None:
        """The pit boss's watcher: these tables changed; the streams hear of it shortly."""
        self.dirty |= names
        self.version += 1
        if self._push is None and self.streams:
            self._push = asyncio.get_running_loop().call_later(PUSH_AFTER, self._send)

    def pit(self) -> dict[str, Any]:
        for name in self.dirty:
            view = self.boss.views.get(name)
            if view is not None:
                self.summaries[name] = view.summary(self.consoles(name))
        self.dirty.clear()
        tables = [self.summaries[name] for name in sorted(self.summaries)]
        return {"version": self.version, "now": time.time(), **pit(tables)}

    def _send(self) -> None:
        self._push = None
        message = _event(self.pit())
        for stream in self.streams:
            stream.offer(message)

    def close(self) -> None:
        if self._push is not None:
            self._push.cancel()
        for stream in list(self.streams):
            stream.offer(None)

    # -- the routes -------------------------------------------------------------------

    def _app(self):
        return Starlette(
            routes=[
                Route("/", self._index, methods=["GET"]),
                Route("/dom.js", self._renderer, methods=["GET"]),
                Route("/api/pit", self._pit, methods=["GET"]),
                Route("/api/events", self._events, methods=["GET"]),
                Route("/api/tables/{name}/export", self._export, methods=["GET"]),
                Mount("/api", routes=[Route("/{rest:path}", self._unknown)]),
                Mount("/", StaticFiles(directory=PAGE)),
            ]
        )

    def _allowed(self, request) -> bool:
        scheme, _, given = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer":
            given = request.cookies.get(COOKIE, "")
        return hmac.compare_digest(given.strip().encode(), self.token.encode())

    async def _index(self, request):

        given = request.query_params.get("token")
        if given is None:
            return FileResponse(PAGE / "index.html", headers={"Cache-Control": "no-store"})
        answer = RedirectResponse("/", 303, headers={"Cache-Control": "no-store"})
        if hmac.compare_digest(given.strip().encode(), self.token.encode()):
            answer.set_cookie(
                COOKIE, given.strip(), max_age=COOKIE_AGE, httponly=True, samesite="strict"
            )
        else:
            answer.delete_cookie(COOKIE)
        return answer

    async def _renderer(self, request):
        from starlette.responses import FileResponse

        return FileResponse(RENDERER, media_type="text/javascript")

    async def _pit(self, request):
        if not self._allowed(request):
            return _denied()
        return _json(200, self.pit())

    async def _events(self, request):
        if not self._allowed(request):
            return _denied()
        return _Events(self)

    async def _export(self, request):

        if not self._allowed(request):
            return _denied()
        name = request.path_params["name"]
        try:
            text = await asyncio.to_thread(_export, self.boss.folder, name)
        except StoreError as exc:
            return _json(404, {"error": str(exc)})
        return Response(
            text,
            media_type="application/x-ndjson",
            headers={
                "Cache-Control": "no-store",
                "Content-Disposition": f'attachment; filename="{name}.jsonl"',
            },
        )

    async def _unknown(self, request):
        return _json(404, {"error": f"the floor has no {request.method} {request.url.path}"})


def _export(folder: Path, name: str) -> str:
    return "".join(export_lines(folder, name))


class _Events:
    """The ASGI response of ``GET /api/events``: the pit after every change."""

    def __init__(self, page: FloorPage):
        self.page = page

    async def __call__(self, scope, receive, send) -> None:
        await send_stream(receive, send, _event(self.page.pit()), self.page.streams, HEARTBEAT)


def _event(body: dict[str, Any]) -> bytes:
    data = json.dumps(body, separators=(",", ":"), ensure_ascii=False)
    return f"event: pit\nid: {body['version']}\ndata: {data}\n\n".encode()


def _json(status: int, body: Any):

    return JSONResponse(body, status, headers={"Cache-Control": "no-store"})


def _denied():

    return JSONResponse(
        {"error": "the floor page needs its token: open /?token=<token> once"},
        401,
        headers={"Cache-Control": "no-store", "WWW-Authenticate": 'Bearer realm="faro-pi floor"'},
    )


def listen(host: str, port: int) -> socket.socket:
    """A listening TCP socket (named TCP, so asyncio turns Nagle's delay off per connection)."""
    family, kind, proto, _, address = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP, flags=socket.AI_PASSIVE
    )[0]
    listener = socket.socket(family, kind, proto)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(address)
        listener.listen(BACKLOG)
        listener.setblocking(False)
    except OSError:
        listener.close()
        raise
    return listener


async def serve_page(page: FloorPage, listener: socket.socket):
    """Serves the page on ``listener`` until cancelled."""

    server = GuestServer(guest_config(page.app, BACKLOG))
    serving = asyncio.create_task(server.serve([listener]), name="floor page")
    try:
        await asyncio.shield(serving)
    finally:
        page.close()
        server.stop()
        with contextlib.suppress(Exception):
            await serving
