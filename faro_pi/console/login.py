"""Logging a phone in: the session cookie, and the pairing links the OLED shows.

The lookout's phone should not have to hold, nor type, the console's
43-character token. Opening ``/?token=TOKEN`` once, or scanning the pairing
code the OLED shows while *new pack* is held (:data:`PAIRING` seconds, one
use), gives the browser a session cookie instead, and every later request
of the page carries it, the event stream's too (an ``EventSource`` sends a
cookie, never a header).

The cookie is HttpOnly (no script reads it), SameSite=Strict (no other
site's page can post with it) and lives :data:`~faro_pi.console.sessions.SESSION`
seconds: a night at the table, from its start to the small hours, and no
longer, so a phone left behind or a lookout of last week cannot change
tonight's table. It names a session the daemon keeps
(:mod:`faro_pi.console.sessions`), which ``POST /api/logout`` ends
(:mod:`faro_pi.console.phones`), and making a new token (deleting the token
file) logs every phone out.
"""

from __future__ import annotations

import hmac
import secrets
import socket
import time
from collections.abc import Callable

from faro_pi.console.sessions import SESSION, Session, Sessions
from faro_pi.console.token import TOKEN_FILE

COOKIE = "faro-pi"
"""The session cookie's name."""

PAIRING = 120.0
"""Seconds a pairing link shown on the OLED can be used (once)."""

CODE_LETTERS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
"""A pairing code's alphabet: all within a QR code's alphanumeric mode, as are the link's
other characters once in capitals, so the whole link fits a code the OLED draws large."""

CODE_LENGTH = 12
"""Letters of a pairing code: 62 bits, for a link that lives two minutes and is used once."""

UNAUTHORISED = {
    "error": "a change needs the console's token: send 'Authorization: Bearer <token>' "
    f"(the token is in {TOKEN_FILE} beside the journal)"
}
"""The body of a 401, with :data:`CHALLENGE` as its header."""
CHALLENGE = {"WWW-Authenticate": 'Bearer realm="faro-pi"'}


class Login:
    """The console's token, the phones' sessions and its one pairing code."""

    def __init__(
        self,
        token: str,
        sessions: Sessions | None = None,
        *,
        monotonic: Callable[[], float] = time.monotonic,
    ):
        self._token = token.encode()
        self.sessions = sessions if sessions is not None else Sessions(token, None)
        self._monotonic = monotonic
        self._code: str | None = None
        self._code_until = 0.0
        self.paired: Callable[[], None] = lambda: None
        """Called when a pairing link has been used (the OLED goes back to the table)."""

    # -- the token and the cookie ---------------------------------------------------

    def is_token(self, given: str) -> bool:
        return hmac.compare_digest(given.strip().encode(), self._token)

    def lookout(self, headers) -> bool:
        """Whether a request with ``headers`` is the lookout's: the token as ``Authorization:
        Bearer``, or the session cookie of a phone logged in (seen now)."""
        scheme, _, given = headers.get("authorization", "").partition(" ")
        if scheme.lower() == "bearer":
            return self.is_token(given)
        return self.session(headers) is not None

    def session(self, headers) -> Session | None:
        """The live session whose cookie a request with ``headers`` carries (seen now)."""
        for pair in headers.get("cookie", "").split(";"):
            name, _, value = pair.strip().partition("=")
            if name == COOKIE:
                return self.sessions.find(value.strip('"'))
        return None

    def cookie(self, response, user_agent: str | None) -> None:
        """Sets a new session's cookie on a Starlette ``response``, for the phone that sent
        ``user_agent``."""
        value = self.sessions.log_in(user_agent)
        response.set_cookie(
            COOKIE, value, max_age=SESSION, path="/", httponly=True, samesite="strict"
        )

    def forget(self, response) -> None:
        """Deletes the session cookie in the browser that gets ``response``."""
        response.delete_cookie(COOKIE, path="/", httponly=True, samesite="strict")

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
