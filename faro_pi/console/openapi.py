"""The console's OpenAPI 3.1 document, served at ``/openapi.json``.

The events' part is msgspec's schema of the declarations in
:mod:`faro_pi.game.events` (:func:`faro_pi.game.codec.schemas`); the rest
describes the JSON of :mod:`faro_pi.service.view`, and the routes of logging a
phone in and out describe themselves in :mod:`faro_pi.console.phones`.
"""

from __future__ import annotations

from faro_pi.console import idempotency, token
from faro_pi.console.phones import PATHS as LOGIN_PATHS
from faro_pi.console.phones import SCHEMAS as LOGIN_SCHEMAS
from faro_pi.console.pictures import PATHS as PICTURE_PATHS
from faro_pi.game.cards import COLOURS
from faro_pi.game.codec import EVENTS, schemas
from faro_pi.game.fields import ALARM_KINDS
from faro_pi.game.pack import Stage


def _object(properties: dict, required: tuple = (), **more) -> dict:
    return {"type": "object", "properties": properties, "required": list(required), **more}


def _ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


_EVENTS = schemas("#/components/schemas/{name}")
_ENTERED = [cls for cls in EVENTS if cls.entered]
"""The events a lookout may post: all but the shoe's alarms and the daemon's reports."""
_TAGS = [cls.__struct_config__.tag for cls in _ENTERED]
_COLOUR = {"type": "string", "enum": list(COLOURS)}
_THREE = {"minItems": 3, "maxItems": 3}
"""Loser, winner and hock."""

_INT = {"type": "integer"}
_STR = {"type": "string"}
_NULLABLE_STR = {"type": ["string", "null"]}

_SETTLEMENT = _object(
    {
        "player": _STR,
        "delta": {**_INT, "description": "What it did to the player's balance."},
        "outcome": {"enum": ["lost", "won", "split", "called", "miscalled"]},
        "rank": {"type": ["string", "null"], "description": "null for a call"},
        "copper": {"type": "boolean"},
        "weight": _INT,
    },
    ("player", "delta", "outcome", "rank", "copper", "weight"),
)

_PAIR = _object(
    {
        "pack": _INT,
        "turn": {**_INT, "minimum": 1, "maximum": 25},
        "loser": _STR,
        "winner": _STR,
        "split": {"type": "boolean"},
        "settlements": {"type": "array", "items": _ref("Settlement")},
        "banker": {**_INT, "description": "The banker's net from this pair."},
    },
    ("pack", "turn", "loser", "winner", "split", "settlements", "banker"),
)

_CALL = _object(
    {
        "player": _STR,
        "weight": _INT,
        "order": {"type": "array", "items": _STR},
        "colours": {"type": "array", "items": _STR},
    },
    ("player", "weight"),
)

_RESULT = _object({"player": _STR, "balance": _INT}, ("player", "balance"))
_NIGHT = _object(
    {"number": {**_INT, "minimum": 1}, "results": {"type": "array", "items": _RESULT}},
    ("number", "results"),
)

_STATE = _object(
    {
        "version": {**_INT, "description": "Rises with every change, across restarts too."},
        "profile": {"enum": ["teaching", "house"]},
        "pack": _object(
            {
                "number": _INT,
                "exposed": {"type": "array", "items": _STR, "description": "In order."},
                "left": _INT,
                "turn": {**_INT, "description": "Pairs completed."},
                "soda": _NULLABLE_STR,
                "hock": _NULLABLE_STR,
                "complete": {"type": "boolean"},
                "stage": {"enum": [stage.value for stage in Stage]},
            },
            ("number", "exposed", "left", "turn", "soda", "hock", "complete", "stage"),
        ),
        "case": {
            "type": "array",
            "description": "Cards of each rank still in the shoe, A to K.",
            "items": _object({"rank": _STR, "count": _INT}, ("rank", "count")),
            "minItems": 13,
            "maxItems": 13,
        },
        "pair": {
            "description": "The pair in play: its loser is out, its winner is not (else null).",
            "oneOf": [
                {"type": "null"},
                _object({"turn": _INT, "loser": _STR}, ("turn", "loser")),
            ],
        },
        "last_pair": {"oneOf": [{"type": "null"}, _ref("Pair")]},
        "entries": {"enum": ["open", "locked", "closed"]},
        "can_lock": {"type": "boolean", "description": "Whether the banker may lock now."},
        "predictions": {
            "type": "array",
            "items": _object(
                {"player": _STR, "rank": _STR, "weight": _INT, "copper": {"type": "boolean"}},
                ("player", "rank", "weight", "copper"),
            ),
        },
        "calls": {"type": "array", "items": _ref("Call")},
        "call_results": {
            "type": "array",
            "items": _ref("Settlement"),
            "description": "What the calls did at the last hock of this pack.",
        },
        "seats": {"type": "array", "items": _STR, "description": "In table order."},
        "banker": _NULLABLE_STR,
        "balances": {"type": "object", "additionalProperties": _INT},
        "leaders": {"type": "array", "items": _STR},
        "last_night": {
            "description": "The night closed last, or null: its number among the journal's "
            "nights and each participant's result in table order, those who left too.",
            "oneOf": [{"type": "null"}, _NIGHT],
        },
        "alarms": {
            "type": "array",
            "items": _object(
                {
                    "kind": {"enum": list(ALARM_KINDS)},
                    "text": _STR,
                    "card": _NULLABLE_STR,
                    "count": {
                        **_INT,
                        "description": "Alarms of this kind since it was last cleared; "
                        "the text and card are the latest's.",
                    },
                },
                ("kind", "text", "card", "count"),
            ),
        },
        "journal": {
            **_STR,
            "description": "The journal this console serves, as a digest of its path: the "
            "command line checks it is the one its config names. Always in the console's "
            "states.",
        },
    }
)
_STATE["required"] = [name for name in _STATE["properties"] if name != "journal"]
"""Every field, but the journal's: only the console's states carry it."""

