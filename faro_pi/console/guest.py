"""uvicorn's server as a guest on the daemon's loop, and who it lets in.

uvicorn expects to own its process. ``Server.serve`` takes SIGINT and SIGTERM
for itself and, on its way out, puts back the handlers it found over any the
daemon has set since; its ``main_loop`` wakes ten times a second to refresh
the Date header and see whether it should stop. On the table the signals are
the daemon's, which closes the console on its way out, and a Pi has better
things to do than wake for nothing. uvicorn has no setting for either, so
:class:`GuestServer` overrides the two hooks ``Server.serve`` calls, and its
``shutdown``, which naps where it could wait. They were read in uvicorn's
source, whose versions ``pyproject.toml`` pins; tests in
``tests/test_console.py`` fail if an override stops taking effect.

A guest must not take the table's file descriptors or its loop either, and
uvicorn waits for ever for a request head that never ends and takes every
connection it is offered. So each connection is a :class:`Connection`: it has
:data:`REQUEST_TIMEOUT` to send a whole request, and the :class:`Door` holds
at most :data:`CONNECTIONS`; a newcomer to a full console closes the
connection that has waited longest without a request under way. Running out
of file descriptors anyway (asyncio logs a traceback for every failed accept,
many a second) is logged once a minute at most.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import resource
import socket
from collections.abc import Iterator

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.server import ServerState

log = logging.getLogger("faro_pi")

REQUEST_TIMEOUT = 10.0
"""Seconds a connection has for a whole request (its line, headers and body), from its
opening or the end of its last request. A phone sends one at once; a connection that
holds its request back only holds a file descriptor."""

CONNECTIONS = 256
"""Connections held at once, and at most half the process's file descriptors: a table
has a few phones and each holds one or two."""

STARVED_EVERY = 60.0
"""Seconds between two log lines about the process being out of file descriptors."""

_OUT_OF_RESOURCES = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})

_FULL_BODY = b'{"error":"the console is full: too many connections are open; try again"}'
_FULL = (
    b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n"
    b"content-length: %d\r\nconnection: close\r\n\r\n%s" % (len(_FULL_BODY), _FULL_BODY)
)
"""The answer to a newcomer when every held connection has a request under way."""


def connection_limit() -> int:
    """:data:`CONNECTIONS`, or half the file descriptors this process may open if fewer."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return CONNECTIONS
    return max(1, min(CONNECTIONS, soft // 2))


class Door(ServerState):
    """uvicorn's state shared by the connections, with who is in and who waits idle:
    ``limit`` connections at most, each with ``request_timeout`` seconds for a request."""

    def __init__(self, limit: int, request_timeout: float = REQUEST_TIMEOUT):
        super().__init__()
        self.limit = limit
        self.request_timeout = request_timeout
        self.held: set[Connection] = set()
        """Connections let in and not yet gone or shown out."""
        self.idle: dict[Connection, None] = {}
        """Held connections without a request under way, the longest waiting first."""
        self.peers: dict[tuple, Connection] = {}
        """Held connections by their client's address and port (an ASGI scope's ``client``)."""
        self._emptied: asyncio.Event | None = None

    def let_in(self, newcomer: Connection) -> bool:
        """Holds ``newcomer``, showing out idle connections to stay within the limit;
        False if every other one has a request under way."""
        while len(self.held) >= self.limit:
            if not self.idle:
                return False
            oldest = next(iter(self.idle))
            self.left(oldest)
            oldest.transport.close()
        self.held.add(newcomer)
        if newcomer.client is not None:
            self.peers[tuple(newcomer.client)] = newcomer
        return True

    def left(self, connection: Connection) -> None:
        self.held.discard(connection)
        self.idle.pop(connection, None)
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

    Only for a :class:`GuestServer`, whose state is the :class:`Door`.
    """

    server_state: Door
    _deadline: asyncio.TimerHandle | None = None

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
        """Keeps the door's idle list and the request's deadline in step with the request."""
        if self.transport.is_closing():
            return
        their = self.conn.their_state
        if their is h11.IDLE:
            self.server_state.idle[self] = None
        else:
            self.server_state.idle.pop(self, None)
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


def guest_config(app, backlog: int) -> uvicorn.Config:
    """uvicorn's settings for a page served on the table's (or the floor's) loop: every
    connection a :class:`Connection`, nothing logged per request, no headers that tell."""
    return uvicorn.Config(
        app,
        # uvicorn warns of every malformed request: any client could fill the log.
        log_level="error",
        log_config=None,
        lifespan="off",
        access_log=False,
        http=Connection,
        backlog=backlog,
        ws="none",
        proxy_headers=False,
        server_header=False,
        # A Pi has no clock of its own, and a server without a reliable
        # clock must not send a Date (RFC 9110, 6.6.1).
        date_header=False,
        timeout_graceful_shutdown=1,
    )


class GuestServer(uvicorn.Server):
    """A uvicorn server that leaves the signals alone, sleeps until :meth:`stop` and serves
    :class:`Connection` s through a :class:`Door`."""

    def __init__(self, config: uvicorn.Config, limit: int | None = None):
        super().__init__(config)
        self.server_state = Door(connection_limit() if limit is None else limit)
        self._stopping = asyncio.Event()
        self._listeners: set[int] = set()
        self._previous = None
        """The loop's error handler before this server's, told of everything else."""
        self._starved_at: float | None = None
        self._starved = 0
        """Accepts failed for want of file descriptors since the last log line."""

    async def serve(self, sockets: list[socket.socket] | None = None) -> None:
        """Serves ``sockets``, with the loop's error handler quiet about their failed accepts."""
        loop = asyncio.get_running_loop()
        self._listeners = {sock.fileno() for sock in sockets or ()}
        self._previous = loop.get_exception_handler()
        loop.set_exception_handler(self._loop_error)
        try:
            await super().serve(sockets)
        finally:
            loop.set_exception_handler(self._previous)

    def _loop_error(self, loop: asyncio.AbstractEventLoop, context: dict) -> None:
        exc, listener = context.get("exception"), context.get("socket")
        if (
            isinstance(exc, OSError)
            and exc.errno in _OUT_OF_RESOURCES
            and listener is not None
            and listener.fileno() in self._listeners
        ):
            self._starving(loop.time(), exc)
        elif self._previous is not None:
            self._previous(loop, context)
        else:
            loop.default_exception_handler(context)

    def _starving(self, now: float, exc: OSError) -> None:
        """One line when accepts start failing, then at most one every :data:`STARVED_EVERY`."""
        self._starved += 1
        if self._starved_at is not None and now - self._starved_at < STARVED_EVERY:
            return
        log.warning(
            "console: out of file descriptors, new connections wait (%s; %d failed accepts "
            "since the last such line)",
            exc.strerror or exc,
            self._starved,
        )
        self._starved_at, self._starved = now, 0

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield

    async def main_loop(self) -> None:
        await self._stopping.wait()

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        """uvicorn's shutdown without its naps: it sleeps a tenth of a second, then looks
        ten times a second whether the connections and their requests are done. Here their
        going is awaited, within the same grace, then the requests still running are
        cancelled. On a Pi those naps were a good part of SIGTERM's time to exit."""
        for server in self.servers:
            server.close()
        for sock in sockets or ():
            sock.close()
        door = self.server_state
        for connection in list(door.connections):
            connection.shutdown()
        try:
            async with asyncio.timeout(self.config.timeout_graceful_shutdown):
                await door.emptied()
                if door.tasks:
                    await asyncio.wait(set(door.tasks))
                for server in self.servers:
                    await server.wait_closed()
        except TimeoutError:
            log.warning(
                "console: %d connection(s) still open after %s s; closed",
                len(door.connections),
                self.config.timeout_graceful_shutdown,
            )
            for task in list(door.tasks):
                task.cancel()
            for connection in list(door.connections):
                connection.transport.close()
        await self.lifespan.shutdown()

    def stop(self) -> None:
        """Ends :meth:`serve`: no new connections, a second's grace for the open ones."""
        self.should_exit = True
        self._stopping.set()
