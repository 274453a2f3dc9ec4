"""The event stream, ``GET /api/events``: the state after every change, as Server-Sent Events.

Each open stream has its own short queue. A phone that stops reading and
falls behind by a whole queue is hung up on (its page reconnects and starts
from the state then), so a client that never reads holds neither the table
nor a connection's worth of memory for long; a burst of changes faster than
a stream's turns only costs it the oldest states. Streams are never idle, so the
connection cap of :mod:`faro_pi.console.guest` cannot show them out: they are
bounded here instead, per client address and in all, and a stream of the
lookout's (with the token or the console's cookie) takes the place of the
oldest anonymous one rather than be turned away.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable

HEARTBEAT = 2.0
"""Seconds between beats on a quiet event stream. A hung table (its process stopped, its
connections open) sends nothing at all: the page calls it offline after three beats missed,
within seconds, where it would otherwise show a frozen table as live."""

BACKLOG = 8
"""States held for one event stream; a reader that stops reading and falls behind by more is
hung up on."""

STREAMS = 32
"""Event streams open at once: a table has a few phones, each with a page or two."""

STREAMS_PER_ADDRESS = 8
"""Anonymous event streams open at once from one client address."""

_opened = itertools.count()


class Client:
    """One open event stream, with its own bounded queue of states to send.

    ``hang_up`` ends its connection (the console's :class:`~faro_pi.console.guest.Door`
    closes it); without one, a client that falls behind loses the oldest states instead.
    """

    def __init__(
        self,
        address: str | None = None,
        authorised: bool = False,
        hang_up: Callable[[], None] | None = None,
    ) -> None:
        self.queue: asyncio.Queue[bytes | None] = asyncio.Queue(BACKLOG)
        self.task = asyncio.current_task()
        """The request's task: done once the stream has ended."""
        self.address = address
        self.authorised = authorised
        self.hang_up = hang_up
        self.opened = next(_opened)
        self.lost = 0
        """States dropped because this client read too slowly."""
        self.dropped = False
        """Hung up on for falling behind by a whole queue."""
        self.sending = False
        """A send is under way: it waits only while the client's connection takes no more."""

    def offer(self, message: bytes | None) -> None:
        """Queues a message (None ends the stream). When the queue is full, a client that
        is not reading (its last send waits on its connection) is hung up on; one that has
        only not had its turn yet (a burst of changes) loses its oldest state."""
        if self.dropped:
            return
        if self.queue.full():
            if self.hang_up is not None and self.sending and message is not None:
                self.drop()
                return
            self.queue.get_nowait()
            self.lost += 1
        self.queue.put_nowait(message)

    def drop(self) -> None:
        """Ends the stream and hangs up its connection, whatever its client is doing."""
        self.dropped = True
        while not self.queue.empty():
            self.queue.get_nowait()
        self.queue.put_nowait(None)
        if self.hang_up is not None:
            self.hang_up()


def room(clients: set[Client], address: str | None, authorised: bool) -> tuple[int, str] | None:
    """Why a new stream from ``address`` cannot open now, as an HTTP status and a message,
    or None (having made room).

    The lookout's streams are not counted per address, and when every place
    is taken one of theirs hangs up the oldest anonymous stream.
    """
    if not authorised:
        same = sum(1 for c in clients if c.address == address and not c.authorised)
        if same >= STREAMS_PER_ADDRESS:
            return 429, f"{STREAMS_PER_ADDRESS} event streams are open from {address} already"
    if len(clients) < STREAMS:
        return None
    anonymous = [c for c in clients if not c.authorised and not c.dropped]
    if authorised and anonymous:
        min(anonymous, key=lambda c: c.opened).drop()
        return None
    return 503, f"the console holds {STREAMS} event streams already"


class EventStream:
    """The ASGI response of ``GET /api/events``: states as they come, until either side ends it.

    ``first`` gives the message of the state now, sent once the stream opens; the
    console offers every later one to the :class:`Client` it finds in ``clients``.
    """

    def __init__(self, first: Callable[[], bytes], clients: set, heartbeat: float, client: Client):
        self.first = first
        self.clients = clients
        self.heartbeat = heartbeat
        self.client = client

    async def __call__(self, scope, receive, send) -> None:
        if scope["method"] == "HEAD":
            await send({"type": "http.response.start", "status": 200, "headers": STREAM_HEADERS})
            await send({"type": "http.response.body", "body": b""})
            return
        await send_stream(
            receive, send, self.first(), self.clients, self.heartbeat, client=self.client
        )


STREAM_HEADERS = [
    (b"content-type", b"text/event-stream; charset=utf-8"),
    (b"cache-control", b"no-store"),
    (b"x-accel-buffering", b"no"),
]


def beat(heartbeat: float) -> bytes:
    """A heartbeat: an event a page can watch for (a comment line never reaches its script),
    with the seconds to the next one."""
    return b"event: beat\ndata: %g\n\n" % heartbeat


async def send_stream(
    receive, send, first: bytes, clients: set, heartbeat: float, client: Client | None = None
) -> None:
    """Sends ``first``, then every message offered to the stream's :class:`Client` (which
    sits in ``clients`` while it is open), with a :func:`beat` when quiet for ``heartbeat`` seconds;
    ends when the other side goes or a None is offered. The console and the floor page share
    it."""
    client = client or Client()
    client.task = asyncio.current_task()
    client.offer(b"retry: 2000\n\n")
    client.offer(first)
    client.offer(beat(heartbeat))  # the page learns at once how long a silence may last
    clients.add(client)
    listening = asyncio.create_task(_until_gone(receive, client))
    try:
        await send({"type": "http.response.start", "status": 200, "headers": STREAM_HEADERS})
        while True:
            try:
                async with asyncio.timeout(heartbeat):
                    message = await client.queue.get()
            except TimeoutError:
                message = beat(heartbeat)
            if message is None:
                break
            client.sending = True
            await send({"type": "http.response.body", "body": message, "more_body": True})
            client.sending = False
        await send({"type": "http.response.body", "body": b"", "more_body": False})
    except OSError:
        pass  # the client went away mid-send
    finally:
        clients.discard(client)
        listening.cancel()


async def _until_gone(receive, client: Client) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
    client.offer(None)
