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
:mod:`faro_pi.service.view` (written by :mod:`faro_pi.console.render`) and
the schema by :mod:`faro_pi.console.openapi`; the names the console answers
to are checked by :mod:`faro_pi.console.hosts`, and its connections are held
in bounds by :mod:`faro_pi.console.door`. Logging a phone in and out, and the
list of phones logged in, are :mod:`faro_pi.console.phones`'s routes.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import socket
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.responses import Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from faro_pi.config import Config
from faro_pi.console import posted
from faro_pi.console.client import JOURNAL_HEADER
from faro_pi.console.guest import GuestServer, guest_config
from faro_pi.console.hosts import HostCheck, allowed_names
from faro_pi.console.idempotency import Answers
from faro_pi.console.login import CHALLENGE, UNAUTHORISED, Login
from faro_pi.console.login import link as login_link
from faro_pi.console.openapi import openapi
from faro_pi.console.origin import cross_site
from faro_pi.console.phones import Phones
from faro_pi.console.pictures import Pictures
from faro_pi.console.render import Render
from faro_pi.console.sessions import SESSIONS_FILE, Sessions
from faro_pi.console.stream import HEARTBEAT, Client, EventStream, room
from faro_pi.console.token import console_token, token_path
from faro_pi.exc import JournalError, Refused
from faro_pi.game.codec import event_from_json, event_to_json
from faro_pi.game.events import Alarm, Clear
from faro_pi.service import view as snapshot
from faro_pi.service.export import export_lines
from faro_pi.service.journal import Journal

log = logging.getLogger("faro_pi")

PAGE = Path(__file__).with_name("page")
"""The browser page, served at ``/``."""

MAX_BODY = 64 * 1024
"""Bytes of one posted event; an event is a few dozen."""

PENDING = 64
"""Connections the kernel keeps waiting to be taken (``listen``'s backlog): uvicorn's own
setting replaces the socket's, so both are given this."""

SEND_BUFFER = 64 * 1024
"""The kernel's send buffer of each connection. Left to itself Linux grows it to megabytes
for a phone that stops reading; this bounds it, and the stream's own queue does the rest."""

# -- the server ------------------------------------------------------------------


async def open_console(daemon, config: Config) -> Console | None:
    """Serves the console for ``daemon``; None (after one line in the log) if it can't.

    The table deals with or without it: a port in use or an unwritable token
    file costs the console, never the game.
    """
    settings = config.console
    path = token_path(config)
    try:
        token = console_token(settings, path)
    except OSError as exc:
        return _not_served(daemon, f"cannot keep its token in {path} ({_why(exc)})")
    try:
        listener = _listen(settings.host, settings.port)
    except OSError as exc:
        where = f"{settings.host} port {settings.port}"
        return _not_served(daemon, f"cannot listen on {where} ({_why(exc)})")
    if daemon.has_alarm("console"):
        with contextlib.suppress(JournalError):
            daemon.submit(Clear("console"))  # served again
    names = allowed_names(settings)
    sessions = path.with_name(SESSIONS_FILE)
    console = Console(daemon, token, names=names, host=settings.host, sessions=sessions)
    console.start(listener)
    where = "set in the configuration" if settings.token else f"in {path}"
    log.info("console: http://%s:%d/ (token %s)", settings.host, console.port, where)
    return console


def _not_served(daemon, why: str) -> None:
    """Says in the log, and on the table (a ``console`` alarm the OLED and the case keeper
    show), that the lookout has no console: the command line would otherwise reach
    whatever else answers on its port."""
    log.warning("console: not served: %s", why)
    with contextlib.suppress(JournalError):  # said in the log; the table is as it was
        daemon.submit(Alarm("console", f"no console: {why}"))
    return None


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
        listener.listen(PENDING)
        listener.setblocking(False)
    except OSError:
        listener.close()
        raise
    return listener


def _why(exc: OSError) -> str:
    return exc.strerror or str(exc)


