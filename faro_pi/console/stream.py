"""The event stream, ``GET /api/events``: the state after every change, as Server-Sent Events.

Each open stream has its own short queue; a phone that reads too slowly loses
the oldest states, and never holds the table or the other streams.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

HEARTBEAT = 15.0
"""Seconds between comments on a quiet event stream, so proxies and phones keep it open."""

BACKLOG = 8
"""States held for one event stream; a slower reader loses the oldest, never holds the table."""


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


class EventStream:
    """The ASGI response of ``GET /api/events``: states as they come, until either side ends it.

    ``first`` gives the message of the state now, sent once the stream opens; the
    console offers every later one to the :class:`Client` it finds in ``clients``.
    """

    def __init__(self, first: Callable[[], bytes], clients: set, heartbeat: float):
        self.first = first
        self.clients = clients
        self.heartbeat = heartbeat

    async def __call__(self, scope, receive, send) -> None:
        if scope["method"] == "HEAD":
            await send({"type": "http.response.start", "status": 200, "headers": STREAM_HEADERS})
            await send({"type": "http.response.body", "body": b""})
            return
        await send_stream(receive, send, self.first(), self.clients, self.heartbeat)


STREAM_HEADERS = [
    (b"content-type", b"text/event-stream; charset=utf-8"),
    (b"cache-control", b"no-store"),
    (b"x-accel-buffering", b"no"),
]


async def send_stream(receive, send, first: bytes, clients: set, heartbeat: float) -> None:
    """Sends ``first``, then every message offered to the stream's :class:`Client` (which
    sits in ``clients`` while it is open), with a comment when quiet for ``heartbeat`` seconds;
    ends when the other side goes or a None is offered. The console and the floor page share
    it."""
    client = Client()
    client.offer(b"retry: 2000\n\n")
    client.offer(first)
    clients.add(client)
    listening = asyncio.create_task(_until_gone(receive, client))
    try:
        await send({"type": "http.response.start", "status": 200, "headers": STREAM_HEADERS})
        while True:
            try:
                async with asyncio.timeout(heartbeat):
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
        clients.discard(client)
        listening.cancel()


async def _until_gone(receive, client: Client) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
    client.offer(None)