_HISTORY = _object(
    {
        "pairs": {"type": "array", "items": _ref("Pair"), "description": "Every pair, in order."},
        "packs": {
            "type": "array",
            "items": _object(
                {
                    "number": _INT,
                    "banker": _NULLABLE_STR,
                    "calls": {"type": "array", "items": _ref("Settlement")},
                },
                ("number", "banker", "calls"),
            ),
        },
        "balances": {"type": "object", "additionalProperties": _INT},
    },
    ("pairs", "packs", "balances"),
)

_CHANCE = {"type": "number", "minimum": 0, "maximum": 1}
_FRACTION = {
    "type": "string",
    "pattern": "^[0-9]+/[1-9][0-9]*$",
    "description": "The same chance exactly, as numerator/denominator in lowest terms.",
}

_ODDS = _object(
    {
        "version": {**_INT, "description": "The state's version these odds are for."},
        "left": {**_INT, "description": "Cards still in the shoe."},
        "next": {
            "enum": ["soda", "pair", "winner", "none"],
            "description": "What 'the next pair' is: the pair after the soda, the next pair, "
            "the winner of the pair under way (its loser is out), or none left to settle.",
        },
        "ranks": {
            "type": "array",
            "description": "A to K: the chances that the next pair makes the rank lose, win "
            "or split; what is left over, it leaves the rank alone.",
            "minItems": 13,
            "maxItems": 13,
            "items": _object(
                {
                    "rank": _STR,
                    "count": {**_INT, "description": "Its cards still in the shoe."},
                    "lose": _CHANCE,
                    "win": _CHANCE,
                    "split": _CHANCE,
                    "fractions": _object(
                        {"lose": _FRACTION, "win": _FRACTION, "split": _FRACTION},
                        ("lose", "win", "split"),
                    ),
                },
                ("rank", "count", "lose", "win", "split", "fractions"),
            ),
        },
        "last_three": {
            "description": "With three cards left: every order a call may name (loser, "
            "winner, hock), by rank, or by colour when the three share a rank; else null.",
            "oneOf": [
                {"type": "null"},
                _object(
                    {
                        "by": {"enum": ["rank", "colour"]},
                        "orders": {
                            "type": "array",
                            "items": _object(
                                {
                                    "order": {"type": "array", "items": _STR, **_THREE},
                                    "colours": {"type": "array", "items": _COLOUR, **_THREE},
                                    "chance": _CHANCE,
                                    "fraction": _FRACTION,
                                },
                                ("chance", "fraction"),
                            ),
                        },
                    },
                    ("by", "orders"),
                ),
            ],
        },
    },
    ("version", "left", "next", "ranks", "last_three"),
)

_ERROR = _object({"error": _STR}, ("error",))
_REFUSAL = _object(
    {
        "rule": {**_STR, "description": "A short stable name of the rule, e.g. entries-closed."},
        "error": {**_STR, "description": "What is wrong, for people."},
    },
    ("rule", "error"),
)


def _content(schema: dict) -> dict:
    return {"application/json": {"schema": schema}}


