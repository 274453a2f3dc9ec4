"""Who the console lets in: a deadline for every request, and a cap on the connections.

uvicorn waits for ever for a request head that never ends, or a body that
never comes, and takes every connection it is offered. So each connection is
a :class:`Connection`: it has :data:`REQUEST_TIMEOUT` to send a whole request,
and the :class:`Door` holds a limited number of them (the server's
:func:`~faro_pi.console.guest.connection_limit`); a newcomer to a full console
closes the connection that has waited longest without a request under way, or
with its answer sent and the body it promised never come.

Where the door is told who the lookout is (the console: the token or the
session cookie in a request's head), a quarter of the places are kept for the
lookout's requests: the others may hold :data:`ANONYMOUS_SHARE` of them, and
:data:`PER_ADDRESS` from one address. Past either, the longest waiting of the
others is shown out, or, when every one of them has a request under way, the
newcomer's request is answered 503 (or 429) by :class:`Doorway` and never
reaches the app. The lookout's requests are never counted per address.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.server import ServerState

REQUEST_TIMEOUT = 10.0
"""Seconds a connection has for a whole request (its line, headers and body), from its
opening or the end of its last request. A phone sends one at once; a connection that
holds its request back only holds a file descriptor."""

ANONYMOUS_SHARE = 0.75
"""The share of the connections that requests without the lookout's token or cookie may hold:
the rest is the lookout's, whatever the others do."""

PER_ADDRESS = 16
"""Connections with a request that is not the lookout's, from one address: a browser opens
at most six to a host, and :mod:`faro_pi.console.stream` lets an address follow the table
with eight event streams. The lookout's own requests are not counted: the lookout's phone is
never locked out by a page of its own that is open too, nor by whatever else shares its
address (the loopback)."""

_FULL_BODY = b'{"error":"the console is full: too many connections are open; try again"}'
_FULL = (
    b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n"
    b"content-length: %d\r\nconnection: close\r\n\r\n%s" % (len(_FULL_BODY), _FULL_BODY)
)
"""The answer to a newcomer when every held connection has a request under way."""

TURNED_AWAY = "faro-pi.turned-away"
"""The key, in an ASGI scope's ``extensions``, of why the :class:`Door` turns its request
away: an HTTP status and a message, answered by :class:`Doorway` in place of the app."""

Lookout = Callable[[list[tuple[bytes, bytes]]], bool]
"""Whether a request's head (its headers, names in lower case) is the lookout's."""


