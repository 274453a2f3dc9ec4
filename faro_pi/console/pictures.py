"""The camera's stills on the lookout's page, and the camera's aiming view.

``GET /api/pictures/HASH.jpg`` serves a still a row names (a card's, or a no-read's);
``GET /api/pictures`` says which cards of the night have one, by pack and card, for the
page's history; ``GET /api/camera/view.jpg`` asks the camera reader for its aiming view
and serves the latest, with the light check's verdict in ``X-Light``. ``POST
/api/camera/teach`` asks the camera reader to teach a new deck from the box
(``{"deck": NAME}``), or to stop (``{"cancel": true}``), and ``GET /api/camera/teach``
says how far it is (:mod:`faro_pi.camera.lesson`). Each needs the console's token or
session cookie, as a change does: the stills show the table's cards.
The stills live in the pictures' folder (:mod:`faro_pi.pictures`); a name that is not a
hash is refused before any file is looked at.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable

from starlette.responses import Response
from starlette.routing import Route

from faro_pi.console import posted
from faro_pi.exc import JournalError
from faro_pi.game.events import CardDrawn
from faro_pi.pictures import DECK_NAME, KEEP, PICTURE, Folder

log = logging.getLogger("faro_pi")

SCAN = 20_000
"""Journal rows looked back through at start for the night's stills: a long night's."""
VIEW_FRESH = 3.0
"""Seconds an aiming view is shown for: older, the camera has stopped writing it."""
TEACH_FRESH = 10.0
"""Seconds the camera may leave an ask untaken, or a lesson unsaid, before the page hears
that it is not answering: it looks, and says how far it is, once a second."""
TEACH_BODY = 256
"""Bytes of a teaching ask: ``{"deck": NAME}`` or ``{"cancel": true}``."""
UNDER_WAY = ("dealing", "teaching")
"""The states of a lesson the camera is at."""


def night_pictures(daemon) -> dict[tuple[int, str], str]:
    """Each card of the night (or of the last ``SCAN`` rows) that has a still, by pack and
    code: the journal read back from its end, so that each pack's number is the table's
    now less the new packs since."""
    journal, pack, found = daemon.journal, daemon.table.pack.number, {}
    try:
        rows = list(journal.rows(after=max(0, journal.count() - SCAN)))
    except JournalError as exc:
        log.warning("console: the night's stills are not shown: %s", exc)
        return found
    for entry in reversed(rows):
        event = entry.event
        if entry.refused is not None:
            continue
        if event["type"] == "session":
            break  # the history the page shows begins here
        if event["type"] == "shuffle":
            pack -= 1
        elif event["type"] == "card" and isinstance(event.get("picture"), str):
            found.setdefault((pack, str(event.get("card"))), event["picture"])
    return found


class Pictures:
    """The routes of the stills and the aiming view, for one console."""

    def __init__(self, daemon, authorized: Callable, answer: Callable, refused: Callable):
        self.folder: Folder = daemon.pictures or Folder(daemon.config.camera.pictures)
        self.authorized, self.answer, self.write_refused = authorized, answer, refused
        self.cards = night_pictures(daemon)
        """(pack, card code) → still, for the night's cards that have one."""

    def seen(self, table, event) -> None:
        """Every applied event: a card with a still joins the night's."""
        if isinstance(event, CardDrawn) and event.picture is not None:
            self.cards[(table.pack.number, event.card.code)] = event.picture

    def routes(self) -> list[Route]:
        return [
            Route("/api/pictures", self._index, methods=["GET"]),
            Route("/api/pictures/{name}", self._picture, methods=["GET"]),
            Route("/api/camera/view.jpg", self._view, methods=["GET"]),
            Route("/api/camera/teach", self._teaching, methods=["GET"]),
            Route("/api/camera/teach", self._teach, methods=["POST"]),
        ]

    def _refused(self, request):
        if self.authorized(request):
            return None
        return self.answer(
            401,
            {"error": "the camera's pictures need the console's token (or the page's login)"},
            {"WWW-Authenticate": 'Bearer realm="faro-pi"'},
        )

    async def _index(self, request):
        if (refusal := self._refused(request)) is not None:
            return refusal
        cards = [
            {"pack": pack, "card": code, "picture": picture}
            for (pack, code), picture in self.cards.items()
        ]
        return self.answer(200, {"cards": cards})

    async def _picture(self, request):
        if (refusal := self._refused(request)) is not None:
            return refusal
        name = request.path_params["name"]
        if not name.endswith(".jpg") or not PICTURE.fullmatch(name[:-4]):
            return self.answer(
                404, {"error": "a picture is named by its SHA-256: 64 lowercase hex digits, .jpg"}
            )
        try:
            data = self.folder.picture(name[:-4]).read_bytes()
        except OSError:
            return self.answer(
                404, {"error": f"that picture is no longer kept (the newest {KEEP:,} are)"}
            )
        # named by its content: it never changes, but it stays in this browser only
        headers = {"Cache-Control": "private, max-age=31536000, immutable"}
        return Response(data, media_type="image/jpeg", headers=headers)

    async def _view(self, request):
        """Asks the camera for its aiming view (for the next few seconds), and serves the
        latest it wrote."""
        if (refusal := self._refused(request)) is not None:
            return refusal
        try:
            self.folder.want_view()
        except OSError as exc:
            return self.answer(503, {"error": f"cannot ask the camera for its view: {exc}"})
        view = self.folder.view(VIEW_FRESH)
        if view is None:
            return self.answer(
                503,
                {
                    "error": "no view from the camera yet: it comes within a second or two "
                    "while faro-pi camera run runs on this Pi"
                },
            )
        jpeg, light = view
        headers = {
            "Cache-Control": "no-store",
            "X-Light": light.encode("ascii", "replace").decode(),
        }
        return Response(jpeg, media_type="image/jpeg", headers=headers)

    async def _teaching(self, request):
        """How far the camera is with the deck it is taught: its last words, and whether it
        has stopped answering."""
        if (refusal := self._refused(request)) is not None:
            return refusal
        return self.answer(200, self._lesson(), {"Cache-Control": "no-store"})

    def _lesson(self) -> dict:
        said, now = self.folder.teaching(), time.time()
        asked = said.pop("asked", None)
        if asked is not None:
            said["asked"] = True
            if now - asked > TEACH_FRESH:
                said["error"] = "the camera reader has not taken the ask: is faro-pi camera "\
                    "run running on this Pi?"  # fmt: skip
        elif said.get("state") in UNDER_WAY and now - float(said.get("at", 0)) > TEACH_FRESH:
            said["error"] = "the camera reader stopped answering: the deck is not taught"
        said.setdefault("state", "none")
        return said

    async def _teach(self, request):
        """Asks the camera reader to teach a deck dealt through the box, or to stop."""
        if (refusal := self.write_refused(request)) is not None:
            return refusal
        try:
            asked = json.loads(await posted.body(request, TEACH_BODY))
        except (posted.TooLarge, posted.Unfinished, ValueError, RecursionError):
            asked = None
        if isinstance(asked, dict) and asked.get("cancel") is True:
            asked = {"cancel": True}
        elif isinstance(asked, dict) and isinstance(asked.get("deck"), str):
            if not DECK_NAME.fullmatch(asked["deck"]):
                why = "a deck's name is lowercase letters, digits and dashes, 1 to 40"
                return self.answer(400, {"rule": "deck", "error": why})
            lesson = self._lesson()
            if lesson["state"] in UNDER_WAY and "error" not in lesson:
                why = f"the deck {lesson.get('deck')} is being taught: cancel it first"
                return self.answer(409, {"rule": "teaching", "error": why})
            asked = {"deck": asked["deck"]}
        else:
            why = 'the body is {"deck": NAME} to teach a deck, or {"cancel": true}'
            return self.answer(400, {"error": why})
        try:
            self.folder.ask_teaching(asked)
        except OSError as exc:
            return self.answer(503, {"error": f"cannot ask the camera to teach: {exc}"})
        return self.answer(202, self._lesson())


