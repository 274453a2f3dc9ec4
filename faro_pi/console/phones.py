"""Logging a phone in and out over HTTP, and the list of the phones logged in.

``GET /?token=TOKEN`` and the OLED's pairing link ``GET /P/CODE`` log a phone
in (:mod:`faro_pi.console.login`); ``POST /api/pair`` makes that link for a phone already
logged in to show another (the same one-use code the OLED shows; a simulated table has no
screen to show it on); ``POST /api/logout`` ends this phone's
session, or with ``{"phone": ID}`` another's, on the daemon
(:mod:`faro_pi.console.sessions`); ``GET /api/phones`` lists them for the
lookout, who ends them one by one from the page. The routes describe
themselves here for the console's OpenAPI document (:data:`PATHS`,
:data:`SCHEMAS`).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path

import segno
from starlette.responses import FileResponse, PlainTextResponse, RedirectResponse
from starlette.routing import Route

from faro_pi.console import posted
from faro_pi.console.login import CHALLENGE, PAIRING, UNAUTHORISED, Login

log = logging.getLogger("faro_pi")

LOGOUT_BODY = 1024
"""Bytes of a logout's body: ``{"phone": ID}`` at most."""

_HOW_TO_PAIR = (
    "Hold the shoe's new-pack button for 3 seconds and scan the code the table's screen "
    "shows, or open the page and enter the console's token."
)


class Phones:
    """The routes of logging in and out, for a console's :class:`Login`.

    ``page`` is served at ``/``; ``refused(request)`` is the console's answer to a write it
    may not take (no token nor cookie, another page's, not JSON), or None; ``answer(status,
    body, headers)`` its JSON.
    """

    def __init__(
        self,
        login: Login,
        page: Path,
        refused: Callable,
        answer: Callable,
        pair: Callable[[], str],
    ):
        self.login = login
        self.pair = pair
        self.page = page
        self.refused = refused
        self.answer = answer

    def routes(self) -> list[Route]:
        return [
            Route("/", self._home, methods=["GET"]),
            Route("/P/{code}", self._paired, methods=["GET"]),
            Route("/api/pair", self._pair, methods=["POST"]),
            Route("/api/logout", self._logout, methods=["POST"]),
            Route("/api/phones", self._phones, methods=["GET"]),
        ]

    async def _home(self, request):
        """The page; with ``?token=``, a session cookie for this browser, and on to ``/``
        without the token in the address (nor in the history)."""
        given = request.query_params.get("token")
        if given is None:
            return FileResponse(self.page, headers={"Cache-Control": "no-store"})
        if not self.login.is_token(given):
            return _page_text(401, "That link's token is not this table's. " + _HOW_TO_PAIR)
        return self._logged_in(request)

    async def _paired(self, request):
        """A pairing link from the OLED: once, within its time, the same cookie."""
        if not self.login.redeem(request.path_params["code"]):
            peer = request.scope.get("client")
            log.warning(
                "console: a pairing link that is not the live one (used, out of time, or a "
                "guess) from %s",
                peer[0] if peer else "an unknown address",
            )
            return _page_text(
                403, "That pairing link has been used or is out of time. " + _HOW_TO_PAIR
            )
        return self._logged_in(request)

    def _logged_in(self, request):
        answer = RedirectResponse("/", 303, headers={"Cache-Control": "no-store"})
        self.login.cookie(answer, request.headers.get("user-agent"))
        return answer

    async def _pair(self, request):
        """A new pairing link and its QR code, for another phone to scan from this one's
        screen: good once, for :data:`~faro_pi.console.login.PAIRING` seconds (any earlier
        one, the OLED's too, is void)."""
        if (refusal := self.refused(request)) is not None:
            return refusal
        link = self.pair()
        qr = segno.make(link, error="m").svg_data_uri(scale=6, border=4, dark="#000", light="#fff")
        log.info("console: a pairing code shown on a logged-in page, good once")
        return self.answer(200, {"link": link, "seconds": PAIRING, "qr": qr})

    async def _logout(self, request):
        """Ends this phone's session (its cookie's), or with ``{"phone": ID}`` another's."""
        if (refusal := self.refused(request)) is not None:
            return refusal
        try:
            body = await posted.body(request, LOGOUT_BODY)
            named = json.loads(body or b"{}").get("phone")
            if named is not None and not isinstance(named, str):
                raise TypeError
        except (posted.TooLarge, posted.Unfinished, ValueError, TypeError, AttributeError,
                RecursionError):  # fmt: skip
            why = f'the body is {{}} or {{"phone": ID}}, at most {LOGOUT_BODY} bytes'
            return self.answer(400, {"error": why})
        own = self.login.session(request.headers)
        if named is None:
            ended = own and self.login.sessions.end(own.id)
        elif (ended := self.login.sessions.end(named)) is None:
            return self.answer(404, {"error": f"no phone is logged in as {named[:40]!r}"})
        answer = self.answer(200, {"ended": ended.id if ended else None})
        if ended is None or ended is own:  # this browser's cookie opens nothing any more
            self.login.forget(answer)
        return answer

    async def _phones(self, request):
        """The phones logged in, for the lookout: when each logged in, when it was last seen
        and what it is."""
        if not self.login.lookout(request.headers):
            why = "the phones logged in are the lookout's: log this phone in, or send the token"
            return self.answer(401, {"error": f"{why} ({UNAUTHORISED['error']})"}, CHALLENGE)
        own = self.login.session(request.headers)
        sessions = self.login.sessions
        phones = [
            {
                "id": phone.id,
                "device": phone.device,
                "since": phone.since,
                "seen": phone.seen,
                "this": phone is own,
            }
            for phone in sessions.listing()
        ]
        return self.answer(200, {"now": sessions.now(), "phones": phones})


