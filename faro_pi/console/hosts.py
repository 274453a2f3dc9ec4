"""The names the console answers to: its guard against DNS rebinding.

A page on any site the lookout's phone visits can point its own name at the
table's address (DNS rebinding), then read ``/api/state`` and ``/api/export``
as its own. The browser still names that site in the request's ``Host``, so
the console answers only its own names (``[console] allowed_hosts``) and IP
addresses: a page served from elsewhere never has an address for its origin.
Anything else is answered 421 with one line of JSON, before any route is reached.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import socket
import time

from faro_pi.config import ConsoleConfig

log = logging.getLogger("faro_pi")

REFUSED_EVERY = 60.0
"""Seconds between two log lines about refused names: a page that keeps trying must not
fill the log."""


def allowed_names(settings: ConsoleConfig) -> frozenset[str]:
    """The configured names, or by default ``localhost``, this machine's hostname (and its
    ``.local``, as mDNS calls it) and the address the console listens on."""
    if settings.allowed_hosts is not None:
        return frozenset(_name(name) for name in settings.allowed_hosts)
    hostname = socket.gethostname()
    short = hostname.partition(".")[0]
    return frozenset(
        _name(name) for name in ("localhost", hostname, short, f"{short}.local", settings.host)
    )


def host_name(value: str) -> str:
    """The name or address in a ``Host`` header, without its port, as :func:`allowed_names`
    keeps names."""
    if value.startswith("["):  # an IPv6 address, with or without a port
        return _name(value[1:].partition("]")[0])
    if value.count(":") == 1:
        value = value.partition(":")[0]
    return _name(value)


def is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def _name(name: str) -> str:
    return name.strip().rstrip(".").lower()


class HostCheck:
    """ASGI middleware: a request for a name not in ``names`` (nor an address) gets 421."""

    def __init__(self, app, names: frozenset[str]):
        self.app = app
        self.names = names
        self._refused_at: float | None = None

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http":
            given = dict(scope["headers"]).get(b"host")
            if given is not None:
                name = host_name(given.decode("latin-1"))
                if name not in self.names and not is_address(name):
                    await self._refuse(name, send)
                    return
        await self.app(scope, receive, send)

    async def _refuse(self, name: str, send) -> None:
        shown = name if len(name) <= 60 else name[:57] + "..."
        now = time.monotonic()
        if self._refused_at is None or now - self._refused_at >= REFUSED_EVERY:
            self._refused_at = now
            log.warning(
                "console: refused a request for the name %s: not in console.allowed_hosts "
                "(more are refused without a line for a minute)",
                ascii(shown),
            )
        body = json.dumps(
            {
                "error": f"this console does not answer to the name {shown}: "
                "add it to [console] allowed_hosts, or use the table's IP address"
            }
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 421,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"cache-control", b"no-store"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
