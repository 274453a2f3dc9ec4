"""A posted body, read whole up to a bound: refused past it before the rest is read, and
told apart from one whose connection closed before it came whole. Every write route of
the console reads its body so."""

from __future__ import annotations

from starlette.requests import ClientDisconnect, Request


class TooLarge(Exception):
    """A posted body past its bound: refused before it is all read."""


class Unfinished(Exception):
    """A posted body that never came whole: the connection closed first."""


async def body(request: Request, most: int) -> bytes:
    """The body of ``request``, at most ``most`` bytes; :class:`TooLarge` past them,
    :class:`Unfinished` when the connection closes first."""
    chunks, size = [], 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > most:
                raise TooLarge
            chunks.append(chunk)
    except ClientDisconnect:
        raise Unfinished from None
    return b"".join(chunks)
