"""The events on the wire: what a client must send, declared once per event type.

:mod:`faro_pi.game.events` turns JSON into events and back; this module tells
a person writing a client what that JSON looks like: a summary, the fields,
which of them are required, and examples. The console's OpenAPI schema is
built from it, and a test holds it to the decoder: every type the decoder
knows has one entry here, and every example decodes and encodes back to
itself. An event's fields are the ones its class declares, and a field means
the same in every event that has it, so :data:`FIELDS` describes each name once.

The schema states the rules' limits too (two to ten seats, an even weight):
a client can check an entry before posting it; the rules engine still
decides.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import Any

from faro_pi.game.cards import COLOURS, RANKS
from faro_pi.game.events import (
    ALARM_KINDS,
    Alarm,
    Bet,
    Call,
    CardDrawn,
    Clear,
    Close,
    Integrity,
    Join,
    Leave,
    Lock,
    Remove,
    Session,
    Shuffle,
    Void,
)
from faro_pi.game.profile import MAX_WEIGHT, OPTION_KEYS, PROFILES
from faro_pi.game.seats import MAX_SEATS, MIN_SEATS

NAME = {"type": "string", "minLength": 1, "description": "a participant's name"}
RANK = {
    "type": "string",
    "enum": list(RANKS),
    "description": "A rank: A, 2-10, J, Q, K (T for 10 and any case are accepted too).",
}
CARD = {
    "type": "string",
    "pattern": "^(A|[2-9]|10|T|J|Q|K)[SHDC]$",
    "description": "A card: its rank then its suit (S H D C), e.g. KD or 10H; any case.",
}
WEIGHT = {
    "type": "integer",
    "minimum": 1,
    "maximum": MAX_WEIGHT,
    "description": "A positive whole number; the teaching rules (even_weights) want it even, "
    "so that a split halves it exactly.",
}
COLOUR = {"type": "string", "enum": list(COLOURS)}
THREE = {"minItems": 3, "maxItems": 3}
"""Loser, winner and hock."""

FIELDS: dict[str, dict[str, Any]] = {
    "seats": {"type": "array", "items": NAME, "minItems": MIN_SEATS, "maxItems": MAX_SEATS},
    "banker": NAME,
    "player": NAME,
    "rank": RANK,
    "weight": WEIGHT,
    "copper": {"type": "boolean"},
    "order": {"type": "array", "items": RANK, **THREE},
    "colours": {"type": "array", "items": COLOUR, **THREE},
    "card": CARD,
    "source": {
        "type": "string",
        "description": "How the card came: reader, hand, scanner. A card entered at the "
        "console is journaled as 'hand', whatever is sent.",
    },
    "ranks": {
        "type": "array",
        "items": RANK,
        "minItems": 2,
        "maxItems": 4,
        "uniqueItems": True,
        "description": "Two neighbouring cards or a corner of four on the layout (2 or 4 ranks, "
        "in any order); with the combinations option.",
    },
    "high_card": {
        "const": True,
        "description": "The high-card space: the winner outranks the loser (ace low); with the "
        "high_card option.",
    },
    "call": {
        "const": True,
        "description": "With remove: takes back every call the player has made on the last three.",
    },
    "profile": {"type": "string", "enum": list(PROFILES)},
    "limit": {
        "type": "integer",
        "minimum": 1,
        "maximum": MAX_WEIGHT,
        "description": "The largest weight of one bet or call; without it the table's configured "
        "limit is journaled with the session.",
    },
    "options": {
        "type": "object",
        "description": "House-rule options over the profile's, by name.",
        "properties": {
            key: {"enum": [1, 2]} if key == "cat_hop_pays" else {"type": "boolean"}
            for key in OPTION_KEYS
        },
        "additionalProperties": False,
    },
    "kind": {"type": "string", "enum": list(ALARM_KINDS)},
    "pack": {"type": "integer", "minimum": 1, "description": "The pack's number."},
    "flagged": {
        "type": "array",
        "items": {"type": "string"},
        "description": "Each finding in a line a person can act on; empty when fair.",
    },
    "report": {"type": "object", "description": "The report's measures (docs/integrity.md)."},
    "text": {"type": "string"},
}
"""The JSON schema of every field an event may have, by the field's name."""


@dataclass(frozen=True, slots=True)
class Wire:
    """One event type as a client sends it."""

    name: str
    """The JSON object's ``type``."""
    event: type
    """Its class in :mod:`faro_pi.game.events`; the fields come from there."""
    summary: str
    required: tuple[str, ...]
    examples: tuple[dict[str, Any], ...]
    either: tuple[str, ...] = ()
    """Fields of which exactly one is given."""
    entered: bool = True
    """Whether the lookout may enter it; an alarm is raised by the shoe alone."""

    @property
    def properties(self) -> dict[str, dict[str, Any]]:
        """The JSON schema of each field, ``type`` first."""
        declared = inspect.get_annotations(self.event)  # a dataclass's or a Struct's fields
        return {"type": {"const": self.name}} | {name: FIELDS[name] for name in declared}