class Door(ServerState):
    """uvicorn's state shared by the connections, with who is in and who waits idle:
    ``limit`` connections at most, each with ``request_timeout`` seconds for a request.

    ``lookout`` tells the lookout's requests from the others; without it there is no
    share kept for the lookout, and only the cap on one address holds the others."""

    def __init__(
        self,
        limit: int,
        request_timeout: float = REQUEST_TIMEOUT,
        lookout: Lookout | None = None,
    ):
        super().__init__()
        self.limit = limit
        self.request_timeout = request_timeout
        self.lookout = lookout
        self.per_address = PER_ADDRESS
        self.held: set[Connection] = set()
        """Connections let in and not yet gone or shown out."""
        self.idle: dict[Connection, None] = {}
        """Held connections without a request under way (or whose answer is sent and whose
        body never came), the longest waiting first: those that may be shown out."""
        self.strangers: dict[str | None, dict[Connection, None]] = {}
        """Held connections whose last request was not the lookout's, by client address."""
        self.peers: dict[tuple, Connection] = {}
        """Held connections by their client's address and port (an ASGI scope's ``client``)."""
        self._emptied: asyncio.Event | None = None

    @property
    def anonymous_limit(self) -> int:
        """Connections the requests that are not the lookout's may hold."""
        if self.lookout is None:
            return self.limit
        return max(1, int(self.limit * ANONYMOUS_SHARE))

    def let_in(self, newcomer: Connection) -> bool:
        """Holds ``newcomer``, showing out idle connections to stay within the limit
        (another's first, then one that has said nothing yet, then the lookout's); False if
        every other one has a request under way."""
        while len(self.held) >= self.limit:
            first = self._longest_idle()
            if first is None:
                return False
            self.show_out(first)
        self.held.add(newcomer)
        if newcomer.client is not None:
            self.peers[tuple(newcomer.client)] = newcomer
        return True

    def _longest_idle(self) -> Connection | None:
        silent = lookout = None
        for connection in self.idle:
            if connection.lookout is False:
                return connection
            if connection.lookout is None:
                silent = silent or connection
            else:
                lookout = lookout or connection
        return silent or lookout

    def judge(self, connection: Connection) -> tuple[int, str] | None:
        """Takes note of whose ``connection``'s new request is, and makes room for it; why
        it is turned away (an HTTP status and a message), or None."""
        self._forget(connection)
        connection.lookout = self.lookout is not None and self.lookout(connection.headers)
        if connection.lookout:
            return None
        address = connection.client[0] if connection.client is not None else None
        same = self.strangers.setdefault(address, {})
        same[connection] = None
        if len(same) > self.per_address and not self._make_room(same, connection):
            return 429, f"{self.per_address} connections are busy from {address} already"
        anonymous = sum(map(len, self.strangers.values()))
        if anonymous > self.anonymous_limit and not self._make_room(None, connection):
            return 503, "the console is full: too many connections are open; try again"
        return None

    def _make_room(self, among: dict | None, newcomer: Connection) -> bool:
        """Shows out the longest idle of ``among`` (or of every connection not the
        lookout's); False if all of them have a request under way."""
        for connection in self.idle:
            mine = among is None or connection in among
            if connection is not newcomer and connection.lookout is False and mine:
                self.show_out(connection)
                return True
        return False

    def show_out(self, connection: Connection) -> None:
        self.left(connection)
        connection.transport.close()

    def idling(self, connection: Connection, idle: bool) -> None:
        if not idle:
            self.idle.pop(connection, None)
        elif connection not in self.idle and connection in self.held:
            self.idle[connection] = None

    def _forget(self, connection: Connection) -> None:
        if connection.lookout is False:
            address = connection.client[0] if connection.client is not None else None
            same = self.strangers.get(address, {})
            same.pop(connection, None)
            if not same:
                self.strangers.pop(address, None)

    def left(self, connection: Connection) -> None:
        self.held.discard(connection)
        self.idle.pop(connection, None)
        self._forget(connection)
        if connection.client is not None:
            peer = tuple(connection.client)
            if self.peers.get(peer) is connection:
                del self.peers[peer]

    def hang_up(self, peer) -> None:
        """Ends the connection of the client at ``peer`` (address, port), if still held, at
        once: what it has not read is thrown away (a close would wait for it to read)."""
        connection = self.peers.get(tuple(peer)) if peer is not None else None
        if connection is not None:
            self.left(connection)
            connection.transport.abort()

    def lost(self) -> None:
        """A connection is gone (from uvicorn's ``connections`` too)."""
        if self._emptied is not None and not self.connections:
            self._emptied.set()

    async def emptied(self) -> None:
        """Until every connection is gone, woken by the last one's going."""
        while self.connections:
            self._emptied = asyncio.Event()
            await self._emptied.wait()


class Connection(H11Protocol):
    """uvicorn's HTTP/1.1 connection, with a deadline for its request and a place at the door.

    Only for a :class:`~faro_pi.console.guest.GuestServer`, whose state is the :class:`Door`.
    """

    server_state: Door
    _deadline: asyncio.TimerHandle | None = None
    lookout: bool | None = None
    """Whether its last request was the lookout's; None before its first."""
    _judged = None
    """The request (uvicorn's cycle) the door has judged last."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if not self.server_state.let_in(self):
            transport.write(_FULL)
            transport.close()
            return
        self._heard()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._heard()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._heard()

    def connection_lost(self, exc: Exception | None) -> None:
        self.server_state.left(self)
        self._cancel_deadline()
        super().connection_lost(exc)
        self.server_state.lost()

    def _heard(self) -> None:
        """Keeps the door's lists and the request's deadline in step with the request: a
        new request is judged before the app sees it (its task has not run yet)."""
        if self.transport.is_closing():
            return
        their = self.conn.their_state
        # Answered before its body came: nothing waits for that body but the deadline.
        answered = their is h11.SEND_BODY and self.conn.our_state is h11.DONE
        self.server_state.idling(self, their is h11.IDLE or answered)
        if self.cycle is not None and self.cycle is not self._judged:
            self._judged = self.cycle
            if (why := self.server_state.judge(self)) is not None:
                self.scope.setdefault("extensions", {})[TURNED_AWAY] = why
        if their in (h11.IDLE, h11.SEND_BODY):  # a request is due or under way
            if self._deadline is None:
                self._deadline = self.loop.call_later(
                    self.server_state.request_timeout, self._too_slow
                )
        else:
            self._cancel_deadline()

    def _too_slow(self) -> None:
        self._deadline = None
        self.server_state.left(self)
        self.transport.close()

    def _cancel_deadline(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None


class Doorway:
    """ASGI middleware: a request the :class:`Door` turned away is answered here, with
    ``Connection: close``, and never reaches the app."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        why = scope.get("extensions", {}).get(TURNED_AWAY) if scope["type"] == "http" else None
        if why is None:
            await self.app(scope, receive, send)
            return
        status, message = why
        body = json.dumps({"error": message}).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"connection", b"close"),
        ]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})
