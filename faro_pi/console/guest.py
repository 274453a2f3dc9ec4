"""uvicorn's server as a guest on the daemon's loop.

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

A guest must not take the table's file descriptors or its loop either: its
connections are let in by a :class:`~faro_pi.console.door.Door`, at most
:data:`CONNECTIONS`, and running out of file descriptors anyway (asyncio logs a
traceback for every failed accept, many a second) is logged once a minute at
most.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import resource
import socket
from collections.abc import Iterator

import uvicorn

from faro_pi.console.door import Connection, Door, Doorway, Lookout

log = logging.getLogger("faro_pi")

CONNECTIONS = 256
"""Connections held at once, and at most half the process's file descriptors: a table
has a few phones and each holds one or two."""

STARVED_EVERY = 60.0
"""Seconds between two log lines about the process being out of file descriptors."""

_OUT_OF_RESOURCES = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})


def connection_limit() -> int:
    """:data:`CONNECTIONS`, or half the file descriptors this process may open if fewer."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return CONNECTIONS
    return max(1, min(CONNECTIONS, soft // 2))


def guest_config(app, backlog: int) -> uvicorn.Config:
    """uvicorn's settings for a page served on the table's (or the floor's) loop: every
    connection a :class:`Connection`, nothing logged per request, no headers that tell."""
    return uvicorn.Config(
        Doorway(app),
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

    def __init__(
        self, config: uvicorn.Config, limit: int | None = None, lookout: Lookout | None = None
    ):
        super().__init__(config)
        limit = connection_limit() if limit is None else limit
        self.server_state = Door(limit, lookout=lookout)
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