_MEANT_FOR = {
    "name": "Faro-Journal",
    "in": "header",
    "schema": _STR,
    "description": "The journal the change is meant for (the state's 'journal'); a console "
    "serving another refuses it (409, rule 'journal') before anything else.",
}
_ENTERED_ANSWER = {"event": {"type": "object"}, "version": _INT, "journal": _STR}


def _answer(description: str, schema: dict) -> dict:
    return {"description": description, "content": _content(schema)}


def openapi() -> dict:
    """The console's OpenAPI 3.1 description, served at ``/openapi.json``."""
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "faro-pi: the lookout's console",
            "version": "1",
            "description": "Every change is one event of the table's vocabulary, posted to "
            "/api/events: journaled first, then applied. Reads need no token.",
        },
        "paths": {
            "/api/events": {
                "post": {
                    "operationId": "enter",
                    "summary": "Enter one event at the table",
                    "security": [{"token": []}],
                    "parameters": [_MEANT_FOR, idempotency.PARAMETER],
                    "requestBody": {
                        "required": True,
                        "content": {
                            "application/json": {
                                "schema": _ref("Event"),
                                "examples": {
                                    example["type"] + (f"-{i}" if i else ""): {"value": example}
                                    for cls in _ENTERED
                                    for i, example in enumerate(cls.examples)
                                },
                            }
                        },
                    },
                    "responses": {
                        "200": _answer(
                            "Applied: the event as journaled and the version of the state "
                            "after it (the state itself comes on GET /api/events)",
                            _object(_ENTERED_ANSWER, tuple(_ENTERED_ANSWER)),
                        ),
                        "400": _answer("The body is not JSON, or the key malformed", _ref("Error")),
                        "401": _answer("No token, or the wrong one", _ref("Error")),
                        "409": _answer(
                            "The rules refuse it now; nothing has changed", _ref("Refusal")
                        ),
                        "413": _answer("The body is too large", _ref("Error")),
                        "422": _answer(
                            "A wrong event type or code, or a key reused", _ref("Refusal")
                        ),
                        "503": _answer("The journal cannot be written", _ref("Error")),
                    },
                },
                "get": {
                    "operationId": "watch",
                    "summary": "The state after every change, as Server-Sent Events",
                    "description": "Each message is 'event: state', 'id: <version>', 'data: "
                    "<State as JSON>', the current state first; then 'event: beat' (data: the "
                    "seconds to the next), again whenever the stream is quiet that long, so "
                    "that a hung table shows. A slow reader misses intermediate states.",
                    "responses": {
                        "200": {
                            "description": "An endless stream",
                            "content": {"text/event-stream": {"schema": {"type": "string"}}},
                        }
                    },
                },
            },
            "/api/state": {
                "get": {
                    "operationId": "state",
                    "summary": "The table now",
                    "responses": {"200": _answer("The state", _ref("State"))},
                }
            },
            "/api/history": {
                "get": {
                    "operationId": "history",
                    "summary": "Every pair of the session and each pack's calls",
                    "responses": {"200": _answer("The history", _ref("History"))},
                }
            },
            "/api/odds": {
                "get": {
                    "operationId": "odds",
                    "summary": "Exact odds of the next pair for each rank, and of each order "
                    "at the last three",
                    "responses": {"200": _answer("The odds now", _ref("Odds"))},
                }
            },
            "/api/export": {
                "get": {
                    "operationId": "export",
                    "summary": "The journal as JSON lines for faro-pi replay",
                    "responses": {
                        "200": {
                            "description": "One event a line, as faro-pi export prints them",
                            "content": {"application/x-ndjson": {"schema": {"type": "string"}}},
                        }
                    },
                }
            },
            **LOGIN_PATHS,
            **PICTURE_PATHS,
        },
        "components": {
            "securitySchemes": {
                "token": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": f"The console's token: in {token.TOKEN_FILE} beside the "
                    "journal, or console.token in the configuration.",
                }
            },
            "schemas": {
                "Event": {
                    "oneOf": [_ref(name) for name in _EVENTS],
                    "discriminator": {
                        "propertyName": "type",
                        "mapping": {
                            tag: _ref(name)["$ref"]
                            for tag, name in zip(_TAGS, _EVENTS, strict=True)
                        },
                    },
                },
                **_EVENTS,
                "State": _STATE,
                "Pair": _PAIR,
                "Settlement": _SETTLEMENT,
                "Call": _CALL,
                "History": _HISTORY,
                "Odds": _ODDS,
                "Refusal": _REFUSAL,
                "Error": _ERROR,
                **LOGIN_SCHEMAS,
            },
        },
    }