def _page_text(status: int, text: str):
    return PlainTextResponse(text + "\n", status, headers={"Cache-Control": "no-store"})


_ERROR = {"$ref": "#/components/schemas/Error"}


def _answer(description: str, schema: dict) -> dict:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


PATHS = {
    "/api/pair": {
        "post": {
            "operationId": "pair",
            "summary": "A pairing link and its QR code, to log another phone in from this one",
            "description": "The same one-use code the OLED shows while new pack is held: good "
            "once, for two minutes; any earlier code is void. Needs the token or a session "
            "cookie, from the console's own page, as JSON (an empty body).",
            "security": [{"token": []}],
            "requestBody": {
                "required": False,
                "content": {
                    "application/json": {
                        "schema": {"type": "object", "additionalProperties": False},
                        "examples": {"a code": {"value": {}}},
                    }
                },
            },
            "responses": {
                "200": _answer(
                    "The link, how many seconds it is good for, and its QR code (an SVG as a "
                    "data: URI, for an image's src)",
                    {
                        "type": "object",
                        "properties": {
                            "link": {"type": "string"},
                            "seconds": {"type": "number"},
                            "qr": {"type": "string"},
                        },
                        "required": ["link", "seconds", "qr"],
                    },
                ),
                "401": _answer("No token, and no live session cookie", _ERROR),
                "403": _answer("From another page than the console's own", _ERROR),
                "415": _answer("Not sent as application/json", _ERROR),
            },
        }
    },
    "/api/logout": {
        "post": {
            "operationId": "logout",
            "summary": "Log a phone out: this one (its session cookie), or another by its id",
            "description": "Ends the session on the daemon: the cookie opens nothing any more. "
            "Needs the token or a session cookie, from the console's own page, as JSON.",
            "security": [{"token": []}],
            "requestBody": {
                "required": False,
                "content": {
                    "application/json": {
                        "schema": {
                            "type": "object",
                            "properties": {"phone": {"type": "string"}},
                            "additionalProperties": False,
                        },
                        "examples": {
                            "this phone": {"value": {}},
                            "another phone": {"value": {"phone": "1a2b3c4d"}},
                        },
                    }
                },
            },
            "responses": {
                "200": _answer(
                    "Logged out: the id of the phone whose session ended (null if this "
                    "request had none); this phone's cookie is deleted",
                    {
                        "type": "object",
                        "properties": {"ended": {"type": ["string", "null"]}},
                        "required": ["ended"],
                    },
                ),
                "400": _answer('The body is not {} nor {"phone": ID}', _ERROR),
                "401": _answer("No token, and no live session cookie", _ERROR),
                "403": _answer("From another page than the console's own", _ERROR),
                "404": _answer("No phone is logged in with that id", _ERROR),
                "415": _answer("Not sent as application/json", _ERROR),
            },
        }
    },
    "/api/phones": {
        "get": {
            "operationId": "phones",
            "summary": "The phones logged in, for the lookout (the token or a session cookie)",
            "security": [{"token": []}],
            "responses": {
                "200": _answer("The phones logged in", {"$ref": "#/components/schemas/Phones"}),
                "401": _answer("No token, and no live session cookie", _ERROR),
            },
        }
    },
}
"""The routes of logging in and out, in the console's OpenAPI document."""

_PHONE = {
    "type": "object",
    "properties": {
        "id": {"type": "string", "description": "Names it to POST /api/logout."},
        "device": {"type": "string", "description": "From its User-Agent: 'iPhone · Safari'."},
        "since": {"type": "integer", "description": "When it logged in (epoch seconds)."},
        "seen": {"type": "integer", "description": "When a request of its was last seen."},
        "this": {"type": "boolean", "description": "The phone asking."},
    },
    "required": ["id", "device", "since", "seen", "this"],
}
SCHEMAS = {
    "Phones": {
        "type": "object",
        "properties": {
            "now": {"type": "integer", "description": "The daemon's clock (epoch seconds)."},
            "phones": {"type": "array", "items": _PHONE},
        },
        "required": ["now", "phones"],
    }
}
