"""The lookout's console: an HTTP API on the table's own loop, for a phone at the table.

Every change goes through :meth:`Daemon.enter <faro_pi.service.daemon.Daemon.enter>`
(journaled, then applied): ``POST /api/events`` takes one event of the
vocabulary of :mod:`faro_pi.game.events`, the same lines as the journal and a
replay file. Reads are open; a write needs the console's token as
``Authorization: Bearer <token>``. The state after every change is pushed to
``GET /api/events`` as Server-Sent Events.

Starlette and uvicorn are imported only when a console is served, so a table
without one, and the command line's clients, never load them. The token is
kept by :mod:`faro_pi.console.token`, the JSON by
:mod:`faro_pi.console.state` and the schema by :mod:`faro_pi.console.openapi`.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
import socket
from pathlib import Path
from typing import TYPE_CHECKING, Any

from faro_pi.console import state as snapshot
from faro_pi.console.openapi import openapi
from faro_pi.console.token import TOKEN_FILE, console_token, token_path
from faro_pi.exc import JournalError, Refused
from faro_pi.game.decode import event_from_json
from faro_pi.game.events import event_to_json
from faro_pi.service.config import Config

if TYPE_CHECKING:
    from faro_pi.console.guest import GuestServer

log = logging.getLogger("faro_pi")

PAGE = Path(__file__).with_name("page")
"""The browser page, served at ``/``."""

HEARTBEAT = 15.0
"""Seconds between comments on a quiet event stream, so proxies and phones keep it open."""

BACKLOG = 8
"""States held for one event stream; a slower reader loses the oldest, never holds the table."""

MAX_BODY = 64 * 1024
"""Bytes of one posted event; an event is a few dozen."""

SEND_BUFFER = 64 * 1024
"""The kernel's send buffer of each connection. Left to itself Linux grows it to megabytes
for a phone that stops reading; this bounds it, and the stream's own queue does the rest."""

# -- the server ------------------------------------------------------------------


async def open_console(daemon, config: Config) -> Console | None:
    """Serves the console for ``daemon``; None (after one line in the log) if it can't.

    The table deals with or without it: a port in use or an unwritable token
    file costs the console, never the game.
    """
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as exc:
        log.warning("console: not served: %s (reinstall faro-pi with its dependencies)", exc)
        return None
    settings = config.console
    path = token_path(config)
    try:
        token = console_token(settings, path)
    except OSError as exc:
        log.warning("console: not served: cannot keep its token in %s (%s)", path, _why(exc))
        return None
    try:
        listener = _listen(settings.host, settings.port)
    except OSError as exc:
        log.warning(
            "console: not served: cannot listen on %s port %d (%s)",
            settings.host,
            settings.port,
            _why(exc),
        )
        return None
    console = Console(daemon, token)
    console.start(listener)
    where = "set in the configuration" if settings.token else f"in {path}"
    log.info("console: http://%s:%d/ (token %s)", settings.host, console.port, where)
    return console


def _listen(host: str, port: int) -> socket.socket:
    """A listening TCP socket. Its protocol is named, as asyncio needs to see it to turn
    off Nagle's delay on each connection (else every answer waits ~40 ms for an ACK)."""
    family, kind, proto, _, address = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP, flags=socket.AI_PASSIVE
    )[0]
    listener = socket.socket(family, kind, proto)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        # Each connection inherits the listener's send buffer.
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, SEND_BUFFER)
        listener.bind(address)
        listener.listen(64)
        listener.setblocking(False)
    except OSError:
        listener.close()
        raise
    return listener


def _why(exc: OSError) -> str:
    return exc.strerror or str(exc)


class Client:
    """One open event stream, with its own bounded queue of states to send."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[bytes | None] = asyncio.Queue(BACKLOG)
        self.task = asyncio.current_task()
        """The request's task: done once the stream has ended."""
        self.lost = 0
        """States dropped because this client read too slowly."""

    def offer(self, message: bytes | None) -> None:
        """Queues a message (None ends the stream), dropping the oldest if the queue is full."""
        if self.queue.full():
            self.queue.get_nowait()
            self.lost += 1
        self.queue.put_nowait(message)