WIRE: dict[str, Wire] = {
    wire.name: wire
    for wire in (
        Wire(
            "session",
            Session,
            "Seats 2 to 10 participants in table order; one of them banks (drawn at random "
            "if none is named). The profile (teaching or house) and options name the house "
            "rules; without them the table's configured rules are journaled with the session.",
            ("seats",),
            (
                {"type": "session", "seats": ["Ann", "Bob", "Cy"], "banker": "Cy"},
                {
                    "type": "session",
                    "seats": ["Ann", "Bob", "Cy"],
                    "banker": "Cy",
                    "profile": "house",
                },
            ),
        ),
        Wire(
            "bet",
            Bet,
            "A prediction on a rank, between two neighbouring cards or at a corner of four "
            "('ranks'), or on the high card; coppered, it plays to lose.",
            ("player", "weight"),
            (
                {"type": "bet", "player": "Ann", "rank": "9", "weight": 2, "copper": False},
                {
                    "type": "bet",
                    "player": "Ann",
                    "ranks": ["9", "10"],
                    "weight": 3,
                    "copper": False,
                },
                {"type": "bet", "player": "Ann", "high_card": True, "weight": 3, "copper": True},
            ),
            either=("rank", "ranks", "high_card"),
        ),
        Wire(
            "remove",
            Remove,
            "Takes a player's predictions on a rank, on exactly a set of ranks, or on the high "
            "card off the layout (only one direction if 'copper' is given); with 'call', takes "
            "back the player's calls while calls are taken.",
            ("player",),
            (
                {"type": "remove", "player": "Ann", "rank": "9"},
                {"type": "remove", "player": "Ann", "ranks": ["10", "9"]},
                {"type": "remove", "player": "Ann", "call": True},
            ),
            either=("rank", "ranks", "high_card", "call"),
        ),
        Wire(
            "call",
            Call,
            "Calling the turn with three cards left: loser, winner, hock by rank ('order'), "
            "or by colour ('colours') when the three share a rank.",
            ("player", "weight"),
            (
                {"type": "call", "player": "Ann", "order": ["7", "J", "3"], "weight": 2},
                {"type": "call", "player": "Ann", "colours": ["red", "black", "red"], "weight": 2},
            ),
            either=("order", "colours"),
        ),
        Wire(
            "join",
            Join,
            "Seats a participant at the end of the table order while entries are open; one "
            "who left earlier in the session keeps the result they left with.",
            ("player",),
            ({"type": "join", "player": "Dee"},),
        ),
        Wire(
            "leave",
            Leave,
            "A player gets up while entries are open: their predictions and calls are "
            "withdrawn with no money moving, and their result stays in the session's.",
            ("player",),
            ({"type": "leave", "player": "Ann"},),
        ),
        Wire(
            "close",
            Close,
            "Ends the session (the night) between packs: before the soda or after the hock. "
            "What stands on the layout is withdrawn; a new session may then be seated.",
            (),
            ({"type": "close"},),
        ),
        Wire(
            "lock",
            Lock,
            "The banker's signal: entries close until the next pair's winner.",
            (),
            ({"type": "lock"},),
        ),
        Wire(
            "card",
            CardDrawn,
            "A card exposed, entered by hand (after a no-read, say); journaled with source 'hand'.",
            ("card",),
            ({"type": "card", "card": "KD"},),
        ),
        Wire(
            "void",
            Void,
            "Takes back the last card exposed (a misread); 'card' guards against voiding twice.",
            (),
            ({"type": "void", "card": "KD"},),
        ),
        Wire(
            "clear",
            Clear,
            "The alarms (of one kind, if given) have been dealt with.",
            (),
            ({"type": "clear"}, {"type": "clear", "kind": "noread"}),
        ),
        Wire(
            "shuffle",
            Shuffle,
            "A new pack, after the hock; the bank passes to the next seat.",
            (),
            ({"type": "shuffle"},),
        ),
        Wire(
            "alarm",
            Alarm,
            "Something at the shoe needs a person: a refused card, a no-read, a gap, a lost "
            "reader. Raised by the shoe and journaled, never entered.",
            ("kind",),
            ({"type": "alarm", "kind": "noread", "text": "a card passed unread"},),
            entered=False,
        ),
        Wire(
            "integrity",
            Integrity,
            "The deal-integrity report of a complete pack (docs/integrity.md), journaled by "
            "the daemon at the hock; 'flagged' says what a fair shuffle gives less than once in "
            "a thousand packs. Never entered.",
            ("pack", "flagged", "report"),
            ({"type": "integrity", "pack": 1, "flagged": [], "report": {"splits": {"value": 1}}},),
            entered=False,
        ),
    )
}
"""Every event type, by its JSON ``type``, in the order the schema lists them."""
