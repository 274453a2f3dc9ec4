"""The lookout's console: an HTTP API on the table's own loop, for a phone at the table.

Every change goes through :meth:`Daemon.enter <faro_pi.service.daemon.Daemon.enter>`
(journaled, then applied): ``POST /api/events`` takes one event of the
vocabulary of :mod:`faro_pi.game.events`, the same lines as the journal and a
replay file. Reads are open; a write needs the console's token as
``Authorization: Bearer <token>``. The state after every change is pushed to
``GET /api/events`` as Server-Sent Events.

Starlette and uvicorn are imported only when a console is served, so a table
without one, and the command line's clients, never load them. The OpenAPI
schema is kept by hand in :func:`openapi`: the events are checked by
:mod:`faro_pi.game.events` alone, and the schema describes that one check.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
import os
import secrets
import socket
from pathlib import Path
from typing import Any

from faro_pi.console import state as snapshot
from faro_pi.exc import JournalError, Refused
from faro_pi.game.cards import RANKS
from faro_pi.game.events import ALARM_KINDS, event_from_json, event_to_json
from faro_pi.service.config import Config, ConsoleConfig

log = logging.getLogger("faro_pi")

TOKEN_FILE = "console.token"
"""Beside the journal: the console's token when the configuration names none."""

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

# -- the token -------------------------------------------------------------------


def token_path(config: Config) -> Path:
    """Where the generated token is kept: beside the journal, which the daemon owns."""
    return config.journal.path.parent / TOKEN_FILE