class Console:
    """The HTTP API in front of one daemon: its routes, its event streams and its server."""

    def __init__(self, daemon, token: str, *, heartbeat: float = HEARTBEAT):
        self.daemon = daemon
        self.token = token
        self.heartbeat = heartbeat
        self.version = daemon.journal.count()
        """Rises by one with every change; it starts from the journal's length, so it
        never goes back across restarts either."""
        self.clients: set[Client] = set()
        self.closing = False
        self.port: int | None = None
        self.app = self._app()
        self.server: GuestServer | None = None
        """The uvicorn server, once started."""
        self._serving: asyncio.Task | None = None

    def start(self, listener: socket.socket) -> None:
        """Serves on ``listener`` (bound and listening already) from a task on this loop."""
        import uvicorn

        from faro_pi.console.guest import GuestServer

        self.port = listener.getsockname()[1]
        self.server = GuestServer(
            uvicorn.Config(
                self.app,
                log_level="warning",
                log_config=None,
                lifespan="off",
                access_log=False,
                http="h11",
                ws="none",
                proxy_headers=False,
                server_header=False,
                # A Pi has no clock of its own, and a server without a reliable
                # clock must not send a Date (RFC 9110, 6.6.1).
                date_header=False,
                timeout_graceful_shutdown=1,
            )
        )
        self._serving = asyncio.create_task(self.server.serve([listener]), name="console")
        self._serving.add_done_callback(self._stopped)

    def _stopped(self, task: asyncio.Task) -> None:
        if not task.cancelled() and task.exception() is not None:
            log.error("console: stopped: %s", task.exception())

    async def close(self) -> None:
        """Ends every event stream, then stops the server (within a second even if stuck)."""
        self.closing = True
        for client in list(self.clients):
            client.offer(None)
        if self.server is None:
            return
        self.server.stop()
        with contextlib.suppress(Exception):
            await self._serving

    # -- the watcher -------------------------------------------------------------

    def changed(self, table, event) -> None:
        """The daemon's watcher: every open stream gets the new state."""
        self.version += 1
        if self.clients:
            message = _state_message(snapshot.state(table, self.version))
            for client in self.clients:
                client.offer(message)

    # -- the routes ----------------------------------------------------------------

    def _app(self):
        from starlette.applications import Starlette
        from starlette.routing import Mount, Route
        from starlette.staticfiles import StaticFiles

        return Starlette(
            routes=[
                Route("/openapi.json", self._openapi, methods=["GET"]),
                Route("/api/state", self._state, methods=["GET"]),
                Route("/api/history", self._history, methods=["GET"]),
                Route("/api/export", self._export, methods=["GET"]),
                Route("/api/odds", self._odds, methods=["GET"]),
                Route("/api/events", self._stream, methods=["GET"]),
                Route("/api/events", self._enter, methods=["POST"]),
                Mount("/api", routes=[Route("/{rest:path}", self._unknown)]),
                Mount("/", StaticFiles(directory=PAGE, html=True)),
            ]
        )

    async def _openapi(self, request):
        return _json(200, openapi())

    async def _state(self, request):
        return _json(200, snapshot.state(self.daemon.table, self.version))

    async def _history(self, request):
        return _json(200, snapshot.history(self.daemon.table))

    async def _export(self, request):
        from starlette.responses import Response

        try:
            text = await asyncio.to_thread(_export, self.daemon.journal.path)
        except JournalError as exc:
            return _json(503, {"error": str(exc)})
        return Response(
            text,
            media_type="application/x-ndjson",
            headers={
                "Cache-Control": "no-store",
                "Content-Disposition": 'attachment; filename="faro-journal.jsonl"',
            },
        )

    async def _odds(self, request):
        return _json(200, snapshot.odds(self.daemon.table, self.version))

    async def _unknown(self, request):
        what = f"{request.method} {request.url.path}"
        return _json(404, {"error": f"the console has no {what}; see /openapi.json"})

    async def _enter(self, request):
        if not self._authorized(request.headers.get("authorization", "")):
            return _json(
                401,
                {
                    "error": "a change needs the console's token: send 'Authorization: Bearer "
                    f"<token>' (the token is in {TOKEN_FILE} beside the journal)"
                },
                headers={"WWW-Authenticate": 'Bearer realm="faro-pi"'},
            )
        try:
            body = await _body(request)
        except _TooLarge:
            return _json(413, {"error": f"an event is at most {MAX_BODY} bytes"})
        try:
            obj = json.loads(body)
        except (ValueError, RecursionError) as exc:
            return _json(400, {"error": f"the body must be one event as JSON: {exc}"})
        try:
            event = event_from_json(obj)
        except Refused as exc:
            return _json(422, {"rule": exc.rule, "error": exc.message})
        try:
            event = self.daemon.enter(event)
        except Refused as exc:
            return _json(409, {"rule": exc.rule, "error": exc.message})
        except JournalError as exc:
            return _json(503, {"error": str(exc)})
        state = snapshot.state(self.daemon.table, self.version)
        return _json(200, {"event": event_to_json(event), "state": state})

    def _authorized(self, header: str) -> bool:
        scheme, _, given = header.partition(" ")
        if scheme.lower() != "bearer":
            return False
        return hmac.compare_digest(given.strip().encode(), self.token.encode())

    async def _stream(self, request):
        if self.closing:
            return _json(503, {"error": "the table is closing"})
        return _Stream(self)