_ERROR = {"$ref": "#/components/schemas/Error"}
_OBJECT = {"type": "object"}


def _answer(description: str, schema: dict, kind: str = "application/json") -> dict:
    return {"description": description, "content": {kind: {"schema": schema}}}


def _get(operation: str, summary: str, ok: dict, *more: tuple[str, str]) -> dict:
    answers = {"200": ok, "401": _answer("No token, and no live session cookie", _ERROR)}
    answers |= {code: _answer(why, _ERROR) for code, why in more}
    return {
        "get": {
            "operationId": operation,
            "summary": summary,
            "security": [{"token": []}],
            "responses": answers,
        }
    }


_JPEG = {"type": "string", "format": "binary"}
PATHS = {
    "/api/pictures": _get(
        "pictures",
        "The night's cards that have the camera's still, by pack and card",
        _answer("Each card's pack, code and still's SHA-256", _OBJECT),
    ),
    "/api/pictures/{name}": _get(
        "picture",
        "A card's still, named by its SHA-256 as its journal row names it",
        _answer("The still, a small JPEG", _JPEG, "image/jpeg"),
        ("404", "Not a SHA-256's name, or no longer kept"),
    ),
    "/api/camera/view.jpg": _get(
        "cameraView",
        "The camera's aiming view: asks for it, and serves the latest (X-Light: the verdict)",
        _answer("The box as the camera sees it, the card's outline drawn", _JPEG, "image/jpeg"),
        ("503", "No view from the camera yet"),
    ),
    "/api/camera/teach": {
        **_get(
            "teaching",
            "How far the camera reader is with the deck it is taught",
            _answer("Its state, the cards taken and refused, its last words", _OBJECT),
        ),
        "post": {
            "operationId": "teach",
            "summary": "Teach the camera a deck dealt through the box in order, or stop",
            "description": "Needs the token or a session cookie, from the console's own "
            "page, as JSON.",
            "security": [{"token": []}],
            "requestBody": {
                "required": True,
                "content": {
                    "application/json": {
                        "schema": {
                            "type": "object",
                            "properties": {
                                "deck": {"type": "string", "pattern": "^[a-z0-9-]{1,40}$"},
                                "cancel": {"const": True},
                            },
                        },
                        "examples": {
                            "teach": {"value": {"deck": "club-deck"}},
                            "stop": {"value": {"cancel": True}},
                        },
                    }
                },
            },
            "responses": {
                "202": _answer("Asked: the camera reader takes it within a second", _OBJECT),
                "400": _answer("Not a deck's name, nor a cancel", _ERROR),
                "401": _answer("No token, and no live session cookie", _ERROR),
                "403": _answer("From another page than the console's own", _ERROR),
                "409": _answer("A deck is being taught already", _ERROR),
                "415": _answer("Not sent as application/json", _ERROR),
            },
        },
    },
}
"""The routes as the console's OpenAPI document gives them."""