def console_token(settings: ConsoleConfig, path: Path) -> str:
    """The configured token, or the one kept at ``path`` (made there at the first start).

    The file is written whole under a temporary name, created with
    ``O_EXCL`` and mode 0600, then linked into place, which fails rather
    than replace a token another start has just made: every start sees one
    complete token or none.
    """
    if settings.token is not None:
        return settings.token
    with contextlib.suppress(FileNotFoundError):
        return read_token(path)
    token = "-"
    while token.startswith("-"):  # it would read as an option on a command line
        token = secrets.token_urlsafe(32)
    spare = path.with_name(f".{path.name}.{os.getpid()}")
    fd = os.open(spare, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with open(fd, "w", encoding="utf-8") as file:
            file.write(token + "\n")
            file.flush()
            os.fsync(file.fileno())
        try:
            os.link(spare, path)
        except FileExistsError:
            return read_token(path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(spare)
    log.info("console: made a new token in %s", path)
    return token


def read_token(path: Path) -> str:
    """The token kept at ``path``; an empty file is an error, never a token."""
    token = path.read_text(encoding="utf-8").strip()
    if not token:
        raise OSError(f"{path}: the console's token file is empty; delete it to make a new one")
    if path.stat().st_mode & 0o077:
        log.warning("console: %s can be read by others; chmod 600 it", path)
    return token


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
        self._server = None
        self._serving: asyncio.Task | None = None
        self._closed = asyncio.Event()

    def start(self, listener: socket.socket) -> None:
        """Serves on ``listener`` (bound and listening already) from a task on this loop."""
        import uvicorn

        self.port = listener.getsockname()[1]
        server = uvicorn.Server(
            uvicorn.Config(
                self.app,
                log_level="warning",
                log_config=None,
                lifespan="off",
                access_log=False,
                http="h11",
                ws="none",
                proxy_headers=False,
                timeout_graceful_shutdown=1,
            )
        )
        # SIGTERM belongs to the daemon, which closes the console on its way out.
        server.capture_signals = contextlib.nullcontext
        # uvicorn wakes ten times a second to refresh its Date header and look for the
        # end; the console just waits for close(). No Date is sent: a Pi has no clock
        # of its own, and a server without a reliable clock must not send one.
        server.main_loop = self._closed.wait
        self._server = server
        self._serving = asyncio.create_task(server.serve([listener]), name="console")
        self._serving.add_done_callback(self._stopped)

    def _stopped(self, task: asyncio.Task) -> None:
        if not task.cancelled() and task.exception() is not None:
            log.error("console: stopped: %s", task.exception())

    async def close(self) -> None:
        """Ends every event stream, then stops the server (within a second even if stuck)."""
        self.closing = True
        for client in list(self.clients):
            client.offer(None)
        self._closed.set()
        if self._serving is None:
            return
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
        try:
            body = await asyncio.to_thread(_history, self.daemon.journal.path)
        except JournalError as exc:
            return _json(503, {"error": str(exc)})
        return _json(200, body)

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
        return _json(200, odds(self.daemon.table, self.version))

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
        if not isinstance(obj, dict) or not isinstance(obj.get("type"), str):
            return _json(422, {"rule": "event", "error": "an event is a JSON object with a 'type'"})
        try:
            event_from_json(obj)
        except Refused as exc:
            return _json(422, {"rule": exc.rule, "error": exc.message})
        try:
            event = self.daemon.enter(obj)
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


def _history(path: Path) -> dict:
    """The session's history from the committed journal (a reader of its own, in a thread)."""
    from faro_pi.service.journal import Journal

    with Journal.open(path, readonly=True) as journal:
        events = [event_from_json(e.event) for e in journal.rows() if e.refused is None]
    return snapshot.history(events)


def _export(path: Path) -> str:
    from faro_pi.service.export import export_lines
    from faro_pi.service.journal import Journal

    with Journal.open(path, readonly=True) as journal:
        return "".join(export_lines(journal))


def odds(table, version: int) -> dict:
    """The exact odds of :mod:`faro_pi.game.odds` for the table now (``GET /api/odds``).

    Each chance comes twice: a float, and the exact fraction as ``"n/d"``.
    """
    from faro_pi.game.odds import last_three, next_pair
    from faro_pi.game.rules import FINAL_WINNER

    n = len(table.pack.exposed)
    if n >= FINAL_WINNER:
        coming = "none"
    elif n == 0:
        coming = "soda"
    else:
        coming = "winner" if n % 2 == 0 else "pair"
    ranks = []
    for rank, chances in next_pair(table).items():
        three = {"lose": chances.lose, "win": chances.win, "split": chances.split}
        ranks.append(
            {
                "rank": RANKS[rank - 1],
                "count": table.pack.counts[rank],
                **{k: float(v) for k, v in three.items()},
                "fractions": {k: _fraction(v) for k, v in three.items()},
            }
        )
    orders = last_three(table)
    called = None
    if orders:
        by_colour = isinstance(orders[0][0][0], str)
        called = {
            "by": "colour" if by_colour else "rank",
            "orders": [
                {
                    ("colours" if by_colour else "order"): (
                        list(order) if by_colour else [RANKS[r - 1] for r in order]
                    ),
                    "chance": float(chance),
                    "fraction": _fraction(chance),
                }
                for order, chance in orders
            ],
        }
    return {
        "version": version,
        "left": table.pack.left,
        "next": coming,
        "ranks": ranks,
        "last_three": called,
    }


def _fraction(value) -> str:
    return f"{value.numerator}/{value.denominator}"


# -- the schema ------------------------------------------------------------------


def _object(properties: dict, required: tuple = (), **more) -> dict:
    return {"type": "object", "properties": properties, "required": list(required), **more}


def _ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


def _event(kind: str, summary: str, properties: dict, required: tuple, examples: list) -> dict:
    return _object(
        {"type": {"const": kind}, **properties},
        ("type", *required),
        description=summary + " Other fields are allowed and ignored.",
        examples=examples,
    )


_NAME = {"type": "string", "minLength": 1, "description": "a participant's name"}
_RANK = {
    "type": "string",
    "enum": list(RANKS),
    "description": "A rank: A, 2-10, J, Q, K (T for 10 and any case are accepted too).",
}
_CARD = {
    "type": "string",
    "pattern": "^(A|[2-9]|10|T|J|Q|K)[SHDC]$",
    "description": "A card: its rank then its suit (S H D C), e.g. KD or 10H; any case.",
}
_WEIGHT = {
    "type": "integer",
    "minimum": 2,
    "multipleOf": 2,
    "description": "A positive even whole number, so that a split halves it exactly.",
}
_COLOUR = {"type": "string", "enum": ["red", "black"]}
_THREE = {"minItems": 3, "maxItems": 3}

_EVENTS = {
    "SessionEvent": _event(
        "session",
        "Seats 2 to 10 participants in table order; one of them banks (drawn at random if "
        "none is named). Once per journal.",
        {
            "seats": {"type": "array", "items": _NAME, "minItems": 2, "maxItems": 10},
            "banker": _NAME,
        },
        ("seats",),
        [{"type": "session", "seats": ["Ann", "Bob", "Cy"], "banker": "Cy"}],
    ),
    "BetEvent": _event(
        "bet",
        "A prediction on a rank; coppered, it plays the rank to lose.",
        {"player": _NAME, "rank": _RANK, "weight": _WEIGHT, "copper": {"type": "boolean"}},
        ("player", "rank", "weight"),
        [{"type": "bet", "player": "Ann", "rank": "9", "weight": 2, "copper": False}],
    ),
    "RemoveEvent": _event(
        "remove",
        "Takes a player's predictions on a rank off the layout (only one direction if "
        "'copper' is given).",
        {"player": _NAME, "rank": _RANK, "copper": {"type": "boolean"}},
        ("player", "rank"),
        [{"type": "remove", "player": "Ann", "rank": "9"}],
    ),
    "CallEvent": _event(
        "call",
        "Calling the turn with three cards left: loser, winner, hock by rank ('order'), or "
        "by colour ('colours') when the three share a rank.",
        {
            "player": _NAME,
            "weight": _WEIGHT,
            "order": {"type": "array", "items": _RANK, **_THREE},
            "colours": {"type": "array", "items": _COLOUR, **_THREE},
        },
        ("player", "weight"),
        [
            {"type": "call", "player": "Ann", "order": ["7", "J", "3"], "weight": 2},
            {"type": "call", "player": "Ann", "colours": ["red", "black", "red"], "weight": 2},
        ],
    )
    | {"oneOf": [{"required": ["order"]}, {"required": ["colours"]}]},
    "LockEvent": _event(
        "lock",
        "The banker's signal: entries close until the next pair's winner.",
        {},
        (),
        [{"type": "lock"}],
    ),
    "CardEvent": _event(
        "card",
        "A card exposed, entered by hand (after a no-read, say); journaled with source 'hand'.",
        {"card": _CARD},
        ("card",),
        [{"type": "card", "card": "KD"}],
    ),
    "VoidEvent": _event(
        "void",
        "Takes back the last card exposed (a misread); 'card' guards against voiding twice.",
        {"card": _CARD},
        (),
        [{"type": "void", "card": "KD"}],
    ),
    "ClearEvent": _event(
        "clear",
        "The alarms (of one kind, if given) have been dealt with.",
        {"kind": {"type": "string", "enum": list(ALARM_KINDS)}},
        (),
        [{"type": "clear"}, {"type": "clear", "kind": "noread"}],
    ),
    "ShuffleEvent": _event(
        "shuffle",
        "A new pack, after the hock; the bank passes to the next seat.",
        {},
        (),
        [{"type": "shuffle"}],
    ),
}

_INT = {"type": "integer"}
_STR = {"type": "string"}
_NULLABLE_STR = {"type": ["string", "null"]}

_SETTLEMENT = _object(
    {
        "player": _STR,
        "delta": {**_INT, "description": "What it did to the player's balance."},
        "outcome": {"enum": ["lost", "won", "split", "called", "miscalled"]},
        "rank": {"type": ["string", "null"], "description": "null for a call"},
        "copper": {"type": "boolean"},
        "weight": _INT,
    },
    ("player", "delta", "outcome", "rank", "copper", "weight"),
)

_PAIR = _object(
    {
        "pack": _INT,
        "turn": {**_INT, "minimum": 1, "maximum": 25},
        "loser": _STR,
        "winner": _STR,
        "split": {"type": "boolean"},
        "settlements": {"type": "array", "items": _ref("Settlement")},
        "banker": {**_INT, "description": "The banker's net from this pair."},
    },
    ("pack", "turn", "loser", "winner", "split", "settlements", "banker"),
)

_CALL = _object(
    {
        "player": _STR,
        "weight": _INT,
        "order": {"type": "array", "items": _STR},
        "colours": {"type": "array", "items": _STR},
    },
    ("player", "weight"),
)

_STATE = _object(
    {
        "version": {**_INT, "description": "Rises with every change, across restarts too."},
        "profile": {"const": "teaching"},
        "pack": _object(
            {
                "number": _INT,
                "exposed": {"type": "array", "items": _STR, "description": "In order."},
                "left": _INT,
                "turn": {**_INT, "description": "Pairs completed."},
                "soda": _NULLABLE_STR,
                "hock": _NULLABLE_STR,
                "complete": {"type": "boolean"},
            },
            ("number", "exposed", "left", "turn", "soda", "hock", "complete"),
        ),
        "case": {
            "type": "array",
            "description": "Cards of each rank still in the shoe, A to K.",
            "items": _object({"rank": _STR, "count": _INT}, ("rank", "count")),
            "minItems": 13,
            "maxItems": 13,
        },
        "pair": {
            "description": "The pair in play: its loser is out, its winner is not (else null).",
            "oneOf": [
                {"type": "null"},
                _object({"turn": _INT, "loser": _STR}, ("turn", "loser")),
            ],
        },
        "last_pair": {"oneOf": [{"type": "null"}, _ref("Pair")]},
        "entries": {"enum": ["open", "locked", "closed"]},
        "predictions": {
            "type": "array",
            "items": _object(
                {"player": _STR, "rank": _STR, "weight": _INT, "copper": {"type": "boolean"}},
                ("player", "rank", "weight", "copper"),
            ),
        },
        "calls": {"type": "array", "items": _ref("Call")},
        "call_results": {
            "type": "array",
            "items": _ref("Settlement"),
            "description": "What the calls did at the last hock of this pack.",
        },
        "seats": {"type": "array", "items": _STR, "description": "In table order."},
        "banker": _NULLABLE_STR,
        "balances": {"type": "object", "additionalProperties": _INT},
        "leaders": {"type": "array", "items": _STR},
        "alarms": {
            "type": "array",
            "items": _object(
                {"kind": {"enum": list(ALARM_KINDS)}, "text": _STR, "card": _NULLABLE_STR},
                ("kind", "text", "card"),
            ),
        },
    },
    (
        "version",
        "profile",
        "pack",
        "case",
        "pair",
        "last_pair",
        "entries",
        "predictions",
        "calls",
        "call_results",
        "seats",
        "banker",
        "balances",
        "leaders",
        "alarms",
    ),
)

_HISTORY = _object(
    {
        "pairs": {"type": "array", "items": _ref("Pair"), "description": "Every pair, in order."},
        "packs": {
            "type": "array",
            "items": _object(
                {
                    "number": _INT,
                    "banker": _NULLABLE_STR,
                    "calls": {"type": "array", "items": _ref("Settlement")},
                },
                ("number", "banker", "calls"),
            ),
        },
        "balances": {"type": "object", "additionalProperties": _INT},
    },
    ("pairs", "packs", "balances"),
)

_CHANCE = {"type": "number", "minimum": 0, "maximum": 1}
_FRACTION = {
    "type": "string",
    "pattern": "^[0-9]+/[1-9][0-9]*$",
    "description": "The same chance exactly, as numerator/denominator in lowest terms.",
}

_ODDS = _object(
    {
        "version": {**_INT, "description": "The state's version these odds are for."},
        "left": {**_INT, "description": "Cards still in the shoe."},
        "next": {
            "enum": ["soda", "pair", "winner", "none"],
            "description": "What 'the next pair' is: the pair after the soda, the next pair, "
            "the winner of the pair under way (its loser is out), or none left to settle.",
        },
        "ranks": {
            "type": "array",
            "description": "A to K: the chances that the next pair makes the rank lose, win "
            "or split; what is left over, it leaves the rank alone.",
            "minItems": 13,
            "maxItems": 13,
            "items": _object(
                {
                    "rank": _STR,
                    "count": {**_INT, "description": "Its cards still in the shoe."},
                    "lose": _CHANCE,
                    "win": _CHANCE,
                    "split": _CHANCE,
                    "fractions": _object(
                        {"lose": _FRACTION, "win": _FRACTION, "split": _FRACTION},
                        ("lose", "win", "split"),
                    ),
                },
                ("rank", "count", "lose", "win", "split", "fractions"),
            ),
        },
        "last_three": {
            "description": "With three cards left: every order a call may name (loser, "
            "winner, hock), by rank, or by colour when the three share a rank; else null.",
            "oneOf": [
                {"type": "null"},
                _object(
                    {
                        "by": {"enum": ["rank", "colour"]},
                        "orders": {
                            "type": "array",
                            "items": _object(
                                {
                                    "order": {"type": "array", "items": _STR, **_THREE},
                                    "colours": {"type": "array", "items": _COLOUR, **_THREE},
                                    "chance": _CHANCE,
                                    "fraction": _FRACTION,
                                },
                                ("chance", "fraction"),
                            ),
                        },
                    },
                    ("by", "orders"),
                ),
            ],
        },
    },
    ("version", "left", "next", "ranks", "last_three"),
)

_ERROR = _object({"error": _STR}, ("error",))
_REFUSAL = _object(
    {
        "rule": {**_STR, "description": "A short stable name of the rule, e.g. entries-closed."},
        "error": {**_STR, "description": "What is wrong, for people."},
    },
    ("rule", "error"),
)


def _content(schema: dict) -> dict:
    return {"application/json": {"schema": schema}}


def _answer(description: str, schema: dict) -> dict:
    return {"description": description, "content": _content(schema)}


def openapi() -> dict:
    """The console's OpenAPI 3.1 description, served at ``/openapi.json``."""
    events = list(_EVENTS)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "faro-pi: the lookout's console",
            "version": "1",
            "description": "Every change is one event of the table's vocabulary, posted to "
            "/api/events: journaled first, then applied. Reads need no token.",
        },
        "paths": {
            "/api/events": {
                "post": {
                    "operationId": "enter",
                    "summary": "Enter one event at the table",
                    "security": [{"token": []}],
                    "requestBody": {
                        "required": True,
                        "content": {
                            "application/json": {
                                "schema": _ref("Event"),
                                "examples": {
                                    name.removesuffix("Event").lower() + (f"-{i}" if i else ""): {
                                        "value": example
                                    }
                                    for name in events
                                    for i, example in enumerate(_EVENTS[name]["examples"])
                                },
                            }
                        },
                    },
                    "responses": {
                        "200": _answer(
                            "Applied: the event as journaled and the state after it",
                            _object(
                                {"event": {"type": "object"}, "state": _ref("State")},
                                ("event", "state"),
                            ),
                        ),
                        "400": _answer("The body is not JSON", _ref("Error")),
                        "401": _answer("No token, or the wrong one", _ref("Error")),
                        "409": _answer(
                            "The rules refuse it now; nothing has changed", _ref("Refusal")
                        ),
                        "413": _answer("The body is too large", _ref("Error")),
                        "422": _answer(
                            "Not an event of the vocabulary (a wrong type or code)",
                            _ref("Refusal"),
                        ),
                        "503": _answer("The journal cannot be written", _ref("Error")),
                    },
                },
                "get": {
                    "operationId": "watch",
                    "summary": "The state after every change, as Server-Sent Events",
                    "description": "Each message is 'event: state', 'id: <version>' and "
                    "'data: <State as JSON>'; the current state comes first. Comment lines "
                    "keep a quiet stream open. A slow reader misses intermediate states.",
                    "responses": {
                        "200": {
                            "description": "An endless stream",
                            "content": {"text/event-stream": {"schema": {"type": "string"}}},
                        }
                    },
                },
            },
            "/api/state": {
                "get": {
                    "operationId": "state",
                    "summary": "The table now",
                    "responses": {"200": _answer("The state", _ref("State"))},
                }
            },
            "/api/history": {
                "get": {
                    "operationId": "history",
                    "summary": "Every pair of the session and each pack's calls",
                    "responses": {"200": _answer("The history", _ref("History"))},
                }
            },
            "/api/odds": {
                "get": {
                    "operationId": "odds",
                    "summary": "Exact odds of the next pair for each rank, and of each order "
                    "at the last three",
                    "responses": {"200": _answer("The odds now", _ref("Odds"))},
                }
            },
            "/api/export": {
                "get": {
                    "operationId": "export",
                    "summary": "The journal as JSON lines for faro-pi replay",
                    "responses": {
                        "200": {
                            "description": "One event a line, as faro-pi export prints them",
                            "content": {"application/x-ndjson": {"schema": {"type": "string"}}},
                        }
                    },
                }
            },
        },
        "components": {
            "securitySchemes": {
                "token": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": f"The console's token: in {TOKEN_FILE} beside the journal, "
                    "or console.token in the configuration.",
                }
            },
            "schemas": {
                "Event": {
                    "oneOf": [_ref(name) for name in events],
                    "discriminator": {
                        "propertyName": "type",
                        "mapping": {
                            _EVENTS[name]["properties"]["type"]["const"]: (
                                f"#/components/schemas/{name}"
                            )
                            for name in events
                        },
                    },
                },
                **_EVENTS,
                "State": _STATE,
                "Pair": _PAIR,
                "Settlement": _SETTLEMENT,
                "Call": _CALL,
                "History": _HISTORY,
                "Odds": _ODDS,
                "Refusal": _REFUSAL,
                "Error": _ERROR,
            },
        },
    }