class _Stream:
    """The ASGI response of ``GET /api/events``: states as they come, until either side ends it."""

    def __init__(self, console: Console):
        self.console = console

    async def __call__(self, scope, receive, send) -> None:
        console = self.console
        if scope["method"] == "HEAD":
            await send({"type": "http.response.start", "status": 200, "headers": _STREAM_HEADERS})
            await send({"type": "http.response.body", "body": b""})
            return
        client = Client()
        client.offer(b"retry: 2000\n\n")
        client.offer(_state_message(snapshot.state(console.daemon.table, console.version)))
        console.clients.add(client)
        listening = asyncio.create_task(_until_gone(receive, client))
        try:
            await send({"type": "http.response.start", "status": 200, "headers": _STREAM_HEADERS})
            while True:
                try:
                    async with asyncio.timeout(console.heartbeat):
                        message = await client.queue.get()
                except TimeoutError:
                    message = b": still here\n\n"
                if message is None:
                    break
                await send({"type": "http.response.body", "body": message, "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        except OSError:
            pass  # the client went away mid-send
        finally:
            console.clients.discard(client)
            listening.cancel()


_STREAM_HEADERS = [
    (b"content-type", b"text/event-stream; charset=utf-8"),
    (b"cache-control", b"no-store"),
    (b"x-accel-buffering", b"no"),
]


async def _until_gone(receive, client: Client) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
    client.offer(None)


def _state_message(state: dict) -> bytes:
    data = json.dumps(state, separators=(",", ":"), ensure_ascii=False)
    return f"event: state\nid: {state['version']}\ndata: {data}\n\n".encode()


def _json(status: int, body: Any, headers: dict[str, str] | None = None):
    from starlette.responses import JSONResponse

    return JSONResponse(body, status, headers={"Cache-Control": "no-store", **(headers or {})})


class _TooLarge(Exception):
    """A posted body past :data:`MAX_BODY`: refused before it is all read."""


async def _body(request) -> bytes:
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            raise _TooLarge
        chunks.append(chunk)
    return b"".join(chunks)


def _export(path: Path) -> str:
    from faro_pi.service.export import export_lines
    from faro_pi.service.journal import Journal

    with Journal.open(path, readonly=True) as journal:
        return "".join(export_lines(journal))
