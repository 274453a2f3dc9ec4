"""Logging a phone in: the console's session cookie, and the pairing links the OLED shows.

The lookout's phone should not have to hold, nor type, the console's
43-character token. Opening ``/?token=TOKEN`` once, or scanning the pairing
code the OLED shows while *new pack* is held (:data:`PAIRING` seconds, one
use), gives the browser a session cookie instead, and every later request
of the page carries it, the event stream's too (an ``EventSource`` sends a
cookie, never a header).

The cookie is HttpOnly (no script reads it), SameSite=Strict (no other
site's page can post with it) and lives :data:`SESSION` seconds: a night at
the table, from its start to the small hours, and no longer, so a phone left
behind or a lookout of last week cannot change tonight's table. It is the
time it was made, sealed with a key drawn from the token, so it outlives a
restart of the daemon, and making a new token (deleting the token file)
logs every phone out.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import socket
import time
from collections.abc import Callable

COOKIE = "faro-pi"
"""The session cookie's name."""

SESSION = 16 * 3600
"""Seconds a phone stays logged in (the cookie's Max-Age): the longest night, not the next."""

PAIRING = 120.0
"""Seconds a pairing link shown on the OLED can be used (once)."""

CODE_LETTERS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
"""A pairing code's alphabet: all within a QR code's alphanumeric mode, as are the link's
other characters once in capitals, so the whole link fits a code the OLED draws large."""

CODE_LENGTH = 12
"""Letters of a pairing code: 62 bits, for a link that lives two minutes and is used once."""


class Login:
    """The console's sessions and its one pairing code, keyed by the console's token."""

    def __init__(
        self,
        token: str,
        *,
        clock: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
    ):
        self._token = token.encode()
        self._key = hmac.digest(self._token, b"faro-pi session", hashlib.sha256)
        self._clock = clock
        self._monotonic = monotonic
        self._code: str | None = None
        self._code_until = 0.0
        self.paired: Callable[[], None] = lambda: None
        """Called when a pairing link has been used (the OLED goes back to the table)."""

    # -- the token and the cookie ---------------------------------------------------

    def is_token(self, given: str) -> bool:
        return hmac.compare_digest(given.strip().encode(), self._token)

    def session(self) -> str:
        """A new session cookie's value: when it was made, and its seal."""
        made = str(int(self._clock()))
        return f"{made}.{self._seal(made)}"

    def in_session(self, value: str | None) -> bool:
        """Whether ``value`` is a session cookie of this token, made in the last :data:`SESSION`."""
        made, _, seal = (value or "").partition(".")
        if not made.isdigit() or not hmac.compare_digest(seal.encode(), self._seal(made).encode()):
            return False
        return self._clock() - int(made) < SESSION

    def _seal(self, made: str) -> str:
        return hmac.digest(self._key, made.encode(), hashlib.sha256).hex()[:32]

    def cookie(self, response) -> None:
        """Sets a new session cookie on a Starlette ``response``."""
        response.set_cookie(
            COOKIE, self.session(), max_age=SESSION, path="/", httponly=True, samesite="strict"
        )

    # -- pairing ---------------------------------------------------------------

    def pairing(self) -> str:
        """A new pairing code, good once for :data:`PAIRING` seconds; any earlier one is void."""
        self._code = "".join(secrets.choice(CODE_LETTERS) for _ in range(CODE_LENGTH))
        self._code_until = self._monotonic() + PAIRING
        return self._code

    def redeem(self, code: str) -> bool:
        """Whether ``code`` is the live pairing code; it is spent either way it matched."""
        live = self._code
        if live is None or not hmac.compare_digest(code.encode(), live.encode()):
            return False
        self._code = None
        self.paired()
        return self._monotonic() < self._code_until


def link(host: str, port: int, code: str) -> str:
    """The pairing link for ``code``, in capitals (a QR code's alphanumeric mode): the
    console's configured address, or when it listens on every address, the Pi's own
    address on the network its default route leaves by."""
    if host in ("0.0.0.0", "::", ""):
        host = own_address()
    where = f"[{host}]" if ":" in host else host
    return f"HTTP://{where.upper()}:{port}/P/{code}"


def own_address() -> str:
    """The address other machines reach this one by: the source of its default route (a
    datagram socket's connect sends nothing), or its host name without a network."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1, never reached: only routed
            return probe.getsockname()[0]
        except OSError:
            return socket.gethostname()