class Console:
    """The HTTP API in front of one daemon: its routes, its event streams and its server."""

    def __init__(
        self,
        daemon,
        token: str,
        *,
        names: frozenset[str],
        heartbeat: float = HEARTBEAT,
        host: str = "127.0.0.1",
        sessions: Path | None = None,
    ):
        self.daemon = daemon
        self.token = token
        self.login = Login(token, Sessions(token, sessions))
        """The token, the phones' sessions (kept at ``sessions``, or in memory), pairing."""
        self.host = host
        self.heartbeat = heartbeat
        self.version = daemon.journal.count()
        """Rises by one with every change; it starts from the journal's length, so it
        never goes back across restarts either."""
        self.clients: set[Client] = set()
        self.closing = False
        self.port: int | None = None
        self.render = Render()
        self.answers = Answers()  # to keyed writes, for their repeats
        self.names = names
        """The names answered besides IP addresses (:mod:`faro_pi.console.hosts`)."""
        self.journal = snapshot.journal_id(daemon.journal.path)
        """The journal served, as every state names it (`view.journal_id`)."""
        self.pictures = Pictures(daemon, self._authorized, self._json, self._refused)
        self.app = self._app()
        self.server: GuestServer | None = None
        """The uvicorn server, once started."""
        self._serving: asyncio.Task | None = None

    def start(self, listener: socket.socket) -> None:
        """Serves on ``listener`` (bound and listening already) from a task on this loop."""
        self.port = listener.getsockname()[1]
        self.server = GuestServer(guest_config(self.app, PENDING), lookout=self._lookout)
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
        self.login.sessions.close()
        if self.server is None:
            return
        self.server.stop()
        with contextlib.suppress(Exception):
            await self._serving

    def pair(self) -> str:
        """A new pairing link for the OLED: good once, for :data:`login.PAIRING` seconds."""
        return login_link(self.host, self.port or 0, self.login.pairing())

    # -- the watcher -------------------------------------------------------------

    def changed(self, table, event) -> None:
        """The daemon's watcher: every open stream gets the new state."""
        self.version += 1
        self.pictures.seen(table, event)
        if self.clients:
            message = self.render.message(self._state_of(table))
            for client in self.clients:
                client.offer(message)

    # -- the routes ----------------------------------------------------------------

    def _app(self):
        app = Starlette(
            routes=[
                *Phones(
                    self.login, PAGE / "index.html", self._refused, self._json, self.pair
                ).routes(),
                Route("/openapi.json", self._openapi, methods=["GET"]),
                Route("/api/state", self._state, methods=["GET"]),
                Route("/api/history", self._history, methods=["GET"]),
                Route("/api/export", self._export, methods=["GET"]),
                Route("/api/odds", self._odds, methods=["GET"]),
                Route("/api/events", self._stream, methods=["GET"]),
                Route("/api/events", self._enter, methods=["POST"]),
                *self.pictures.routes(),
                Mount("/api", routes=[Route("/{rest:path}", self._unknown)]),
                Mount("/", StaticFiles(directory=PAGE, html=True)),
            ]
        )
        return HostCheck(app, self.names)

    async def _openapi(self, request):
        return self._json(200, openapi())

    def _state_of(self, table) -> dict:
        return {**snapshot.state(table, self.version), "journal": self.journal}

    async def _state(self, request):
        return self._json(200, self._state_of(self.daemon.table))

    async def _history(self, request):
        return self._json(200, snapshot.history(self.daemon.table))

    async def _export(self, request):
        try:
            text = await asyncio.to_thread(_export, self.daemon.journal.path)
        except JournalError as exc:
            return self._json(503, {"error": str(exc)})
        return Response(
            text,
            media_type="application/x-ndjson",
            headers={
                "Cache-Control": "no-store",
                "Content-Disposition": 'attachment; filename="faro-journal.jsonl"',
            },
        )

    async def _odds(self, request):
        return self._json(200, snapshot.odds(self.daemon.table, self.version))

    async def _unknown(self, request):
        what = f"{request.method} {request.url.path}"
        return self._json(404, {"error": f"the console has no {what}; see /openapi.json"})

    async def _enter(self, request):
        if (refusal := self._refused(request)) is not None:
            return refusal
        try:
            body = await posted.body(request, MAX_BODY)
        except posted.TooLarge:
            return self._json(413, {"error": f"an event is at most {MAX_BODY} bytes"})
        except posted.Unfinished:  # the connection's deadline closed it: nobody hears this
            return self._json(408, {"error": "the request ended before its body"})
        return self.answers.answer(request, body, self._entered, self._json)

    def _entered(self, body: bytes):
        """The table's answer to one event posted (applied if the rules let it)."""
        try:
            obj = json.loads(body)
        except (ValueError, RecursionError) as exc:
            return self._json(400, {"error": f"the body must be one event as JSON: {exc}"})
        try:
            event = event_from_json(obj)
        except Refused as exc:
            return self._json(422, {"rule": exc.rule, "error": exc.message})
        try:
            event = self.daemon.enter(event)
        except Refused as exc:
            return self._json(409, {"rule": exc.rule, "error": exc.message})
        except JournalError as exc:
            return self._json(503, {"error": str(exc)})
        # What changed, not the table: with thousands of bets on the layout the whole
        # state is hundreds of kB a post, and every stream brings it anyway.
        entered = {"event": event_to_json(event), "version": self.version}
        return self._json(200, {**entered, "journal": self.journal})

    def _refused(self, request):
        """The answer to a write that may not be applied as it came (another table's
        change, no token, another page's, not JSON), or None."""
        meant = request.headers.get(JOURNAL_HEADER)
        if meant is not None and meant != self.journal:
            return self._json(
                409,
                {
                    "rule": "journal",
                    "error": "this console serves another table's journal than the change "
                    "is meant for: another daemon holds the port",
                    "journal": self.journal,
                },
            )
        if not self._authorized(request):
            return self._json(401, UNAUTHORISED, CHALLENGE)
        if (foreign := cross_site(request.headers)) is not None:
            return self._json(403, {"rule": "origin", "error": foreign})
        kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind != "application/json":
            return self._json(
                415, {"error": "a change is sent as 'Content-Type: application/json'"}
            )
        return None

    def _json(self, status: int, body: Any, headers: dict[str, str] | None = None):
        return self.render.response(status, body, headers)

    def _lookout(self, raw: list[tuple[bytes, bytes]]) -> bool:
        """Whether a request's head is the lookout's, for the door (:mod:`.door`)."""
        return self.login.lookout(Headers(raw=raw))

    def _authorized(self, request) -> bool:
        """The token, or the session cookie of a phone logged in (:mod:`.login`)."""
        return self.login.lookout(request.headers)

    async def _stream(self, request):
        if self.closing:
            return self._json(503, {"error": "the table is closing"})
        peer = request.scope.get("client")
        address = peer[0] if peer else None
        authorised = self._authorized(request)
        if request.method == "GET" and (full := room(self.clients, address, authorised)):
            status, why = full
            return self._json(status, {"error": f"{why}: close one, or try again later"})
        door = self.server.server_state if self.server is not None else None
        client = Client(address, authorised, door and (lambda: door.hang_up(peer)))
        return EventStream(self._now, self.clients, self.heartbeat, client)

    def _now(self) -> bytes:
        """The message of the table as it stands, a stream's first."""
        return self.render.message(self._state_of(self.daemon.table))


def _export(path: Path) -> str:
    with Journal.open(path, readonly=True) as journal:
        return "".join(export_lines(journal))
